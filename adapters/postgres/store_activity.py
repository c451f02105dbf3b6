"""Access telemetry, lifecycle and metadata of :class:`~hlmem.adapters.postgres.store.PostgresStorage`
(ActivityLog): a mix-in over :class:`.governance.PostgresActivity` and the ``meta`` table."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from hlmem.adapters.postgres.db import PgDb, translated
from hlmem.adapters.postgres.governance import PostgresActivity
from hlmem.application.ports import Candidate
from hlmem.domain.lifecycle import Activity, LifecyclePolicy


class PostgresActivityLog:
    """Buffered access records and the lifecycle's candidates (``_activity``), metadata (``db``)."""

    # Set by PostgresStorage.__init__.
    db: PgDb
    _activity: PostgresActivity

    def record_access(self, claim_ids: Sequence[str], at: datetime) -> None:
        self._activity.record_access(claim_ids, at)

    def flush_activity(self) -> int:
        return self._activity.flush()

    def activity(self, claim_ids: Sequence[str]) -> dict[str, Activity]:
        with translated("reading activity"):
            return self._activity.activity(claim_ids)

    def lifecycle_candidates(self, kind: str, *, now: datetime, policy: LifecyclePolicy, after: str = "",
                             limit: int = 500) -> list[str]:
        with translated("selecting lifecycle candidates"):
            return self._activity.lifecycle_candidates(kind, now=now, policy=policy, after=after, limit=limit)

    def archived_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]:
        with translated("searching archived claims"):
            return self._activity.archived_candidates(namespace, query, limit)

    def meta(self, key: str) -> str | None:
        return self.db.meta(key)

    def set_meta(self, key: str, value: str) -> None:
        with translated("writing metadata"):
            self.db.set_meta(key, value)
