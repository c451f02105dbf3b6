"""What both storage adapters' access telemetry shares: merging pending accesses and the term match for archived claims.

The lifecycle rules themselves are the domain's (:mod:`hlmem.domain.lifecycle`); this module only
merges accesses and scores archived claims (``InMemoryActivity`` in :mod:`hlmem.adapters.inmemory.activity`,
``SQLiteActivity`` in :mod:`hlmem.adapters.sqlite.activity`). ADR 0015 explains why accesses are not events.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from hlmem.adapters.text.segment import query_terms
from hlmem.application.ports import Candidate
from hlmem.domain.errors import ValidationError
from hlmem.domain.lifecycle import Activity

KINDS = ("expire", "archive")


def check_kind(kind: str) -> None:
    """Refuse a candidate kind other than ``expire`` or ``archive``."""
    if kind not in KINDS:
        raise ValidationError(f"lifecycle candidate kind must be expire or archive, not {kind!r}", field="kind")


def merge(stored: Activity | None, pending: tuple[datetime, int] | None) -> Activity | None:
    """Stored activity plus accesses not yet written (latest time, summed counts)."""
    if pending is None:
        return stored
    at, n = pending
    if stored is None:
        return Activity(at, n)
    last = at if stored.last_access is None or at > stored.last_access else stored.last_access
    return Activity(last, stored.accesses + n, stored.positive, stored.negative)


def add_access(pending: dict[str, tuple[datetime, int]], claim_ids: Iterable[str], at: datetime) -> None:
    """Fold one access of each distinct id at ``at`` into ``pending``."""
    for cid in dict.fromkeys(claim_ids):
        old = pending.get(cid)
        pending[cid] = (at, 1) if old is None else (max(old[0], at), old[1] + 1)


def archived_terms(query: str) -> list[str]:
    """The query's search terms, case-folded, for matching archived claims by substring."""
    return [t.casefold() for t in query_terms(query) if t.strip()]


def match_score(terms: Sequence[str], subject: str, predicate: str, value: str,
                qualifiers: Iterable[tuple[str, str]]) -> float:
    """Share of ``terms`` found in the claim's own words (subject, predicate, value, qualifier values)."""
    if not terms:
        return 0.0
    text = " ".join((subject, predicate.replace("_", " "), value, *(v for _, v in qualifiers))).casefold()
    return sum(1 for t in terms if t in text) / len(terms)


def rank_archived(scored: list[tuple[float, str]], limit: int) -> list[Candidate]:
    """Candidates from ``(score, claim_id)`` pairs: best first, ties by id."""
    scored = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))[:max(limit, 0)]
    return [Candidate(cid, "claim", rank, score) for rank, (score, cid) in enumerate(scored, start=1)]
