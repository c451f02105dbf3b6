"""``hlmem doctor --live``: one minimal request to each configured provider (LLM, reranker).

The request goes through the same adapter hlmem uses (its key from the environment, its
redaction), with no retry and a short timeout; its ledger row goes to a ledger in memory, so the
store is never written. Only ``--live`` sends anything over the network.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import attrs

from hlmem.adapters.llm.ledger import InMemoryLedger
from hlmem.adapters.ops.checks import FAIL, OK, Check
from hlmem.domain.errors import HlmemError

#: Seconds one live probe may take.
LIVE_TIMEOUT_S = 10.0
_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


def llm_reachable(config: Any, environ: Mapping[str, str], *, transport: Any = None) -> Check:
    """A one-line structured completion (``{"ok": true}``) against the configured LLM."""
    from hlmem.adapters.llm.openai_compat import OpenAICompatLLM

    config = attrs.evolve(config, max_retries=0, timeout_s=min(config.timeout_s, LIVE_TIMEOUT_S), max_tokens=16)
    started = time.perf_counter()
    try:
        with OpenAICompatLLM(config, ledger=InMemoryLedger(), env=environ, transport=transport) as llm:
            llm.complete_json("Reply with the JSON object {\"ok\": true}.", "ping", _SCHEMA, operation="doctor")
    except HlmemError as exc:
        return Check("llm live", FAIL, f"{config.provider}:{config.model} at {config.base_url}: {exc}",
                     "check the endpoint, the model name and the key variable; then `hlmem doctor --live` again")
    ms = (time.perf_counter() - started) * 1000
    return Check("llm live", OK, f"{config.provider}:{config.model} at {config.base_url} answered in {ms:.0f} ms")


def plugin_reachable(kind: str, name: str, settings: Any, environ: Mapping[str, str]) -> Check:
    """One minimal call to a third-party LLM or reranker plugin, built through the plugin registry
    as ``Memory`` builds it (so a plugin that is not allowlisted fails here as it would there)."""
    from hlmem.adapters.plugin_wiring import build_plugin, make_plugin_registry

    label = "llm live" if kind == "llm" else "rerank live"
    role = {"provider": name, "model": getattr(settings, f"{'llm' if kind == 'llm' else 'rerank'}_model"),
            "base_url": getattr(settings, f"{'llm' if kind == 'llm' else 'rerank'}_base_url")}
    started = time.perf_counter()
    made = None
    try:
        made = build_plugin(make_plugin_registry(settings.plugins), kind, name, settings=role,
                            ledger=InMemoryLedger(), environ=environ)
        if kind == "llm":
            made.complete_json("Reply with the JSON object {\"ok\": true}.", "ping", _SCHEMA, operation="doctor")
        else:
            made.rerank("ping", ["pong"])
    except Exception as exc:  # noqa: BLE001 - third-party code: whatever it raises is the finding
        what = str(exc) if isinstance(exc, HlmemError) else f"{type(exc).__name__}: {exc}"
        return Check(label, FAIL, f"plugin {name}: {what}",
                     "check the plugin's options and endpoint (docs/plugins.md); then `hlmem doctor --live` again")
    finally:
        if made is not None and callable(getattr(made, "close", None)):
            made.close()
    ms = (time.perf_counter() - started) * 1000
    return Check(label, OK, f"plugin {name} answered in {ms:.0f} ms")


def reranker_reachable(config: Any, environ: Mapping[str, str], *, transport: Any = None) -> Check:
    """Scores for one document against the configured reranker."""
    from hlmem.adapters.rerank.http import HTTPReranker

    config = attrs.evolve(config, max_retries=0, timeout_s=min(config.timeout_s, LIVE_TIMEOUT_S))
    started = time.perf_counter()
    try:
        with HTTPReranker(config, ledger=InMemoryLedger(), env=environ, transport=transport) as reranker:
            reranker.rerank("ping", ["pong"])
    except HlmemError as exc:
        return Check("rerank live", FAIL, f"{config.provider}:{config.model} at {config.url}: {exc}",
                     "check the endpoint, the model name and the key variable; then `hlmem doctor --live` again")
    ms = (time.perf_counter() - started) * 1000
    return Check("rerank live", OK, f"{config.provider}:{config.model} at {config.url} answered in {ms:.0f} ms")
