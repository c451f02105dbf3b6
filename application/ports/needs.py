"""What each application service asks of storage: one intersection of roles per service (ADR 0028).

Python has no intersection type, so each is a Protocol that inherits the roles and adds nothing.
A service annotated with one of these can be given any object with those roles; the composition
root gives every service the one :class:`~hlmem.application.ports.storage.Storage`. Services
that need a single role take it directly (``InspectService``: ``ClaimReader``; ``AuditService``:
``EventLog``; ``IngestService`` and ``Worker``: ``JobQueue``).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from hlmem.application.ports.activity import ActivityLog
from hlmem.application.ports.basics import Transactional
from hlmem.application.ports.claims import ClaimReader
from hlmem.application.ports.event_log import EventLog
from hlmem.application.ports.governance import Erasure, ForgetQueries
from hlmem.application.ports.search import SearchIndex


@runtime_checkable
class WriteStore(EventLog, ClaimReader, SearchIndex, ActivityLog, Transactional, Protocol):
    """The write path (``WriteService``, ``ExtractionPipeline``): decide against claims and
    observations, embed and index (``prepare_index``, ``bind_vector_model``), append in one
    transaction, count a repeated fact as an access."""


@runtime_checkable
class ConflictStore(EventLog, ClaimReader, SearchIndex, Transactional, Protocol):
    """The review queue (``ConflictService``): read conflicts and their slot, append a decision."""


@runtime_checkable
class ForgetStore(EventLog, ClaimReader, SearchIndex, ForgetQueries, Erasure, Transactional, Protocol):
    """Forgetting (``ForgetService``): plan with the look-ups, erase, append the tombstone events.
    The tombstone ledger is a separate argument (:class:`~hlmem.application.ports.TombstoneLedger`)."""


@runtime_checkable
class MaintenanceStore(EventLog, ClaimReader, SearchIndex, Erasure, ActivityLog, Transactional, Protocol):
    """Lifecycle maintenance (``MaintenanceService``): lifecycle candidates and activity, expiry and
    archive events, revival, the cursor in ``meta``, finishing a pending erasure."""


@runtime_checkable
class RecallStore(SearchIndex, ClaimReader, ActivityLog, ForgetQueries, Protocol):
    """Recall (``RecallService``): candidates and visibility, claim and event states, archived
    candidates and access counts, a session's events (``session_events``) for neighbours. Recall
    writes nothing but access counts, so it needs no transaction and no event log."""
