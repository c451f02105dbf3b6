"""Access telemetry in process memory (``InMemoryActivity``) and the term match both adapters use for archived claims.

The lifecycle rules themselves are the domain's (:mod:`hlmem.domain.lifecycle`); this module only
stores accesses and selects candidates. ADR 0015 explains why accesses are not events.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime

from hlmem.adapters.text.segment import query_terms
from hlmem.application.ports import Candidate
from hlmem.domain.errors import ValidationError
from hlmem.domain.lifecycle import Activity, LifecyclePolicy, activity_of, archive_at, expiry_of
from hlmem.domain.state import ClaimState, ClaimStatus

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


class InMemoryActivity:
    """Accesses in a dict; candidates by the pure lifecycle functions over the store's claims."""

    def __init__(self, claims: Callable[[], Mapping[str, ClaimState]]) -> None:
        self._claims = claims
        self._accesses: dict[str, tuple[datetime, int]] = {}

    def record_access(self, claim_ids: Sequence[str], at: datetime) -> None:
        known = self._claims()
        add_access(self._accesses, (c for c in claim_ids if c in known), at)

    def activity(self, claim_ids: Sequence[str]) -> dict[str, Activity]:
        out = {}
        for cid in dict.fromkeys(claim_ids):
            found = merge(None, self._accesses.get(cid))
            if found is not None:
                out[cid] = found
        return out

    def lifecycle_candidates(self, kind: str, *, now: datetime, policy: LifecyclePolicy, after: str = "",
                             limit: int = 500) -> list[str]:
        check_kind(kind)
        claims = self._claims()
        out: list[str] = []
        for cid in sorted(c for c in claims if c > after):
            claim = claims[cid]
            if kind == "expire":
                found = expiry_of(claim, policy)
                due = found is not None and found.at <= now
            else:
                at = archive_at(claim, activity_of(claim, self.activity([cid]).get(cid)), policy)
                due = at is not None and at <= now
            if due:
                out.append(cid)
                if len(out) >= limit:
                    break
        return out

    def archived_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]:
        terms = archived_terms(query)
        scored = [(match_score(terms, c.subject, c.predicate, c.value, c.qualifiers), c.claim_id)
                  for c in self._claims().values()
                  if c.archived and c.namespace == namespace and c.status is not ClaimStatus.FORGOTTEN]
        return rank_archived(scored, limit)
