"""``InMemoryRelations``: the relation projection of ``InMemoryStorage`` (ADR 0081).

The store calls :meth:`project` for every appended event; changes go through the store's
journal, so a failed transaction undoes them with everything else. Beside the states it keeps
which relations each evidence item (claim or event id) supports.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from hlmem.adapters.inmemory.journal import Journal
from hlmem.domain.events import DomainEvent
from hlmem.domain.relation_events import is_relation_stream
from hlmem.domain.relations import FORGOTTEN, RelationState, reduce_relation


class InMemoryRelations:
    """Relations in a dict, folded by the pure reducer."""

    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self._states: dict[str, RelationState] = {}
        #: evidence item id -> {relation id: True}
        self._citing: dict[str, dict[str, bool]] = {}

    def project(self, event: DomainEvent) -> None:
        """Apply one appended event (others are ignored)."""
        sid = event.stream_id
        if not is_relation_stream(sid):
            return
        before = self._states.get(sid)
        state = reduce_relation(before, event)
        if state is None:
            return
        self._journal.set(self._states, sid, state)
        old, new = set(before.evidence if before else ()), set(state.evidence)
        for item in old - new:
            self._journal.pop(self._citing.get(item, {}), sid)
        for item in sorted(new - old):
            if item not in self._citing:
                self._journal.set(self._citing, item, {})
            self._journal.set(self._citing[item], sid, True)

    def state_of(self, stream_id: str) -> RelationState | None:
        return self._states.get(stream_id)

    # -- RelationReader ---------------------------------------------------------------------------

    def get_relations(self, ids: Sequence[str]) -> dict[str, RelationState]:
        return {i: self._states[i] for i in dict.fromkeys(ids) if i in self._states}

    def relations(self, namespace: str, *, status: str | None = None, entities: Sequence[str] = (),
                  after: str | None = None, limit: int = 100) -> list[RelationState]:
        ends = set(entities)
        found = sorted((r for r in self._states.values() if r.namespace == namespace
                        and (r.status == status if status is not None else r.status != FORGOTTEN)
                        and (not ends or r.source_id in ends or r.target_id in ends)
                        and (after is None or r.relation_id > after)), key=lambda r: r.relation_id)
        return found[:max(limit, 0)]

    def relations_citing(self, item_ids: Sequence[str]) -> dict[str, RelationState]:
        found = {rid for i in dict.fromkeys(item_ids) for rid in self._citing.get(i, {})}
        return {rid: self._states[rid] for rid in sorted(found)}

    def relation_counts(self, namespace: str) -> dict[str, int]:
        return dict(sorted(Counter(r.status for r in self._states.values() if r.namespace == namespace).items()))
