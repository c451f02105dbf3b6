"""``PostgresJobQueue``: durable jobs with leases on PostgreSQL, many workers at once (``FOR UPDATE SKIP LOCKED``).

The window rule is the SQLite queue's (ADR 0013). What differs is concurrency: a worker takes a
session's window under a transaction-level advisory lock of that session (``pg_try_advisory_xact_lock``;
a session another worker is leasing is passed over, not waited for), and the window's rows are
locked with ``FOR UPDATE SKIP LOCKED``, so two workers never lease one job and no worker waits for
another. A killed worker's lease expires and the job is ready again (attempts counted at claim).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from hlmem.adapters.postgres.db import PgDb, translated
from hlmem.application.ports import Job
from hlmem.domain.errors import ConcurrencyConflict, NotFound, ValidationError
from hlmem.domain.time import from_micros, to_micros

_COLUMNS = ("job_id, kind, idempotency_key, namespace, session_id, payload, state, attempts, max_attempts, "
            "available_at, created_at, updated_at, lease_owner, lease_until, last_error, last_error_class")
_READY = ("kind = %(kind)s AND ((state IN ('pending', 'failed') AND available_at <= %(t)s) "
          "OR (state = 'running' AND lease_until < %(t)s))")
#: The two-int advisory lock space of sessions being leased.
SESSION_LOCKS = 1849
#: How many ready windows a claim looks at before giving up for now (the others are being leased).
WINDOWS_TRIED = 16
_LOWEST = -(2 ** 63)


def _micros_before(t: int, seconds: float | None) -> int:
    if seconds is None or seconds >= (t - _LOWEST) / 1_000_000:
        return _LOWEST
    return t - int(seconds * 1_000_000)


def _job(row: Sequence[Any]) -> Job:
    return Job(job_id=row[0], kind=row[1], idempotency_key=row[2], namespace=row[3], session_id=row[4],
               payload=json.loads(row[5]), state=row[6], attempts=row[7], max_attempts=row[8],
               available_at=from_micros(row[9]), created_at=from_micros(row[10]), updated_at=from_micros(row[11]),
               lease_owner=row[12], lease_until=None if row[13] is None else from_micros(row[13]),
               last_error=row[14], last_error_class=row[15])


class PostgresJobQueue:
    """The ``JobQueue`` port on the store's connection; every method joins its transaction."""

    def __init__(self, db: PgDb, new_id) -> None:
        self._db = db
        self._new_id = new_id

    def _run(self, sql: str, params: Any = None):
        return self._db.con.execute(sql, params)

    def enqueue(self, *, kind: str, idempotency_key: str, namespace: str, session_id: str,
                payload: Mapping[str, Any], now: datetime, max_attempts: int = 5) -> str:
        if max_attempts < 1:
            raise ValidationError("max_attempts must be at least 1", field="max_attempts")
        t = to_micros(now)
        with self._db.transaction(), translated("enqueueing a job"):
            job_id = self._new_id("jb")
            row = self._run(
                "INSERT INTO jobs (job_id, kind, idempotency_key, namespace, session_id, payload, state, attempts, "
                "max_attempts, available_at, created_at, updated_at) VALUES (%s,%s,%s,%s,%s,%s,'pending',0,%s,%s,%s,%s) "
                "ON CONFLICT (idempotency_key) DO NOTHING RETURNING job_id",
                (job_id, kind, idempotency_key, namespace, session_id,
                 json.dumps(dict(payload), ensure_ascii=True, sort_keys=True), max_attempts, t, t, t)).fetchone()
            if row is not None:
                return row[0]
            return self._run("SELECT job_id FROM jobs WHERE idempotency_key = %s", (idempotency_key,)).fetchone()[0]

    def claim_window(self, *, kind: str, owner: str, now: datetime, lease_seconds: float, size: int,
                     max_wait_seconds: float, idle_seconds: float | None = None, flush: bool = False,
                     namespace: str | None = None, session_id: str | None = None) -> list[Job]:
        t = to_micros(now)
        p = {"kind": kind, "t": t, "until": to_micros(now + timedelta(seconds=lease_seconds)), "size": size,
             "flush": bool(flush), "oldest_by": _micros_before(t, max_wait_seconds),
             "newest_by": _micros_before(t, idle_seconds), "ns": namespace, "sid": session_id,
             "owner": owner, "tried": WINDOWS_TRIED}
        extra = (" AND namespace = %(ns)s" if namespace is not None else "") + (
            " AND session_id = %(sid)s" if session_id is not None else "")
        with self._db.transaction(), translated("leasing jobs"):
            self._bury_exhausted(kind, t)
            windows = self._run(
                f"SELECT namespace, session_id FROM jobs WHERE ({_READY}){extra} GROUP BY namespace, session_id "
                "HAVING %(flush)s OR count(*) >= %(size)s OR min(created_at) <= %(oldest_by)s "
                "OR max(created_at) <= %(newest_by)s ORDER BY min(created_at), namespace, session_id "
                "LIMIT %(tried)s", p).fetchall()
            for ns, sid in windows:
                got = self._run("SELECT pg_try_advisory_xact_lock(%s, hashtext(%s))",
                                (SESSION_LOCKS, f"{ns}\x1f{sid}".replace("\x00", ""))).fetchone()[0]
                if not got:
                    continue  # another worker is leasing this session's window right now
                ids = [r[0] for r in self._run(
                    f"SELECT job_id FROM jobs WHERE {_READY} AND namespace = %(wns)s AND session_id = %(wsid)s "
                    "ORDER BY created_at, job_id LIMIT %(size)s FOR UPDATE SKIP LOCKED", {**p, "wns": ns, "wsid": sid})]
                if not ids:
                    continue
                rows = self._run(
                    "UPDATE jobs SET state = 'running', lease_owner = %(owner)s, lease_until = %(until)s, "
                    f"attempts = attempts + 1, updated_at = %(t)s WHERE job_id = ANY(%(ids)s) RETURNING {_COLUMNS}",
                    {**p, "ids": ids}).fetchall()
                return sorted((_job(r) for r in rows), key=lambda j: (j.created_at, j.job_id))
            return []

    def _bury_exhausted(self, kind: str, t: int) -> None:
        self._run("UPDATE jobs SET state = 'dead', updated_at = %s, last_error = coalesce(last_error, "
                  "'lease expired: the worker stopped during the last attempt'), "
                  "last_error_class = coalesce(last_error_class, 'LeaseExpired') WHERE job_id IN (SELECT job_id "
                  "FROM jobs WHERE kind = %s AND state = 'running' AND lease_until < %s AND attempts >= max_attempts "
                  "FOR UPDATE SKIP LOCKED)", (t, kind, t))

    def complete(self, job_ids: Sequence[str], *, owner: str, now: datetime) -> None:
        if not job_ids:
            return
        with self._db.transaction(), translated("completing jobs"):
            n = self._run("UPDATE jobs SET state = 'succeeded', lease_owner = NULL, lease_until = NULL, "
                          "updated_at = %s WHERE job_id = ANY(%s) AND state = 'running' AND lease_owner = %s",
                          (to_micros(now), list(job_ids), owner)).rowcount
            if n != len(set(job_ids)):
                raise ConcurrencyConflict("a job's lease was lost (it expired and another worker took it)")

    def fail(self, job_ids: Sequence[str], *, owner: str, now: datetime, error: str, error_class: str,
             retry_at: datetime | None, raw_response: str | None = None) -> None:
        if not job_ids:
            return
        with self._db.transaction(), translated("failing jobs"):
            self._run(
                "UPDATE jobs SET state = CASE WHEN attempts >= max_attempts OR %(retry)s IS NULL THEN 'dead' "
                "ELSE 'failed' END, available_at = coalesce(%(retry)s, available_at), lease_owner = NULL, "
                "lease_until = NULL, last_error = %(error)s, last_error_class = %(cls)s, "
                "raw_response = coalesce(%(raw)s, raw_response), updated_at = %(t)s "
                "WHERE job_id = ANY(%(ids)s) AND state = 'running' AND lease_owner = %(owner)s",
                {"retry": None if retry_at is None else to_micros(retry_at), "error": error[:4000],
                 "cls": error_class, "raw": raw_response, "t": to_micros(now), "ids": list(job_ids), "owner": owner})

    def defer(self, job_ids: Sequence[str], *, owner: str, now: datetime, until: datetime, reason: str,
              reason_class: str) -> None:
        if not job_ids:
            return
        with self._db.transaction(), translated("deferring jobs"):
            self._run("UPDATE jobs SET state = 'pending', attempts = GREATEST(attempts - 1, 0), available_at = %s, "
                      "lease_owner = NULL, lease_until = NULL, last_error = %s, last_error_class = %s, updated_at = %s "
                      "WHERE job_id = ANY(%s) AND state = 'running' AND lease_owner = %s",
                      (to_micros(until), reason[:4000], reason_class, to_micros(now), list(job_ids), owner))

    def retry(self, job_id: str, *, now: datetime) -> None:
        with self._db.transaction(), translated("retrying a job"):
            row = self._run("SELECT state FROM jobs WHERE job_id = %s FOR UPDATE", (job_id,)).fetchone()
            if row is None:
                raise NotFound(f"no job {job_id}")
            if row[0] not in ("dead", "failed"):
                raise ValidationError(f"job {job_id} is {row[0]}; only dead or failed jobs can be retried",
                                      field="job")
            t = to_micros(now)
            self._run("UPDATE jobs SET state = 'pending', attempts = 0, available_at = %s, updated_at = %s "
                      "WHERE job_id = %s", (t, t, job_id))

    def jobs(self, *, state: str | None = None, limit: int = 100) -> list[Job]:
        with self._db.lock, translated("listing jobs"):
            if state is None:
                rows = self._run(f"SELECT {_COLUMNS} FROM jobs ORDER BY created_at DESC, job_id DESC LIMIT %s",
                                 (limit,))
            else:
                rows = self._run(f"SELECT {_COLUMNS} FROM jobs WHERE state = %s ORDER BY created_at DESC, "
                                 "job_id DESC LIMIT %s", (state, limit))
            return [_job(r) for r in rows]

    def raw_response(self, job_id: str) -> str | None:
        with self._db.lock, translated("reading a job"):
            row = self._run("SELECT raw_response FROM jobs WHERE job_id = %s", (job_id,)).fetchone()
        return row[0] if row else None

    def job_counts(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        with self._db.lock, translated("counting jobs"):
            for kind, state, n in self._run("SELECT kind, state, count(*) FROM jobs GROUP BY kind, state"):
                out.setdefault(kind, {})[state] = n
        return out

    def prune(self, *, succeeded_before: datetime, dead_before: datetime, limit: int, dry_run: bool = False) -> int:
        pick = ("SELECT job_id FROM (SELECT job_id FROM jobs WHERE state = 'succeeded' AND updated_at < %(ok)s "
                "UNION ALL SELECT job_id FROM jobs WHERE state = 'dead' AND updated_at < %(dead)s) j LIMIT %(limit)s")
        args = {"ok": to_micros(succeeded_before), "dead": to_micros(dead_before), "limit": max(limit, 0)}
        with self._db.transaction(), translated("pruning jobs"):
            if dry_run:
                return self._run(f"SELECT count(*) FROM ({pick}) p", args).fetchone()[0]
            return self._run(f"DELETE FROM jobs WHERE job_id IN ({pick})", args).rowcount
