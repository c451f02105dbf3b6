"""Access telemetry, lifecycle candidates and metadata of :class:`~hlmem.adapters.sqlite.store.SQLiteStorage`
(ActivityLog; :mod:`.activity`, ADR 0015): a mix-in."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import apsw

from hlmem.adapters.sqlite.activity import SQLiteActivity
from hlmem.adapters.sqlite.db import Db
from hlmem.adapters.sqlite.db import translated as _translated
from hlmem.application.ports import Candidate
from hlmem.domain.lifecycle import Activity, LifecyclePolicy


class SQLiteActivityLog:
    """ActivityLog: delegates telemetry to the store's :class:`SQLiteActivity`, metadata to its ``Db``."""

    # Set by SQLiteStorage.__init__.
    db: Db
    _con: apsw.Connection
    _activity: SQLiteActivity

    def record_access(self, claim_ids: Sequence[str], at: datetime) -> None:
        """Count an access of each claim (buffered; written within five minutes, or at close)."""
        self._activity.record_access(claim_ids, at)

    def flush_activity(self) -> int:
        """Write buffered accesses now (maintenance calls this before it reads activity)."""
        return self._activity.flush()

    def activity(self, claim_ids: Sequence[str]) -> dict[str, Activity]:
        with _translated("reading activity"):
            return self._activity.activity(claim_ids)

    def lifecycle_candidates(self, kind: str, *, now: datetime, policy: LifecyclePolicy, after: str = "",
                             limit: int = 500) -> list[str]:
        with _translated("selecting lifecycle candidates"):
            return self._activity.lifecycle_candidates(kind, now=now, policy=policy, after=after, limit=limit)

    def archived_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]:
        with _translated("searching archived claims"):
            return self._activity.archived_candidates(namespace, query, limit)

    def meta(self, key: str) -> str | None:
        """A value from the store's metadata table."""
        return self.db.meta(key)

    def set_meta(self, key: str, value: str) -> None:
        """Set a metadata value."""
        with self.transaction(), _translated("writing metadata"):
            self._con.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))
