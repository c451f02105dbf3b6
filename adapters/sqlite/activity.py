"""Access telemetry and lifecycle candidate selection on SQLite (migration ``0009_lifecycle``, ADR 0015).

Accesses are buffered in memory and written in one upsert when 4,096 claims are pending, five
minutes have passed, maintenance selects candidates, or the store closes: a recall never waits
for the write lock or an fsync, and rarely makes other processes reload their caches. Candidate selection runs in SQL over partial indexes and mirrors the domain's
formulas (:mod:`hlmem.domain.lifecycle`) with a little slack, so it may return a few claims that
are not due yet (the caller decides with the pure functions) but never misses one.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from datetime import datetime

import apsw

from hlmem.adapters.activity import (
    add_access,
    archived_terms,
    check_kind,
    lifecycle_params,
    match_score,
    merge,
    rank_archived,
)
from hlmem.adapters.sqlite.db import Db
from hlmem.application.ports import Candidate
from hlmem.domain.errors import StorageError
from hlmem.domain.lifecycle import Activity, LifecyclePolicy
from hlmem.domain.time import from_micros, to_micros

#: Pending claims that trigger a write of the buffer.
FLUSH_CLAIMS = 4_096
#: Seconds (monotonic) after which pending accesses are written at the next access. Rare on
#: purpose: every commit makes other connections drop their vector and term-count caches
#: (``SQLiteStorage._check_external_writes``), and a cold vector cache costs ~1 s at 100k.
FLUSH_SECONDS = 300.0


_UPSERT = ("INSERT INTO claim_activity (claim_id, last_access, accesses) SELECT ?, ?, ? "
           "WHERE EXISTS (SELECT 1 FROM claims WHERE claim_id = ?) "
           "ON CONFLICT (claim_id) DO UPDATE SET last_access = max(last_access, excluded.last_access), "
           "accesses = accesses + excluded.accesses")

_EXPIRE = (
    "SELECT c.claim_id FROM claims c JOIN claim_versions v ON v.claim_id = c.claim_id "
    "WHERE c.status != 'forgotten' AND c.status = 'active' AND c.claim_id > :after AND v.recorded_to IS NULL AND ("
    " (v.valid_to IS NOT NULL AND v.valid_to <= :now)"
    " OR (v.valid_to IS NULL AND c.predicate IN (SELECT value FROM json_each(:plans)) AND v.valid_from <= :plan_by)"
    " OR (v.valid_to IS NULL AND c.scope = 'temporal'"
    "     AND v.valid_from + :ttl * (0.5 + min(max(c.importance, 0.0), 1.0)) <= :slack)"
    ") ORDER BY c.claim_id LIMIT :limit"
)

_ARCHIVE = (
    "SELECT c.claim_id FROM claims c LEFT JOIN claim_activity a ON a.claim_id = c.claim_id "
    "WHERE c.archived = 0 AND c.status != 'forgotten' AND c.claim_id > :after AND "
    "max(c.recorded_at, coalesce(a.last_access, c.recorded_at))"
    " + (CASE WHEN c.scope = 'temporal' THEN :h_temporal"
    "         WHEN c.predicate IN (SELECT value FROM json_each(:identity)) THEN :h_identity"
    "         ELSE :h_permanent END)"
    "   * max(0.0, log2(max(min(c.importance, 1.0), 1e-9) / :floor))"
    " + :grace <= :slack "
    "ORDER BY c.claim_id LIMIT :limit"
)



def _json(names: frozenset[str]) -> str:
    return json.dumps(sorted(names), ensure_ascii=False)


class SQLiteActivity:
    """The ``ActivityLog`` methods of the SQLite store (which delegates to this), on its :class:`Db`."""

    def __init__(self, db: Db) -> None:
        self._db = db
        self._pending: dict[str, tuple[datetime, int]] = {}
        self._since: float | None = None
        self._guard = threading.Lock()

    @property
    def _con(self) -> apsw.Connection:
        return self._db.con

    def record_access(self, claim_ids: Sequence[str], at: datetime) -> None:
        if not claim_ids:
            return
        with self._guard:
            add_access(self._pending, claim_ids, at)
            if self._since is None:
                self._since = time.monotonic()
            due = len(self._pending) >= FLUSH_CLAIMS or time.monotonic() - self._since >= FLUSH_SECONDS
        if due:
            self.flush(wait=False)

    def flush(self, *, wait: bool = True, busy_ms: int | None = None) -> int:
        """Write pending accesses; without ``wait`` a busy store keeps them for later. Returns rows written.

        :param busy_ms: with ``wait``, how long to wait for another writer's lock (default: the
            connection's whole busy timeout); closing waits only briefly.
        """
        with self._guard:
            taken, self._pending, self._since = self._pending, {}, None
        if not taken:
            return 0
        rows = [(cid, to_micros(at), n, cid) for cid, (at, n) in taken.items()]
        db = self._db
        try:
            # Never wait (or only briefly) for another writer's lock: a recall must stay fast.
            with db.lock, db.transaction(wait_ms=busy_ms if wait else 0):
                self._con.executemany(_UPSERT, rows)
        except (StorageError, apsw.Error):
            # Busy (or closed): keep them; the next access, maintenance or close() tries again.
            with self._guard:
                for cid, (at, n) in taken.items():
                    old = self._pending.get(cid)
                    self._pending[cid] = (at, n) if old is None else (max(old[0], at), old[1] + n)
                self._since = self._since or time.monotonic()
            return 0
        return len(rows)

    def activity(self, claim_ids: Sequence[str]) -> dict[str, Activity]:
        ids = list(dict.fromkeys(claim_ids))
        stored: dict[str, Activity] = {}
        with self._db.lock:
            for start in range(0, len(ids), 500):
                chunk = ids[start:start + 500]
                marks = ",".join("?" * len(chunk))
                for cid, last, n in self._con.execute(
                        f"SELECT claim_id, last_access, accesses FROM claim_activity WHERE claim_id IN ({marks})", chunk):
                    stored[cid] = Activity(from_micros(last), n)
        with self._guard:
            pending = {cid: self._pending[cid] for cid in ids if cid in self._pending}
        if pending:
            # Accesses of unknown ids are never written (the upsert checks): never report them.
            with self._db.lock:
                marks = ",".join("?" * len(pending))
                known = {r[0] for r in self._con.execute(
                    f"SELECT claim_id FROM claims WHERE claim_id IN ({marks})", list(pending))}
            pending = {cid: v for cid, v in pending.items() if cid in known}
        out = {}
        for cid in ids:
            found = merge(stored.get(cid), pending.get(cid))
            if found is not None:
                out[cid] = found
        return out

    def lifecycle_candidates(self, kind: str, *, now: datetime, policy: LifecyclePolicy, after: str = "",
                             limit: int = 500) -> list[str]:
        check_kind(kind)
        if self._pending:
            self.flush(wait=False)  # the SQL reads last accesses from the table
        sql = _EXPIRE if kind == "expire" else _ARCHIVE
        params = lifecycle_params(kind, now=now, policy=policy, after=after, limit=limit, names=_json)
        with self._db.lock:
            return [r[0] for r in self._con.execute(sql, params)]

    def archived_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]:
        terms = archived_terms(query)
        if not terms:
            return []
        with self._db.lock:
            rows = self._con.execute(
                "SELECT claim_id, subject, predicate, value, qualifiers FROM claims "
                "WHERE namespace = ? AND archived = 1 AND status != 'forgotten'", (namespace,)).fetchall()
        scored = [(match_score(terms, s, p, v, [tuple(q) for q in json.loads(quals)]), cid)
                  for cid, s, p, v, quals in rows]
        return rank_archived(scored, limit)
