"""Access telemetry, lifecycle candidates and metadata of :class:`~hlmem.adapters.inmemory.store.InMemoryStorage`
(ActivityLog; :mod:`.activity`, ADR 0015): a mix-in."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from hlmem.adapters.inmemory.activity import InMemoryActivity
from hlmem.application.ports import Candidate
from hlmem.domain.lifecycle import Activity, LifecyclePolicy


class InMemoryActivityLog:
    """ActivityLog: delegates telemetry to the store's :class:`InMemoryActivity`; metadata is a dict."""

    # Set by InMemoryStorage.__init__.
    _activity: InMemoryActivity
    _meta: dict[str, str]

    def record_access(self, claim_ids: Sequence[str], at: datetime) -> None:
        self._activity.record_access(claim_ids, at)

    def activity(self, claim_ids: Sequence[str]) -> dict[str, Activity]:
        return self._activity.activity(claim_ids)

    def lifecycle_candidates(self, kind: str, *, now: datetime, policy: LifecyclePolicy, after: str = "",
                             limit: int = 500) -> list[str]:
        return self._activity.lifecycle_candidates(kind, now=now, policy=policy, after=after, limit=limit)

    def archived_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]:
        return self._activity.archived_candidates(namespace, query, limit)

    def meta(self, key: str) -> str | None:
        return self._meta.get(key)

    def set_meta(self, key: str, value: str) -> None:
        self._meta[key] = value
