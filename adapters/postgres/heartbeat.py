"""``PostgresHeartbeats``: the WorkerHeartbeats port on the store's ``worker_heartbeats`` table (ADR 0035, 0074).

Every worker of the store beats here, so ``hlmem doctor`` (:func:`peek_workers`) sees them all.
Operational state like the jobs table, not a projection of the log: replay leaves it alone.
"""

from __future__ import annotations

from hlmem.adapters.postgres.db import PgDb, connect, translated
from hlmem.application.ports import WorkerBeat, check_worker_state
from hlmem.domain.time import format_timestamp, parse_timestamp

__all__ = ["READ_BEATS", "PostgresHeartbeats", "beats_from_rows", "peek_workers"]

_COLUMNS = "owner, pid, host, started_at, last_beat, state, jobs_done, last_error"
READ_BEATS = f"SELECT {_COLUMNS} FROM worker_heartbeats ORDER BY last_beat DESC, owner"


class PostgresHeartbeats:
    """Beats written on the store's ``PgDb`` (they join an open transaction, else commit alone)."""

    def __init__(self, db: PgDb) -> None:
        self._db = db

    def beat(self, beat: WorkerBeat) -> None:
        check_worker_state(beat.state)
        row = (beat.owner, beat.pid, beat.host, format_timestamp(beat.started_at), format_timestamp(beat.last_beat),
               beat.state, beat.jobs_done, beat.last_error)
        with self._db.transaction():
            self._db.con.execute(
                f"INSERT INTO worker_heartbeats ({_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (owner) DO UPDATE SET pid = excluded.pid, host = excluded.host, "
                "started_at = excluded.started_at, last_beat = excluded.last_beat, state = excluded.state, "
                "jobs_done = excluded.jobs_done, last_error = excluded.last_error", row)

    def beats(self) -> list[WorkerBeat]:
        with self._db.lock, translated("reading worker heartbeats"):
            rows = self._db.con.execute(READ_BEATS).fetchall()
        return beats_from_rows(rows)


def peek_workers(url: str) -> tuple[list[WorkerBeat], int]:
    """Every worker's row (newest first) and how many jobs wait, on a read-only connection of its
    own, without opening the store (no schema is made or upgraded): for ``hlmem doctor``. A
    database without the tables (not an hlmem store yet, or layout 4) has neither: ``([], 0)``."""
    con = connect(url)
    try:
        with translated("reading worker heartbeats"):
            con.execute("SET default_transaction_read_only = on")
            beats_table, jobs_table = con.execute(
                "SELECT to_regclass('worker_heartbeats') IS NOT NULL, to_regclass('jobs') IS NOT NULL").fetchone()
            beats = beats_from_rows(con.execute(READ_BEATS).fetchall()) if beats_table else []
            pending = con.execute("SELECT count(*) FROM jobs WHERE state IN ('pending', 'failed')").fetchone()[0] \
                if jobs_table else 0
    finally:
        con.close()
    return beats, int(pending)


def beats_from_rows(rows: list) -> list[WorkerBeat]:
    return [WorkerBeat(owner=r[0], pid=r[1], host=r[2], started_at=parse_timestamp(r[3], field="started_at"),
                       last_beat=parse_timestamp(r[4], field="last_beat"), state=r[5], jobs_done=r[6],
                       last_error=r[7]) for r in rows]
