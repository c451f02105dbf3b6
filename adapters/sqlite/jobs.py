"""``SQLiteJobQueue``: durable jobs with leases and backoff, in the store's own file and transactions."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import apsw

from hlmem.adapters.sqlite.db import Db
from hlmem.application.ports import Job
from hlmem.domain.errors import ConcurrencyConflict, NotFound, ValidationError
from hlmem.domain.time import from_micros, to_micros


_COLUMNS = ("job_id, kind, idempotency_key, namespace, session_id, payload, state, attempts, max_attempts, "
            "available_at, created_at, updated_at, lease_owner, lease_until, last_error, last_error_class")
_READY = ("kind = ? AND ((state IN ('pending', 'failed') AND available_at <= ?) "
          "OR (state = 'running' AND lease_until < ?))")


def _micros_before(t: int, seconds: float | None) -> int:
    """``t`` minus ``seconds`` in microseconds; a bound no time reaches when ``seconds`` is None or infinite."""
    lowest = -(2**63)  # SQLite's smallest integer: no created_at is at or below it
    if seconds is None or seconds >= (t - lowest) / 1_000_000:
        return lowest
    return t - int(seconds * 1_000_000)


def _job(row: Sequence[Any]) -> Job:
    return Job(
        job_id=row[0], kind=row[1], idempotency_key=row[2], namespace=row[3], session_id=row[4],
        payload=json.loads(row[5]), state=row[6], attempts=row[7], max_attempts=row[8],
        available_at=from_micros(row[9]), created_at=from_micros(row[10]), updated_at=from_micros(row[11]),
        lease_owner=row[12], lease_until=None if row[13] is None else from_micros(row[13]),
        last_error=row[14], last_error_class=row[15],
    )


class SQLiteJobQueue:
    """The ``JobQueue`` port on the store's connection; every method joins its transaction."""

    def __init__(self, db: Db, new_id) -> None:
        self._db = db
        self._new_id = new_id

    @property
    def _con(self) -> apsw.Connection:
        return self._db.con

    def enqueue(self, *, kind: str, idempotency_key: str, namespace: str, session_id: str,
                payload: Mapping[str, Any], now: datetime, max_attempts: int = 5) -> str:
        if max_attempts < 1:
            raise ValidationError("max_attempts must be at least 1", field="max_attempts")
        t = to_micros(now)
        with self._db.transaction():
            row = self._con.execute("SELECT job_id FROM jobs WHERE idempotency_key = ?", (idempotency_key,)).fetchone()
            if row:
                return row[0]
            job_id = self._new_id("jb")
            self._con.execute(
                "INSERT INTO jobs (job_id, kind, idempotency_key, namespace, session_id, payload, state, attempts, "
                "max_attempts, available_at, created_at, updated_at) VALUES (?,?,?,?,?,?, 'pending', 0, ?,?,?,?)",
                (job_id, kind, idempotency_key, namespace, session_id,
                 json.dumps(dict(payload), ensure_ascii=False, sort_keys=True), max_attempts, t, t, t),
            )
            return job_id

    def claim_window(self, *, kind: str, owner: str, now: datetime, lease_seconds: float, size: int,
                     max_wait_seconds: float, idle_seconds: float | None = None, flush: bool = False,
                     namespace: str | None = None, session_id: str | None = None) -> list[Job]:
        t = to_micros(now)
        until = to_micros(now + timedelta(seconds=lease_seconds))
        # A session's window is ready when it is full, when the session has been idle (its newest
        # ready job is old enough), or when its oldest job has waited long enough (ADR 0013).
        oldest_by = _micros_before(t, max_wait_seconds)
        newest_by = _micros_before(t, idle_seconds)
        where, params = [], []
        if namespace is not None:
            where.append("AND namespace = ?")
            params.append(namespace)
        if session_id is not None:
            where.append("AND session_id = ?")
            params.append(session_id)
        pick = (f"SELECT namespace, session_id FROM jobs WHERE ({_READY}) {' '.join(where)} "
                "GROUP BY namespace, session_id "
                "HAVING ? OR count(*) >= ? OR min(created_at) <= ? OR max(created_at) <= ? "
                "ORDER BY min(created_at), namespace, session_id LIMIT 1")
        args = (kind, t, t, *params, int(flush), size, oldest_by, newest_by)
        with self._db.lock:
            if not self._db.depth and self._con.execute(pick, args).fetchone() is None:
                # Nothing ready: say so without taking the write lock (an idle worker's poll, the last
                # look of an inline extraction), where it would wait behind every writer (ADR 0064).
                return []
        with self._db.transaction():
            self._bury_exhausted(kind, t)
            chosen = self._con.execute(pick, args).fetchone()  # again under the lock: another may have leased it
            if chosen is None:
                return []
            ids = [r[0] for r in self._con.execute(
                f"SELECT job_id FROM jobs WHERE {_READY} AND namespace = ? AND session_id = ? "
                "ORDER BY created_at, job_id LIMIT ?",
                (kind, t, t, chosen[0], chosen[1], size),
            )]
            marks = ",".join("?" * len(ids))
            self._con.execute(
                f"UPDATE jobs SET state = 'running', lease_owner = ?, lease_until = ?, attempts = attempts + 1, "
                f"updated_at = ? WHERE job_id IN ({marks})",
                (owner, until, t, *ids),
            )
            rows = self._con.execute(f"SELECT {_COLUMNS} FROM jobs WHERE job_id IN ({marks}) "
                                     "ORDER BY created_at, job_id", ids).fetchall()
            return [_job(r) for r in rows]

    def _bury_exhausted(self, kind: str, t: int) -> None:
        # A job whose lease expired after its last attempt (its worker died every time) is dead:
        # re-running it forever would stall the queue.
        self._con.execute(
            "UPDATE jobs SET state = 'dead', updated_at = ?, last_error = coalesce(last_error, "
            "'lease expired: the worker stopped during the last attempt'), "
            "last_error_class = coalesce(last_error_class, 'LeaseExpired') "
            "WHERE kind = ? AND state = 'running' AND lease_until < ? AND attempts >= max_attempts",
            (t, kind, t),
        )

    def complete(self, job_ids: Sequence[str], *, owner: str, now: datetime) -> None:
        if not job_ids:
            return
        marks = ",".join("?" * len(job_ids))
        with self._db.transaction():
            self._con.execute(
                f"UPDATE jobs SET state = 'succeeded', lease_owner = NULL, lease_until = NULL, updated_at = ? "
                f"WHERE job_id IN ({marks}) AND state = 'running' AND lease_owner = ?",
                (to_micros(now), *job_ids, owner),
            )
            if self._con.changes() != len(set(job_ids)):
                raise ConcurrencyConflict("a job's lease was lost (it expired and another worker took it)")

    def fail(self, job_ids: Sequence[str], *, owner: str, now: datetime, error: str, error_class: str,
             retry_at: datetime | None, raw_response: str | None = None) -> None:
        if not job_ids:
            return
        marks = ",".join("?" * len(job_ids))
        t = to_micros(now)
        with self._db.transaction():
            self._con.execute(
                "UPDATE jobs SET state = CASE WHEN attempts >= max_attempts OR ? IS NULL THEN 'dead' ELSE 'failed' END, "
                "available_at = coalesce(?, available_at), lease_owner = NULL, lease_until = NULL, last_error = ?, "
                "last_error_class = ?, raw_response = coalesce(?, raw_response), updated_at = ? "
                f"WHERE job_id IN ({marks}) AND state = 'running' AND lease_owner = ?",
                (None if retry_at is None else 1, None if retry_at is None else to_micros(retry_at), error[:4000],
                 error_class, raw_response, t, *job_ids, owner),
            )

    def defer(self, job_ids: Sequence[str], *, owner: str, now: datetime, until: datetime, reason: str,
              reason_class: str) -> None:
        if not job_ids:
            return
        marks = ",".join("?" * len(job_ids))
        with self._db.transaction():
            self._con.execute(
                "UPDATE jobs SET state = 'pending', attempts = max(attempts - 1, 0), available_at = ?, "
                "lease_owner = NULL, lease_until = NULL, last_error = ?, last_error_class = ?, updated_at = ? "
                f"WHERE job_id IN ({marks}) AND state = 'running' AND lease_owner = ?",
                (to_micros(until), reason[:4000], reason_class, to_micros(now), *job_ids, owner),
            )

    def retry(self, job_id: str, *, now: datetime) -> None:
        with self._db.transaction():
            row = self._con.execute("SELECT state FROM jobs WHERE job_id = ?", (job_id,)).fetchone()
            if row is None:
                raise NotFound(f"no job {job_id}")
            if row[0] not in ("dead", "failed"):
                raise ValidationError(f"job {job_id} is {row[0]}; only dead or failed jobs can be retried",
                                      field="job")
            t = to_micros(now)
            self._con.execute(
                "UPDATE jobs SET state = 'pending', attempts = 0, available_at = ?, updated_at = ? WHERE job_id = ?",
                (t, t, job_id),
            )

    def jobs(self, *, state: str | None = None, limit: int = 100) -> list[Job]:
        if state is None:
            rows = self._con.execute(f"SELECT {_COLUMNS} FROM jobs ORDER BY created_at DESC LIMIT ?", (limit,))
        else:
            rows = self._con.execute(f"SELECT {_COLUMNS} FROM jobs WHERE state = ? ORDER BY created_at DESC LIMIT ?",
                                     (state, limit))
        return [_job(r) for r in rows]

    def raw_response(self, job_id: str) -> str | None:
        """The provider's raw response kept when parsing failed (for diagnosis)."""
        row = self._con.execute("SELECT raw_response FROM jobs WHERE job_id = ?", (job_id,)).fetchone()
        return row[0] if row else None

    def job_counts(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for kind, state, n in self._con.execute("SELECT kind, state, count(*) FROM jobs GROUP BY kind, state"):
            out.setdefault(kind, {})[state] = n
        return out

    def prune(self, *, succeeded_before: datetime, dead_before: datetime, limit: int, dry_run: bool = False) -> int:
        """Delete up to ``limit`` succeeded/dead jobs last updated before the cutoffs (maintenance, ADR 0015)."""
        pick = ("SELECT job_id FROM jobs WHERE state = 'succeeded' AND updated_at < :ok "
                "UNION ALL SELECT job_id FROM jobs WHERE state = 'dead' AND updated_at < :dead LIMIT :limit")
        args = {"ok": to_micros(succeeded_before), "dead": to_micros(dead_before), "limit": max(limit, 0)}
        with self._db.transaction():
            if dry_run:
                return self._con.execute(f"SELECT count(*) FROM ({pick})", args).fetchone()[0]
            self._con.execute(f"DELETE FROM jobs WHERE job_id IN ({pick})", args)
            return self._con.changes()
