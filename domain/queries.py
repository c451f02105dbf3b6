"""Named bitemporal queries over claim states: current value, value valid at T as known at K, history."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from hlmem.domain.state import ClaimState, ClaimStatus, ClaimVersion, MemoryView
from hlmem.domain.time import contains


def row_at(claim: ClaimState, valid_at: datetime, known_at: datetime) -> ClaimVersion | None:
    """The row of ``claim`` that was believed at ``known_at`` and says it held at ``valid_at``."""
    if claim.status is ClaimStatus.FORGOTTEN:
        return None
    for row in claim.versions:
        if contains(row.recorded_from, row.recorded_to, known_at) and contains(row.valid_from, row.valid_to, valid_at):
            return row
    return None


def holds(claim: ClaimState, valid_at: datetime, known_at: datetime) -> bool:
    """Whether ``claim`` held at ``valid_at`` as known at ``known_at``."""
    return row_at(claim, valid_at, known_at) is not None


def values_at(claims: Iterable[ClaimState], valid_at: datetime, known_at: datetime) -> list[ClaimState]:
    """The claims of one slot that held at ``valid_at`` as known at ``known_at`` (oldest first).

    For a single-valued slot this is at most one claim (an invariant the tests audit).
    """
    found = [c for c in claims if holds(c, valid_at, known_at)]
    return sorted(found, key=lambda c: (c.versions[0].valid_from, c.recorded_at, c.claim_id))


def current(claims: Iterable[ClaimState], now: datetime) -> list[ClaimState]:
    """What is true now, as known now."""
    return values_at(claims, now, now)


def history(claims: Iterable[ClaimState]) -> list[ClaimState]:
    """Every claim of a slot that is not forgotten, oldest first on the valid-time axis."""
    kept = [c for c in claims if c.status is not ClaimStatus.FORGOTTEN]
    return sorted(kept, key=lambda c: (c.versions[0].valid_from, c.recorded_at, c.claim_id))


def chain(view: MemoryView, claim_id: str) -> list[str]:
    """The supersede chain through ``claim_id``, oldest first (following both directions)."""
    claims = view.claims
    seen: list[str] = [claim_id]
    cursor = claims.get(claim_id)
    while cursor is not None and cursor.supersedes:
        older = [cid for cid in cursor.supersedes if cid not in seen and cid in claims]
        if not older:
            break
        prev = max(older, key=lambda cid: claims[cid].versions[0].valid_from)
        seen.insert(0, prev)
        cursor = claims[prev]
    cursor = claims.get(claim_id)
    while cursor is not None and cursor.superseded_by and cursor.superseded_by not in seen:
        seen.append(cursor.superseded_by)
        cursor = claims.get(cursor.superseded_by)
    return seen


def slot_claims(view: MemoryView, key: str) -> list[ClaimState]:
    """All claims of the slot ``key`` in a view."""
    return [c for c in view.claims.values() if c.slot_key == key]


def overlapping_current(claims: Sequence[ClaimState], valid_at: datetime, known_at: datetime) -> int:
    """How many claims of a slot hold at one (valid, known) instant (audit helper)."""
    return len(values_at(claims, valid_at, known_at))
