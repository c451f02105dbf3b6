"""Wiring one ``Memory``: its container's configuration from the settings and the explicit arguments."""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from dependency_injector import providers

from hlmem.adapters.container import Container
from hlmem.adapters.embedders.select import configured_embedder_name, default_embedder_name
from hlmem.adapters.settings import Settings, lifecycle_policy, maintenance_config, ranking_config
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
        "storage": {"kind": "memory" if path == ":memory:" else "sqlite", "path": path, "synchronous": synchronous},
        "clock": {"kind": "fixed" if now else "system", "at": now},
        "embedder": {"name": "none"},
        "llm": {"kind": "none", "settings": {}},
        "dedup": {"audit": dedup_audit},
        "provenance": {"mode": provenance or settings.provenance},
        "worker": {"owner": f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"},
        "forget": {"block_reingest": settings.block_reingest if block_reingest is None else bool(block_reingest)},
        "lifecycle": {"policy": settings.lifecycle if lifecycle is None else lifecycle_policy(lifecycle),
                      "maintenance": settings.maintenance if maintenance is None else maintenance_config(maintenance)},
        "rerank": {"kind": "none", "settings": {}, "top_n": rerank_top_n},
        "ranking": {"config": settings.ranking if ranking is None else ranking_config(ranking)},
        "recall": {"parallel": settings.recall_parallel},
        "budget": {"settings": settings.budget},
    })
    _provider(container, "llm", llm, settings.llm, settings.llm_model, settings.llm_base_url)
    _provider(container, "rerank", rerank, settings.rerank, settings.rerank_model, settings.rerank_base_url)
    return container


def _provider(container: Container, key: str, given: str | Mapping[str, Any] | Any | None, name: str | None,
              model: str | None, base_url: str | None) -> None:
    """No LLM (reranker) by default; a preset name (with the settings' model and endpoint), a
    settings mapping, or an object the caller made (and closes)."""
    chosen = name if given is None else given
    if chosen is None or chosen == "none":
        return
    if isinstance(chosen, str):
        chosen = {"provider": chosen, "model": model, "base_url": base_url}
    if isinstance(chosen, Mapping):
        getattr(container.config, key).kind.from_value("http")
        getattr(container.config, key).settings.from_value(dict(chosen))
    else:
        (container.llm if key == "llm" else container.reranker).override(providers.Object(chosen))


def use_embedder(container: Container, storage: Storage, embedder: str | Embedder | None,
                 settings: Settings) -> str:
    """Put the embedder in the container; return its name (``custom`` for an object).

    A name: the argument, else the settings', else the model the store already uses, else the
    best installed default.
    """
    if embedder is not None and not isinstance(embedder, str):
        container.raw_embedder.override(providers.Object(embedder))
        return "custom"
    chosen = (embedder or settings.embedder or "").strip().lower()
    if chosen == "none":
        name = "none"  # full text only: no vectors are written or compared
    elif chosen:
        name = configured_embedder_name({"HLMEM_EMBEDDER": chosen})
    else:
        name = storage.meta("embedder_name") or default_embedder_name()
    container.config.embedder.name.from_value(name)
    return name


def note_embedder(storage: Storage, name: str) -> None:
    """Record the embedder's name in a store that just got its first vectors (reopening picks it)."""
    if name != "custom" and storage.meta("embedder_name") is None and storage.vector_model() is not None:
        storage.set_meta("embedder_name", name)
