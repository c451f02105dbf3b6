"""Wiring one ``Memory``: its container's configuration from the settings and the explicit arguments."""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from hlmem.adapters.di import providers

from hlmem.adapters.container import Container
from hlmem.adapters.embedders.select import BUILTIN, configured_embedder_name, default_embedder_name
from hlmem.adapters.plugin_wiring import only_enabled
from hlmem.adapters.settings import Settings, lifecycle_policy, maintenance_config, ranking_config
from hlmem.plugins.api import PluginError

if TYPE_CHECKING:
    from hlmem.application.maintenance import MaintenanceConfig
    from hlmem.application.ports import LLM, Embedder, Reranker, Storage
    from hlmem.application.ranking import RankingConfig
    from hlmem.domain.lifecycle import LifecyclePolicy

__all__ = ["build_container", "note_embedder", "use_embedder"]


def build_container(path: str, settings: Settings, *, now: datetime | None, synchronous: str,
                    llm: str | Mapping[str, Any] | LLM | None, provenance: str | None, dedup_audit: bool,
                    block_reingest: bool | None, lifecycle: LifecyclePolicy | Mapping[str, Any] | None,
                    maintenance: MaintenanceConfig | Mapping[str, Any] | None,
                    rerank: str | Mapping[str, Any] | Reranker | None, rerank_top_n: int,
                    ranking: RankingConfig | Mapping[str, Any] | None) -> Container:
    """A container for the store at ``path``: every explicit argument wins over ``settings``.

    Thresholds and weights are validated here, so a bad one fails at ``Memory(...)``.
    """
    container = Container()
    container.config.from_dict({
        "storage": {"kind": _storage_kind(path), "path": path, "synchronous": synchronous},
        "clock": {"kind": "fixed" if now else "system", "at": now},
        "embedder": {"name": "none"},
        "llm": {"kind": "none", "settings": {}},
        "dedup": {"audit": dedup_audit},
        "provenance": {"mode": provenance or settings.provenance},
        "extraction": {"kind": settings.extractor},
        "worker": {"owner": f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"},
        "forget": {"block_reingest": settings.block_reingest if block_reingest is None else bool(block_reingest)},
        "lifecycle": {"policy": settings.lifecycle if lifecycle is None else lifecycle_policy(lifecycle),
                      "maintenance": settings.maintenance if maintenance is None else maintenance_config(maintenance)},
        "rerank": {"kind": "none", "settings": {}, "top_n": rerank_top_n},
        "ranking": {"config": settings.ranking if ranking is None else ranking_config(ranking)},
        "recall": {"parallel": settings.recall_parallel},
        "vectors": {"mode": settings.vectors},
        "budget": {"settings": settings.budget},
        "relations": {"enabled": settings.relations.enabled},
    })
    # Plugins (ADR 0032): the registry sees the allowlist; every enabled plugin is checked now.
    container.plugin_settings.override(providers.Object(settings.plugins))
    # Policy induction's thresholds (``[experience]``); mem.policies.set_thresholds overrides them later.
    container.experience_thresholds.override(providers.Object(settings.experience))
    registry = container.plugins()
    registry.check()
    if storage_plugin := only_enabled(registry, "storage", "the store's path"):
        container.config.storage.kind.from_value(storage_plugin)
    registry.spec("storage", container.config.storage.kind())
    _provider(container, "llm", llm, settings.llm, settings.llm_model, settings.llm_base_url)
    _provider(container, "rerank", rerank, settings.rerank, settings.rerank_model, settings.rerank_base_url)
    return container


def _provider(container: Container, key: str, given: str | Mapping[str, Any] | Any | None, name: str | None,
              model: str | None, base_url: str | None) -> None:
    """No LLM (reranker) by default; a plugin name (a preset, with the settings' model and
    endpoint, or a third-party plugin), a settings mapping naming its ``provider``, or an object
    the caller made (and closes). With nothing configured, the only enabled plugin of the group
    is used. The chosen plugin is loaded and checked now; its client is made at first use."""
    kind = "llm" if key == "llm" else "reranker"
    registry = container.plugins()
    chosen = name if given is None else given
    if chosen is None:
        chosen = only_enabled(registry, kind, f"HLMEM_{key.upper()}")
    if chosen is None or chosen == "none":
        return
    if isinstance(chosen, str):
        chosen = {"provider": chosen, "model": model, "base_url": base_url}
    if isinstance(chosen, Mapping):
        plugin = chosen.get("provider") or ("openai" if kind == "llm" else None)  # the LLM presets' default
        if not isinstance(plugin, str) or not plugin.strip():
            raise PluginError(f"{key}.provider is required; choose one of {', '.join(registry.names(kind))}")
        registry.spec(kind, plugin.strip())
        getattr(container.config, key).kind.from_value(plugin.strip())
        getattr(container.config, key).settings.from_value(dict(chosen))
    else:
        (container.llm if key == "llm" else container.reranker).override(providers.Object(chosen))


def use_embedder(container: Container, storage: Storage, embedder: str | Embedder | None,
                 settings: Settings) -> str:
    """Put the embedder in the container; return its name (``custom`` for an object).

    A name: the argument, else the settings', else the only enabled embedder plugin, else the
    model the store already uses, else the best installed default. Built-ins and plugins both
    go through the registry (ADR 0032).
    """
    if embedder is not None and not isinstance(embedder, str):
        container.raw_embedder.override(providers.Object(embedder))
        return "custom"
    chosen = (embedder or settings.embedder or "").strip().lower()
    registry = container.plugins()
    if chosen == "none":
        name = "none"  # full text only: no vectors are written or compared
    elif chosen and chosen not in BUILTIN and registry.has("embedder", chosen):
        name = chosen  # a third-party embedder plugin (allowed or not: the registry says)
    elif chosen:
        name = configured_embedder_name({"HLMEM_EMBEDDER": chosen})
    else:
        name = (only_enabled(registry, "embedder", "HLMEM_EMBEDDER") or storage.meta("embedder_name")
                or default_embedder_name())
    if name != "none":
        registry.spec("embedder", name)  # found, allowed and valid now; the model loads at first use
    container.config.embedder.name.from_value(name)
    return name


def note_embedder(storage: Storage, name: str) -> None:
    """Record the embedder's name in a store that just got its first vectors (reopening picks it)."""
    if name != "custom" and storage.meta("embedder_name") is None and storage.vector_model() is not None:
        storage.set_meta("embedder_name", name)


def _storage_kind(path: str) -> str:
    """The storage plugin a path names: ``:memory:``, a PostgreSQL URL (``postgresql://…``, issue 18)
    or a SQLite file."""
    if path == ":memory:":
        return "memory"
    if path.startswith(("postgresql://", "postgres://")):
        return "postgres"
    return "sqlite"
