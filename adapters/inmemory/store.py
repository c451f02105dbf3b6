"""``InMemoryStorage``: the Storage port in process memory (tests, embedding, ephemeral agents).

It folds the log with the same pure reducers as the SQLite adapter and passes the same contract
suite. Full text uses the same segmentation with a small BM25; vectors an exact numpy scan.

This module holds the state (the log, the projection's dicts, the index, the journal) and the
transaction; each storage role is a mix-in in its own module, over that state (ADR 0056):
:mod:`.store_log` (EventLog, StoreIdentity), :mod:`.store_claims` (ClaimReader, DerivedReader),
:mod:`.store_search` (SearchIndex), :mod:`.store_forget` (ForgetQueries, Erasure) and
:mod:`.store_activity` (ActivityLog).
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from hlmem.adapters.inmemory.activity import InMemoryActivity
from hlmem.adapters.inmemory.embedding_cache import InMemoryCache
from hlmem.adapters.inmemory.experience import InMemoryExperience
from hlmem.adapters.inmemory.index import IndexedItem
from hlmem.adapters.inmemory.journal import Journal
from hlmem.adapters.inmemory.store_activity import InMemoryActivityLog
from hlmem.adapters.inmemory.store_claims import InMemoryClaims
from hlmem.adapters.inmemory.store_forget import InMemoryForgetting
from hlmem.adapters.inmemory.store_log import InMemoryLog
from hlmem.adapters.inmemory.store_search import InMemorySearch
from hlmem.adapters.inmemory.packet_log import InMemoryPacketLog
from hlmem.adapters.inmemory.relations import InMemoryRelations
from hlmem.adapters.inmemory.tombstones import InMemoryTombstoneLedger
from hlmem.application.ports import StoredEvent
from hlmem.domain.derived import DerivedState
from hlmem.domain.state import ClaimState, ConflictState, MemoryView, ObservationState

__all__ = ["InMemoryCache", "InMemoryStorage"]


class InMemoryStorage(InMemoryLog, InMemoryClaims, InMemorySearch, InMemoryForgetting, InMemoryActivityLog):
    """Everything in dicts; a transaction snapshots state and restores it on error."""

    # Declared on the class so the plugin registry sees the whole Storage port before an instance exists.
    embedding_cache: InMemoryCache
    tombstones: InMemoryTombstoneLedger

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._log: list[StoredEvent] = []
        # The projection, kept in place (the reducers' working copies) and undone by the journal.
        self._claims: dict[str, ClaimState] = {}
        self._observations: dict[str, ObservationState] = {}
        self._conflicts: dict[str, ConflictState] = {}
        self._edges: list = []
        self._versions: dict[str, int] = {}
        self._snapshot: MemoryView | None = None  # the last view handed out, until the next change
        self._journal = Journal()
        self._items: dict[str, IndexedItem] = {}
        self._meta: dict[str, str] = {"store_id": f"st_{secrets.token_hex(16)}"}
        self._depth = 0
        self._event_ids: set[str] = set()
        self.jobs: dict = {}
        self.embedding_cache = InMemoryCache()
        self.tombstones = InMemoryTombstoneLedger()
        #: The experience channel's projection (ADR 0045), journaled with the rest.
        self.experience = InMemoryExperience(self._journal)
        #: Relations between people and things (ADR 0081), journaled with the rest.
        self.relations = InMemoryRelations(self._journal)
        self._activity = InMemoryActivity(lambda: self._claims)
        #: Context packets served and the history they stood in for (ADR 0061).
        self.packet_log = InMemoryPacketLog(lambda: self._observations)
        #: Derived items (dv_ streams, ADR 0046), projected by their own reducer.
        self._derived: dict[str, DerivedState] = {}

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._lock:
            # The projection, the index and the event ids are undone by the journal (O(1) per
            # change); the small rest (metadata, jobs) is copied.
            mark = self._journal.mark()
            snapshot = (len(self._log), dict(self._meta), dict(self.jobs))
            # Forgetting replaces these (copy on write) rather than mutating them: a reference
            # is a snapshot.
            erasable = (self._log, self.tombstones.state(), self.embedding_cache.state())
            outer = self._depth == 0
            self._depth += 1
            try:
                yield
            except BaseException:
                # Every level restores its own state, like a savepoint.
                self._journal.rollback(mark)
                self._snapshot = None
                n, self._meta, jobs = snapshot
                self.jobs.clear()
                self.jobs.update(jobs)
                self._log, tombstones, cache = erasable
                self.tombstones.restore(tombstones)
                self.embedding_cache.restore(cache)
                del self._log[n:]
                raise
            finally:
                self._depth -= 1
                if outer:
                    self._depth = 0
                    self._journal.clear()

    def close(self) -> None:
        """Nothing to release."""

    def check_integrity(self, *, full: bool = True) -> str:
        """Process memory has no pages to damage: always sound (says so)."""
        return "nothing on disk to check (an in-process store)"
