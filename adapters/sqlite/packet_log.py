"""The packet log on SQLite (migration ``0020_packet_activity``, ADR 0061): one row of numbers per UTC day.

Packets are buffered in memory like access telemetry (:mod:`.activity`) and written in one upsert
when 1,000 are pending, five minutes have passed, or the store closes: a recall never waits for
the write lock. Writing is when the history each packet stood in for is estimated: the sessions
of its evidence, each session's transcript estimated once per write, and again at a later write
only when the session's number of events changed (a memo per store object).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from datetime import date, datetime

import apsw

from hlmem.adapters.packet_log import (FLUSH_PACKETS, FLUSH_SECONDS, Pending, Session, day_of, merge_days,
                                       session_tokens, totals)
from hlmem.adapters.sqlite.db import Db, translated
from hlmem.application.ports import PacketDay
from hlmem.domain.errors import StorageError

_UPSERT = ("INSERT INTO packet_activity (day, packets, tokens, history_tokens) VALUES (?, ?, ?, ?) "
           "ON CONFLICT (day) DO UPDATE SET packets = packets + excluded.packets, "
           "tokens = tokens + excluded.tokens, history_tokens = history_tokens + excluded.history_tokens")
_CHUNK = 500


def read_days(con: apsw.Connection, first: date, last: date) -> list[PacketDay]:
    """The stored days from ``first`` to ``last`` (both included), oldest first."""
    rows = con.execute("SELECT day, packets, tokens, history_tokens FROM packet_activity WHERE day >= ? AND day <= ? "
                       "ORDER BY day", (first.isoformat(), last.isoformat()))
    return [PacketDay(date.fromisoformat(d), p, t, h) for d, p, t, h in rows]


class SQLitePacketLog:
    """``PacketLog`` on the store's :class:`Db` (the store flushes it when it closes)."""

    def __init__(self, db: Db) -> None:
        self._db = db
        self._pending = Pending()
        self._since: float | None = None
        self._guard = threading.Lock()
        #: (namespace, session) -> (events, estimated tokens) as last read.
        self._memo: dict[Session, tuple[int, int]] = {}

    def record_packet(self, at: datetime, tokens: int, evidence: Sequence[str]) -> None:
        with self._guard:
            self._pending.add(at, tokens, evidence)
            if self._since is None:
                self._since = time.monotonic()
            due = len(self._pending) >= FLUSH_PACKETS or time.monotonic() - self._since >= FLUSH_SECONDS
        if due:
            self.flush(wait=False)

    def flush(self, *, wait: bool = True, busy_ms: int | None = None) -> int:
        """Write pending packets as their days' numbers; without ``wait`` a busy store keeps them for later.

        :returns: how many days were written.
        """
        with self._guard:
            taken, self._since = self._pending.take(), None
        if not taken:
            return 0
        db = self._db
        try:
            with db.lock:
                pending = Pending(taken)
                session_of, cost = self._sessions(pending.evidence())
                rows = [(day.isoformat(), *numbers) for day, numbers in totals(taken, session_of, cost.__getitem__).items()]
                # A recall must not wait for another writer's lock (ADR 0064: one attempt, this long).
                with db.transaction(wait_ms=busy_ms if wait else 0):
                    db.con.executemany(_UPSERT, rows)
        except (StorageError, apsw.Error):
            with self._guard:  # busy or closed: keep them for the next packet or close()
                self._pending.put_back(taken)
                self._since = self._since or time.monotonic()
            return 0
        return len(rows)

    def packet_days(self, since: datetime, until: datetime) -> list[PacketDay]:
        with self._guard:
            pending = Pending({d: list(p) for d, p in self._pending.days.items()})
        with self._db.lock, translated("reading packet activity", self._db.con):
            stored = read_days(self._db.con, day_of(since), day_of(until))
            session_of, cost = self._sessions(pending.evidence()) if pending.days else ({}, {})
        return merge_days(stored, totals(pending.days, session_of, cost.__getitem__), since, until)

    def _sessions(self, evidence: set[str]) -> tuple[dict[str, Session], dict[Session, int]]:
        """The session of each id (stored, not forgotten) and each such session's estimated tokens."""
        con = self._db.con
        ids = sorted(evidence)
        session_of: dict[str, Session] = {}
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start:start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            for event_id, namespace, session in con.execute(
                    f"SELECT event_id, namespace, session_id FROM observations WHERE forgotten = 0 "
                    f"AND event_id IN ({marks})", chunk):
                session_of[event_id] = (namespace, session)
        cost: dict[Session, int] = {}
        for namespace, session in set(session_of.values()):
            (count,) = con.execute("SELECT count(*) FROM observations WHERE namespace = ? AND session_id = ? "
                                   "AND forgotten = 0", (namespace, session)).fetchone()
            known = self._memo.get((namespace, session))
            if known is None or known[0] != count:
                texts = [t for (t,) in con.execute(
                    "SELECT text FROM observations WHERE namespace = ? AND session_id = ? AND forgotten = 0 "
                    "ORDER BY occurred_at, event_id", (namespace, session))]
                known = (count, session_tokens(texts))
                self._memo[(namespace, session)] = known
            cost[(namespace, session)] = known[1]
        return session_of, cost
