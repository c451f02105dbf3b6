"""``InMemoryActivity``: access telemetry in process memory, for ``InMemoryStorage``.

The lifecycle rules are the domain's (:mod:`hlmem.domain.lifecycle`); the helpers both adapters
share are in :mod:`hlmem.adapters.activity`. ADR 0015 explains why accesses are not events.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime

from hlmem.adapters.activity import add_access, archived_terms, check_kind, match_score, merge, rank_archived
from hlmem.application.ports import Candidate
from hlmem.domain.lifecycle import Activity, LifecyclePolicy, activity_of, archive_at, expiry_of
from hlmem.domain.state import ClaimState, ClaimStatus


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
