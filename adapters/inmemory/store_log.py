"""The event log of :class:`~hlmem.adapters.inmemory.store.InMemoryStorage` (EventLog, StoreIdentity): a mix-in.

``append`` checks versions, folds each event into the projection with the domain's own reducer
step (journaled, so a transaction undoes it) and indexes new items.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Iterator, Mapping, Sequence
from types import MappingProxyType

from hlmem.adapters.inmemory.experience import InMemoryExperience
from hlmem.adapters.inmemory.index import IndexedItem
from hlmem.adapters.inmemory.journal import Journal
from hlmem.adapters.inmemory.relations import InMemoryRelations
from hlmem.application.ports import IndexEntry, StoredEvent
from hlmem.domain.derived import DerivedState, is_derived_id, step_derived
from hlmem.domain.errors import ConcurrencyConflict
from hlmem.domain.events import DomainEvent
from hlmem.domain.reducers import index_change, replaces_item, step, touched_streams
from hlmem.domain.relation_events import is_relation_stream
from hlmem.domain.state import ClaimState, ConflictState, MemoryView, ObservationState


class InMemoryLog:
    """EventLog and StoreIdentity over the store's dicts; ``append`` also needs its
    ``transaction()`` and ``_index`` (:class:`~.store_search.InMemorySearch`)."""

    # Set by InMemoryStorage.__init__.
    _log: list[StoredEvent]
    _claims: dict[str, ClaimState]
    _observations: dict[str, ObservationState]
    _conflicts: dict[str, ConflictState]
    _derived: dict[str, DerivedState]
    _edges: list
    _versions: dict[str, int]
    _snapshot: MemoryView | None
    _journal: Journal
    _items: dict[str, IndexedItem]
    _event_ids: set[str]
    _meta: dict[str, str]
    experience: InMemoryExperience
    relations: InMemoryRelations

    def append(self, events: Sequence[DomainEvent], index: Mapping[str, IndexEntry] | None = None) -> int:
        index = index or {}
        journal = self._journal
        with self.transaction():
            for event in events:
                previous = self._versions.get(event.stream_id, 0)
                if event.version != previous + 1:
                    raise ConcurrencyConflict(
                        f"stream {event.stream_id} is at version {previous}; event {event.event_id} "
                        f"claims version {event.version}")
                if event.event_id in self._event_ids:
                    raise ConcurrencyConflict(f"event {event.event_id} is already in the log")
                journal.add(self._event_ids, event.event_id)
                self._log.append(StoredEvent(len(self._log) + 1, event))
                self._project(event)
                change = index_change(event)
                if change and change[0] == "drop":
                    journal.pop(self._items, event.stream_id)
                elif change:
                    entry = index.get(event.stream_id)
                    if replaces_item(event):  # a derived item's rebuild replaces its entry (ADR 0084)
                        journal.pop(self._items, event.stream_id)
                    if entry is not None:
                        self._index(event, entry)
            return len(self._log)

    def _project(self, event: DomainEvent) -> None:
        """One step of the fold in place (the reducers' own step), journaled entry by entry."""
        journal = self._journal
        if is_derived_id(event.stream_id):
            journal.remember(self._derived, event.stream_id)
            step_derived(event, self._derived)
            journal.set(self._versions, event.stream_id, event.version)
            return
        if is_relation_stream(event.stream_id):
            self.relations.project(event)
            journal.set(self._versions, event.stream_id, event.version)
            return
        for stream_id in touched_streams(event):
            for states in (self._claims, self._observations, self._conflicts):
                journal.remember(states, stream_id)
        journal.remember_length(self._edges)
        step(event, self._claims, self._observations, self._conflicts, self._edges)
        self.experience.project(event)
        journal.set(self._versions, event.stream_id, event.version)
        self._snapshot = None

    def read(self, after: int = 0, limit: int | None = None) -> Iterator[StoredEvent]:
        stop = None if limit is None else after + limit
        yield from self._log[after:stop]

    def read_stored(self, after: int = 0, limit: int | None = None) -> Iterator[tuple[StoredEvent, str | None]]:
        # Nothing is serialised here, so there is never a payload text to copy.
        for stored in self.read(after, limit):
            yield stored, None

    def append_copies(self, events: Sequence[DomainEvent], index: Mapping[str, IndexEntry] | None = None,
                      payloads: Mapping[str, str | None] | None = None) -> int:
        return self.append(events, index)

    def read_types(self, types: Collection[type[DomainEvent]], *, after: int = 0, before: int | None = None,
                   limit: int | None = None, newest_first: bool = False) -> Iterator[StoredEvent]:
        wanted = tuple(types)
        stop = len(self._log) if before is None else min(before - 1, len(self._log))
        window = self._log[max(after, 0):max(stop, 0)]
        found = (s for s in (reversed(window) if newest_first else window) if type(s.event) in wanted)
        yield from itertools.islice(found, None if limit is None else max(limit, 0))

    def store_id(self) -> str:
        """A random identity made with the store (an in-process store has no backups to match)."""
        return self._meta["store_id"]

    def last_position(self) -> int:
        return len(self._log)

    def stream_version(self, stream_id: str) -> int:
        return self._versions.get(stream_id, 0)

    def stream_versions(self) -> dict[str, int]:
        return dict(self._versions)

    def identical_projections(self, other: object) -> frozenset[str] | None:
        # Nothing cheaper than the states: replay compares them through the fingerprints.
        return None

    def projection_fingerprints(self, stream_ids: Sequence[str]) -> dict[str, object]:
        # The states themselves: nothing cheaper to compare here.
        out: dict[str, object] = {}
        for sid in stream_ids:
            state = (self._claims.get(sid) or self._observations.get(sid) or self._conflicts.get(sid)
                     or self._derived.get(sid) or self.relations.state_of(sid))
            if state is not None:
                out[sid] = state
        return out

    @property
    def view(self) -> MemoryView:
        """The current projection (for audits and tests): a frozen copy, kept until the next change."""
        if self._snapshot is None:
            self._snapshot = MemoryView(
                MappingProxyType(dict(self._claims)), MappingProxyType(dict(self._observations)), tuple(self._edges),
                MappingProxyType(dict(self._versions)), MappingProxyType(dict(self._conflicts)))
        return self._snapshot
