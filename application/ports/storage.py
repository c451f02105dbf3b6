"""Storage: the composition of every storage role, what a store adapter (in-memory, SQLite) provides whole."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from hlmem.application.ports.activity import ActivityLog
from hlmem.application.ports.basics import Transactional
from hlmem.application.ports.claims import ClaimReader
from hlmem.application.ports.derived import DerivedReader
from hlmem.application.ports.event_log import EventLog, StoreIdentity
from hlmem.application.ports.experience import HasExperience
from hlmem.application.ports.governance import Erasure, ForgetQueries, HasTombstoneLedger
from hlmem.application.ports.providers import HasEmbeddingCache
from hlmem.application.ports.relations import HasRelations
from hlmem.application.ports.search import SearchIndex


@runtime_checkable
class Storage(EventLog, StoreIdentity, ClaimReader, SearchIndex, ForgetQueries, Erasure, ActivityLog,
              Transactional, HasTombstoneLedger, HasEmbeddingCache, DerivedReader, HasExperience, HasRelations, Protocol):
    """The whole storage port: every role a store adapter implements, with one write transaction
    that serialises decide-then-append across them (:class:`Transactional`).

    Services ask for the roles they use (ADR 0028); the composition root passes one ``Storage``
    object to each. A new adapter (PostgreSQL) is built and contract-tested role by role
    (tests/contract/) and is a ``Storage`` once it passes every role's suite.

    No role is optional (ADR 0076): the derived layer (:class:`DerivedReader`), the experience
    channel (:class:`HasExperience`) and relations (:class:`HasRelations`, ADR 0081) are part of the port like the rest, so a store that lacks one
    fails ``isinstance(store, Storage)`` in the contract suite and is refused when its plugin is
    loaded (:func:`hlmem.plugins.contract.missing_members`), never when a user first asks for it.
    """
