"""The claims role: projection queries over claims, observations and conflicts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from hlmem.domain.state import ClaimState, ConflictState, ObservationState


@runtime_checkable
class ClaimReader(Protocol):
    """Projection queries: states of claims and observations as the reducers define them.

    Contract: ``get_observations`` returns a forgotten event's tombstone state
    (``forgotten=True``), never drops it, and leaves out only ids that name no event: writes
    tell forgotten evidence from unknown evidence by it (``domain/evidence.py``).
    """

    def get_claims(self, ids: Sequence[str]) -> dict[str, ClaimState]: ...

    def get_observations(self, ids: Sequence[str]) -> dict[str, ObservationState]: ...

    def slot_claims(self, slot_key: str) -> list[ClaimState]: ...

    def slots_claims(self, slot_keys: Sequence[str]) -> dict[str, list[ClaimState]]: ...

    def subject_claims(self, namespace: str, subject: str, predicate: str | None = None) -> list[ClaimState]: ...

    def stored_subjects(self, namespace: str, subjects: Sequence[str]) -> set[str]:
        """Those of ``subjects`` that some claim of ``namespace`` is about (matched as ``subject_claims``
        matches), in one read: ``s in stored_subjects(ns, [s])`` iff ``subject_claims(ns, s)`` is not empty."""
        ...

    def claim_ids(self, namespace: str, *, after: str | None = None, limit: int = 200) -> list[str]:
        """Up to ``limit`` ids of ``namespace``'s claims in id order, each greater than ``after``;
        every status (forgotten ones too: a caller that lists filters them), archived or not."""
        ...

    def claims_citing(self, event_id: str) -> list[str]: ...

    def claims_citing_events(self, event_ids: Sequence[str]) -> dict[str, list[str]]:
        """Each of ``event_ids`` that some claim cites, mapped to the ids of the claims citing it
        (sorted), in one read: ``claims_citing_events(ids)[e] == claims_citing(e)`` for every ``e``
        with a non-empty answer; events no claim cites (and unknown ids) are left out."""
        ...

    def counts(self) -> dict[str, int]: ...

    def get_conflicts(self, ids: Sequence[str]) -> dict[str, ConflictState]: ...

    def conflicts(self, namespace: str, status: str | None = "open") -> list[ConflictState]: ...
