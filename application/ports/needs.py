"""What each application service asks of storage: one intersection of roles per service (ADR 0028).

Python has no intersection type, so each is a Protocol that inherits the roles and adds nothing.
A service annotated with one of these can be given any object with those roles; the composition
root gives every service the one :class:`~hlmem.application.ports.storage.Storage`. Services
that need a single role take it directly (``InspectService``: ``ClaimReader``; ``AuditService``:
``EventLog``; ``IngestService`` and ``Worker``: ``JobQueue``; ``ExperienceRecall``:
``HasExperience``).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from hlmem.application.ports.activity import ActivityLog
from hlmem.application.ports.basics import Transactional
from hlmem.application.ports.claims import ClaimReader
from hlmem.application.ports.derived import DerivedReader
from hlmem.application.ports.event_log import EventLog
from hlmem.application.ports.experience import HasExperience
from hlmem.application.ports.governance import Erasure, ForgetQueries, HasTombstoneLedger
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
class RecallStore(SearchIndex, ClaimReader, ActivityLog, ForgetQueries, DerivedReader, Protocol):
    """Recall (``RecallService``): candidates and visibility, claim and event states, archived
    candidates and access counts, a session's events (``session_events``) for neighbours. Recall
    writes nothing but access counts, so it needs no transaction and no event log."""


@runtime_checkable
class DerivedStore(EventLog, ClaimReader, DerivedReader, SearchIndex, Transactional, Protocol):
    """The derived layer (``DerivedService``): read a subject's claims and its derived items, append
    builds and removals in one transaction (ADR 0046), each built item indexed for recall (ADR 0084)."""


@runtime_checkable
class StalenessStore(EventLog, DerivedReader, Erasure, HasTombstoneLedger, Transactional, Protocol):
    """The staleness guard (``StalenessGuard``): append, find the derived items citing a changed
    claim, erase their payloads and tombstone them when their last source is forgotten."""


@runtime_checkable
class ExperienceStore(EventLog, ClaimReader, Transactional, HasExperience, Protocol):
    """The experience channel (``ExperienceService``): episodes and steps appended, their cited
    evidence checked against observations, policies induced, all in one transaction (ADR 0045)."""


@runtime_checkable
class ExperienceForgetStore(EventLog, Erasure, Transactional, HasExperience, Protocol):
    """Forgetting an episode (``ExperienceForgetService``): plan from the projection, erase the
    payloads, append the tombstone events. The tombstone ledger is a separate argument."""
