"""``SQLiteHeartbeats``: the WorkerHeartbeats port on the store's ``worker_heartbeats`` table (ADR 0035).

Operational state like the jobs table, not a projection of the log: replay leaves it alone.
Reading needs only a connection (:func:`read_beats`), so ``hlmem doctor`` and ``hlmem ops report``
read it on a read-only connection without opening (and migrating) the store.
"""

from __future__ import annotations

import apsw

from hlmem.adapters.sqlite.db import Db, translated
from hlmem.application.ports import WorkerBeat, check_worker_state
from hlmem.domain.time import format_timestamp, parse_timestamp

_COLUMNS = "owner, pid, host, started_at, last_beat, state, jobs_done, last_error"


class SQLiteHeartbeats:
    """Beats written on the store's ``Db`` (they join an open transaction, else commit alone)."""

    def __init__(self, db: Db) -> None:
        self._db = db

    def beat(self, beat: WorkerBeat) -> None:
        check_worker_state(beat.state)
        row = (beat.owner, beat.pid, beat.host, format_timestamp(beat.started_at), format_timestamp(beat.last_beat),
               beat.state, beat.jobs_done, beat.last_error)
        with self._db.transaction():
            self._db.con.execute(f"INSERT OR REPLACE INTO worker_heartbeats ({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?)",
                                 row)

    def beats(self) -> list[WorkerBeat]:
        with self._db.lock, translated("reading worker heartbeats", self._db.con):
            return read_beats(self._db.con)


def read_beats(con: apsw.Connection) -> list[WorkerBeat]:
    """Every worker's row, newest beat first; ``[]`` on a store older than migration 0013."""
    if con.execute("SELECT 1 FROM sqlite_schema WHERE name = 'worker_heartbeats'").fetchone() is None:
        return []
    rows = con.execute(f"SELECT {_COLUMNS} FROM worker_heartbeats ORDER BY last_beat DESC, owner").fetchall()
    return [WorkerBeat(owner=r[0], pid=r[1], host=r[2], started_at=parse_timestamp(r[3], field="started_at"),
                       last_beat=parse_timestamp(r[4], field="last_beat"), state=r[5], jobs_done=r[6],
                       last_error=r[7]) for r in rows]
