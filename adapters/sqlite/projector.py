"""Applies events to the SQLite projection tables through the domain's pure reducers.

For each event the projector loads the states it touches into a partial view, applies
:func:`hlmem.domain.reducers.apply`, and writes back the states that changed. Both adapters thus
share one definition of state; the tables are only its serialisation.
"""

from __future__ import annotations

from types import MappingProxyType

import apsw

from hlmem.adapters.sqlite import conflict_rows, rows
from hlmem.domain.events import ClaimAsserted, ClaimSuperseded, DomainEvent, ObservationRecorded
from hlmem.domain.reducers import apply, touched_streams
from hlmem.domain.state import ClaimState, ConflictState, MemoryView, ObservationState
from hlmem.domain.time import to_micros


class Projector:
    """Projects events inside the caller's transaction, caching states touched in one batch."""

    def __init__(self, con: apsw.Connection) -> None:
        self._con = con
        self._claims: dict[str, ClaimState] = {}
        self._observations: dict[str, ObservationState] = {}
        self._conflicts: dict[str, ConflictState] = {}

    def reset(self) -> None:
        """Forget cached states (call at the end of every transaction, committed or not)."""
        self._claims.clear()
        self._observations.clear()
        self._conflicts.clear()

    def _load(self, ids: frozenset[str]) -> MemoryView:
        claim_ids = [i for i in ids if i.startswith("cl_") and i not in self._claims]
        obs_ids = [i for i in ids if i.startswith("ev_") and i not in self._observations]
        if claim_ids:
            self._claims.update(rows.load_claims(self._con, claim_ids))
        if obs_ids:
            self._observations.update(rows.load_observations(self._con, obs_ids))
        conflict_ids = [i for i in ids if i.startswith("cf_") and i not in self._conflicts]
        if conflict_ids:
            self._conflicts.update(conflict_rows.load_conflicts(self._con, conflict_ids))
        claims = {i: self._claims[i] for i in ids if i in self._claims}
        observations = {i: self._observations[i] for i in ids if i in self._observations}
        conflicts = {i: self._conflicts[i] for i in ids if i in self._conflicts}
        return MemoryView(MappingProxyType(claims), MappingProxyType(observations),
                          conflicts=MappingProxyType(conflicts))

    def project(self, event: DomainEvent, position: int) -> None:
        """Apply one event (already in the log at ``position``) to the tables."""
        touched = touched_streams(event)
        if event.version == 1:
            # A stream's first event creates it: nothing of it can be stored yet.
            touched = touched - {event.stream_id}
        before = self._load(touched)
        after = apply(before, event)
        for cid, claim in after.claims.items():
            old = before.claims.get(cid)
            if claim is not old:
                rows.save_claim(self._con, claim, old)
                self._claims[cid] = claim
        for cid, conflict in after.conflicts.items():
            if conflict is not before.conflicts.get(cid):
                conflict_rows.save_conflict(self._con, conflict)
                self._conflicts[cid] = conflict
        for oid, obs in after.observations.items():
            if obs is not before.observations.get(oid):
                rows.save_observation(self._con, obs)
                self._observations[oid] = obs
        if isinstance(event, ClaimSuperseded) or (isinstance(event, ClaimAsserted) and event.superseded_by):
            self._con.execute(
                "INSERT INTO supersede_edges (position, old_id, new_id, recorded_at) VALUES (?,?,?,?)",
                (position, event.stream_id, event.superseded_by, to_micros(event.recorded_at)),
            )

    @staticmethod
    def creates_item(event: DomainEvent) -> str | None:
        """The id of the searchable item an event creates, if any."""
        if isinstance(event, (ObservationRecorded, ClaimAsserted)):
            return event.stream_id
        return None
