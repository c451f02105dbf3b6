"""Ports: the Protocols the application depends on, one module per role (ADR 0028). Adapters
implement them; nothing here does I/O.

Every port states its contract in its docstring: ordering, idempotency and the errors it raises
(all rooted in :class:`hlmem.application.errors.HlmemError`). Every name is re-exported here, so
``from hlmem.application.ports import X`` works for each of them.

==============  =======================================================================
module          roles
==============  =======================================================================
basics          Clock, IdGenerator, Transactional (``transaction()``, ``close()``), ScratchMap
event_log       EventLog, StoreIdentity; values StoredEvent, IndexEntry
claims          ClaimReader
search          SearchIndex; value Candidate
governance      ForgetQueries, Erasure, TombstoneLedger, HasTombstoneLedger
activity        ActivityLog, PacketLog; value PacketDay
jobs            JobQueue, CallLedger; value Job
budget          BudgetLedger; value Reservation
heartbeat       WorkerHeartbeats; value WorkerBeat (ADR 0035)
providers       Embedder, EmbeddingCache, HasEmbeddingCache, LLM, Reranker; Matrix
storage         Storage: the composition of the storage roles
derived         DerivedReader (observation summaries, mental models; ADR 0046)
intent          ProfileIntent (does a question ask for a profile; ADR 0090)
experience      ExperienceReader, HasExperience (episodes, policies, procedures; ADR 0045)
relations       RelationReader, HasRelations (edges between people and things; ADR 0081)
needs           WriteStore, ConflictStore, ForgetStore, MaintenanceStore, RecallStore,
                DerivedStore, StalenessStore, ExperienceStore, ExperienceForgetStore:
                what each service asks of storage
==============  =======================================================================
"""

from __future__ import annotations

from hlmem.application.ports.activity import ActivityLog, PacketDay, PacketLog
from hlmem.application.ports.basics import Clock, IdGenerator, ScratchMap, Transactional
from hlmem.application.ports.budget import BudgetLedger, Reservation
from hlmem.application.ports.claims import ClaimReader
from hlmem.application.ports.derived import DerivedReader
from hlmem.application.ports.event_log import EventLog, IndexEntry, StoredEvent, StoreIdentity
from hlmem.application.ports.experience import ExperienceReader, HasExperience
from hlmem.application.ports.relations import HasRelations, RelationReader, RelationRecallStore, RelationStore
from hlmem.application.ports.governance import Erasure, ForgetQueries, HasTombstoneLedger, TombstoneLedger
from hlmem.application.ports.intent import ProfileIntent
from hlmem.application.ports.heartbeat import WORKER_STATES, WorkerBeat, WorkerHeartbeats, check_worker_state
from hlmem.application.ports.jobs import CallLedger, Job, JobQueue
from hlmem.application.ports.needs import (
    ConflictStore,
    DerivedStore,
    ExperienceForgetStore,
    ExperienceStore,
    ForgetStore,
    MaintenanceStore,
    RecallStore,
    StalenessStore,
    WriteStore,
)
from hlmem.application.ports.providers import LLM, Embedder, EmbeddingCache, HasEmbeddingCache, Matrix, Reranker
from hlmem.application.ports.search import Candidate, SearchIndex
from hlmem.application.ports.storage import Storage

__all__ = [
    "LLM",
    "ActivityLog",
    "BudgetLedger",
    "CallLedger",
    "Candidate",
    "ClaimReader",
    "ConflictStore",
    "DerivedReader",
    "DerivedStore",
    "Clock",
    "Embedder",
    "EmbeddingCache",
    "Erasure",
    "EventLog",
    "ExperienceForgetStore",
    "ExperienceReader",
    "ExperienceStore",
    "ForgetQueries",
    "ForgetStore",
    "HasEmbeddingCache",
    "HasExperience",
    "HasRelations",
    "RelationReader",
    "RelationRecallStore",
    "RelationStore",
    "HasTombstoneLedger",
    "IdGenerator",
    "IndexEntry",
    "Job",
    "JobQueue",
    "MaintenanceStore",
    "ProfileIntent",
    "Matrix",
    "PacketDay",
    "PacketLog",
    "RecallStore",
    "Reservation",
    "Reranker",
    "ScratchMap",
    "SearchIndex",
    "StalenessStore",
    "Storage",
    "StoreIdentity",
    "StoredEvent",
    "TombstoneLedger",
    "Transactional",
    "WORKER_STATES",
    "WorkerBeat",
    "WorkerHeartbeats",
    "WriteStore",
    "check_worker_state",
]
