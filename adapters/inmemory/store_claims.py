"""The projection queries of :class:`~hlmem.adapters.inmemory.store.InMemoryStorage` (ClaimReader,
DerivedReader): a mix-in scanning the projection's dicts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from hlmem.adapters.inmemory.index import IndexedItem
from hlmem.application.ports import StoredEvent
from hlmem.domain.derived import DerivedState
from hlmem.domain.slots import normalize_predicate
from hlmem.domain.state import ClaimState, ConflictState, ObservationState, subject_key


class InMemoryClaims:
    """Claims, observations, conflicts and derived items, read from the store's projection."""

    # Set by InMemoryStorage.__init__.
    _log: list[StoredEvent]
    _claims: dict[str, ClaimState]
    _observations: dict[str, ObservationState]
    _conflicts: dict[str, ConflictState]
    _derived: dict[str, DerivedState]
    _items: dict[str, IndexedItem]

    def get_claims(self, ids: Sequence[str]) -> dict[str, ClaimState]:
        claims = self._claims
        return {i: claims[i] for i in dict.fromkeys(ids) if i in claims}

    def get_observations(self, ids: Sequence[str]) -> dict[str, ObservationState]:
        obs = self._observations
        return {i: obs[i] for i in dict.fromkeys(ids) if i in obs}

    def slot_claims(self, slot_key: str) -> list[ClaimState]:
        return [c for c in self._claims.values() if c.slot_key == slot_key]

    def slots_claims(self, slot_keys: Sequence[str]) -> dict[str, list[ClaimState]]:
        wanted = set(slot_keys)
        out: dict[str, list[ClaimState]] = {k: [] for k in slot_keys}
        for claim in self._claims.values():
            if claim.slot_key in wanted:
                out[claim.slot_key].append(claim)
        return out

    def subject_claims(self, namespace: str, subject: str, predicate: str | None = None) -> list[ClaimState]:
        key = subject_key(subject)
        pred = normalize_predicate(predicate) if predicate is not None else None
        return [c for c in self._claims.values()
                if c.namespace == namespace and subject_key(c.subject) == key
                and (pred is None or c.predicate == pred)]

    def stored_subjects(self, namespace: str, subjects: Sequence[str]) -> set[str]:
        present = {subject_key(c.subject) for c in self._claims.values() if c.namespace == namespace}
        return {s for s in subjects if subject_key(s) in present}

    def claim_ids(self, namespace: str, *, after: str | None = None, limit: int = 200) -> list[str]:
        ids = sorted(c.claim_id for c in self._claims.values()
                     if c.namespace == namespace and (after is None or c.claim_id > after))
        return ids[:limit]

    def claims_citing(self, event_id: str) -> list[str]:
        return sorted(c.claim_id for c in self._claims.values() if event_id in c.evidence)

    def claims_citing_events(self, event_ids: Sequence[str]) -> dict[str, list[str]]:
        wanted = set(event_ids)
        out: dict[str, list[str]] = {}
        if not wanted:
            return out
        for claim in self._claims.values():
            for event_id in wanted.intersection(claim.evidence):
                out.setdefault(event_id, []).append(claim.claim_id)
        return {e: sorted(ids) for e, ids in out.items()}

    def get_conflicts(self, ids: Sequence[str]) -> dict[str, ConflictState]:
        conflicts = self._conflicts
        return {i: conflicts[i] for i in dict.fromkeys(ids) if i in conflicts}

    def conflicts(self, namespace: str, status: str | None = "open") -> list[ConflictState]:
        found = [c for c in self._conflicts.values()
                 if c.namespace == namespace and (status is None or c.status == status)]
        return sorted(found, key=lambda c: (c.opened_at, c.conflict_id))

    def counts(self) -> dict[str, int]:
        out = {"events": len(self._log), "observations": len(self._observations)}
        by_status = Counter(c.status.value for c in self._claims.values())
        out.update({f"claims_{k}": v for k, v in by_status.items()})
        out["claims"] = len(self._claims)
        out["vectors"] = sum(1 for i in self._items.values() if i.vector is not None)
        out.update({f"conflicts_{k}": v for k, v in Counter(c.status for c in self._conflicts.values()).items()})
        derived = Counter(d.status for d in self._derived.values())
        out.update({f"derived_{k}": v for k, v in derived.items()})
        if derived:
            out["derived"] = sum(derived.values())
        return out

    # -- derived items (DerivedReader, ADR 0046) -------------------------------------------------------

    def get_derived(self, ids: Sequence[str]) -> dict[str, DerivedState]:
        derived = self._derived
        return {i: derived[i] for i in dict.fromkeys(ids) if i in derived}

    def derived_citing(self, claim_ids: Sequence[str]) -> dict[str, DerivedState]:
        wanted = set(claim_ids)
        return {d.derived_id: d for d in sorted(self._derived.values(), key=lambda d: d.derived_id)
                if wanted.intersection(d.source_ids)}

    def derived_items(self, namespace: str, *, subject: str | None = None,
                      kind: str | None = None) -> list[DerivedState]:
        key = None if subject is None else subject_key(subject)
        return [d for d in sorted(self._derived.values(), key=lambda d: d.derived_id)
                if d.namespace == namespace and (kind is None or d.kind == kind)
                and (key is None or (d.subject and subject_key(d.subject) == key))]
