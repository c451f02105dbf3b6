"""What both storage adapters' access telemetry shares: merging pending accesses and the term match for archived claims.

The lifecycle rules themselves are the domain's (:mod:`hlmem.domain.lifecycle`); this module only
merges accesses, gives the SQL stores their lifecycle query's parameters and scores archived claims (``InMemoryActivity`` in :mod:`hlmem.adapters.inmemory.activity`,
``SQLiteActivity`` in :mod:`hlmem.adapters.sqlite.activity`). ADR 0015 explains why accesses are not events.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from hlmem.adapters.text.segment import query_terms
from hlmem.application.ports import Candidate
from hlmem.domain.errors import ValidationError
from hlmem.domain.lifecycle import Activity, LifecyclePolicy
from hlmem.domain.time import to_micros

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


#: Float slack added to ``now`` in the SQL stores' lifecycle formulas (microseconds): a superset, never a miss.
SLACK_US = 1_000_000


def micros(delta: timedelta | None) -> int | None:
    """A duration in whole microseconds (None stays None)."""
    return None if delta is None else delta // timedelta(microseconds=1)


def lifecycle_params(kind: str, *, now: datetime, policy: LifecyclePolicy, after: str, limit: int,
                     names: Callable[[frozenset[str]], Any]) -> dict[str, Any]:
    """The named parameters of the SQL stores' ``expire`` or ``archive`` candidate query (``names``
    encodes a predicate set the way that store's SQL reads it)."""
    t = to_micros(now)
    if kind == "expire":
        params = {"plans": names(policy.plan_predicates), "plan_by": t - micros(policy.plan_grace),
                  "ttl": micros(policy.temporal_ttl)}
    else:
        params = {"identity": names(policy.identity_predicates), "h_temporal": micros(policy.half_life_temporal),
                  "h_permanent": micros(policy.half_life_permanent), "h_identity": micros(policy.half_life_identity),
                  "floor": policy.activation_floor, "grace": micros(policy.archive_grace)}
    params.update(after=after, now=t, slack=t + SLACK_US, limit=max(int(limit), 0))
    return params
