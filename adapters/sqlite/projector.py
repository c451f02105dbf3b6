"""Applies events to the SQLite projection tables through the domain's pure reducers.

For each event the projector loads the states it touches into a partial view, applies
:func:`hlmem.domain.reducers.apply`, and writes back the states that changed. Both adapters thus
share one definition of state; the tables are only its serialisation.
"""

from __future__ import annotations

from collections.abc import Iterable

import apsw

from hlmem.adapters.sqlite import conflict_rows, derived_rows, rows
from hlmem.domain.derived import DerivedState, is_derived_id, step_derived
from hlmem.domain.events import DomainEvent
from hlmem.domain.reducers import index_change, step, touched_streams
from hlmem.domain.state import ClaimState, ConflictState, ObservationState, SupersedeEdge
from hlmem.domain.time import to_micros


class Projector:
    """Projects events inside the caller's transaction, caching states touched in one batch."""

    def __init__(self, con: apsw.Connection) -> None:
        self._con = con
        self._claims: dict[str, ClaimState] = {}
        self._observations: dict[str, ObservationState] = {}
        self._conflicts: dict[str, ConflictState] = {}
        # Claims changed since the last flush, with the state the tables hold for each.
        self._stored: dict[str, ClaimState | None] = {}
        self._dirty_obs: set[str] = set()
        self._dirty_conflicts: set[str] = set()
        self._edges: list[tuple] = []
        # Derived items (dv_ streams, ADR 0046): their own reducer, their own tables.
        self._derived: dict[str, DerivedState] = {}
        self._dirty_derived: set[str] = set()

    def reset(self) -> None:
        """Forget cached states (call at the end of every transaction, committed or not)."""
        self._claims.clear()
        self._observations.clear()
        self._conflicts.clear()
        self._stored.clear()
        self._dirty_obs.clear()
        self._dirty_conflicts.clear()
        self._edges.clear()
        self._derived.clear()
        self._dirty_derived.clear()

    def seed(self, claims: Iterable[ClaimState]) -> None:
        """Remember claim states just read inside the current transaction (saves re-reading them)."""
        for claim in claims:
            self._claims.setdefault(claim.claim_id, claim)

    def _load(self, ids: frozenset[str]) -> None:
        claim_ids = [i for i in ids if i.startswith("cl_") and i not in self._claims]
        obs_ids = [i for i in ids if i.startswith("ev_") and i not in self._observations]
        conflict_ids = [i for i in ids if i.startswith("cf_") and i not in self._conflicts]
        if claim_ids:
            self._claims.update(rows.load_claims(self._con, claim_ids))
        if obs_ids:
            self._observations.update(rows.load_observations(self._con, obs_ids))
        if conflict_ids:
            self._conflicts.update(conflict_rows.load_conflicts(self._con, conflict_ids))

    def prefetch(self, events: Iterable[DomainEvent]) -> None:
        """Load, in one read per table, the stored states a batch's events will touch.

        What ``project`` would load event by event (one query each) is read here at once before
        the batch is projected, when the tables still hold every state as it was before the
        batch. Ids the tables lack (streams a preceding event of the batch creates) are looked
        up again by ``project`` as before, so the states projected are the same.
        """
        wanted: set[str] = set()
        created: set[str] = set()
        for event in events:
            if is_derived_id(event.stream_id):
                continue
            if event.version == 1:
                created.add(event.stream_id)
            wanted.update(touched_streams(event))
        self._load(frozenset(wanted - created))

    def project(self, event: DomainEvent, position: int) -> None:
        """Apply one event (already in the log at ``position``) to the cached states; ``flush`` writes."""
        if is_derived_id(event.stream_id):
            if event.stream_id not in self._derived and event.version != 1:
                self._derived.update(derived_rows.load(self._con, [event.stream_id]))
            step_derived(event, self._derived)
            self._dirty_derived.add(event.stream_id)
            return
        touched = touched_streams(event)
        if event.version != 1:
            self._load(touched)
        else:
            # A stream's first event creates it: nothing of it can be stored yet.
            self._load(touched - {event.stream_id})
        before = {i: (self._claims.get(i), self._observations.get(i), self._conflicts.get(i)) for i in touched}
        edges: list[SupersedeEdge] = []
        step(event, self._claims, self._observations, self._conflicts, edges)
        for i, (claim, obs, conflict) in before.items():
            if self._claims.get(i) is not claim and i not in self._stored:
                self._stored[i] = claim
            if self._observations.get(i) is not obs:
                self._dirty_obs.add(i)
            if self._conflicts.get(i) is not conflict:
                self._dirty_conflicts.add(i)
        self._edges += [(position, e.old, e.new, to_micros(e.recorded_at)) for e in edges]

    def flush(self) -> None:
        """Write every state changed since the last flush, one statement per table.

        A claim asserted and superseded within one batch is written once, in its final state.
        """
        rows.save_claims(self._con, [(self._claims[cid], old) for cid, old in self._stored.items()])
        for oid in self._dirty_obs:
            rows.save_observation(self._con, self._observations[oid])
        for cid in self._dirty_conflicts:
            conflict_rows.save_conflict(self._con, self._conflicts[cid])
        if self._dirty_derived:
            derived_rows.save(self._con, [self._derived[i] for i in sorted(self._dirty_derived) if i in self._derived])
            self._dirty_derived.clear()
        if self._edges:
            self._con.executemany(
                "INSERT INTO supersede_edges (position, old_id, new_id, recorded_at) VALUES (?,?,?,?)", self._edges)
        self._stored.clear()
        self._dirty_obs.clear()
        self._dirty_conflicts.clear()
        self._edges.clear()

    @staticmethod
    def creates_item(event: DomainEvent) -> str | None:
        """The id of the searchable item an event creates (or brings back), if any."""
        change = index_change(event)
        return change[1] if change and change[0] == "add" else None

    @staticmethod
    def drops_item(event: DomainEvent) -> str | None:
        """The id of the searchable item an event removes (forget, archive), if any."""
        change = index_change(event)
        return change[1] if change and change[0] == "drop" else None
