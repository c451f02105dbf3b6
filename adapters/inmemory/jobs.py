"""``InMemoryJobQueue``: the JobQueue port for the in-memory store (same rules as SQLite)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Any

from attrs import evolve

from hlmem.adapters.inmemory.store import InMemoryStorage
from hlmem.application.ports import Job
from hlmem.domain.errors import ConcurrencyConflict, NotFound, ValidationError


def _waited(job: Job, now: datetime, seconds: float | None) -> bool:
    """Whether ``job`` was created at least ``seconds`` before ``now`` (never, for None)."""
    if seconds is None:
        return False
    try:
        # Whole microseconds, truncated, exactly as the SQLite queue compares them.
        return job.created_at <= now - timedelta(microseconds=int(seconds * 1_000_000))
    except OverflowError:  # a wait longer than the calendar: never reached
        return False


class InMemoryJobQueue:
    """Jobs kept in the store's ``jobs`` dict, so store transactions roll them back too."""

    def __init__(self, store: InMemoryStorage, new_id) -> None:
        self._store = store
        self._new_id = new_id

    @property
    def _jobs(self) -> dict[str, Job]:
        return self._store.jobs

    def enqueue(self, *, kind: str, idempotency_key: str, namespace: str, session_id: str,
                payload: Mapping[str, Any], now: datetime, max_attempts: int = 5) -> str:
        if max_attempts < 1:
            raise ValidationError("max_attempts must be at least 1", field="max_attempts")
        with self._store.transaction():
            for job in self._jobs.values():
                if job.idempotency_key == idempotency_key:
                    return job.job_id
            job_id = self._new_id("jb")
            self._jobs[job_id] = Job(job_id=job_id, kind=kind, idempotency_key=idempotency_key, namespace=namespace,
                                     session_id=session_id, payload=MappingProxyType(dict(payload)), state="pending",
                                     attempts=0, max_attempts=max_attempts, available_at=now, created_at=now,
                                     updated_at=now)
            return job_id

    @staticmethod
    def _ready(job: Job, kind: str, now: datetime) -> bool:
        if job.kind != kind:
            return False
        if job.state in ("pending", "failed"):
            return job.available_at <= now
        return job.state == "running" and job.lease_until is not None and job.lease_until < now

    def claim_window(self, *, kind: str, owner: str, now: datetime, lease_seconds: float, size: int,
                     max_wait_seconds: float, idle_seconds: float | None = None, flush: bool = False,
                     namespace: str | None = None, session_id: str | None = None) -> list[Job]:
        with self._store.transaction():
            for job in list(self._jobs.values()):
                if (job.kind == kind and job.state == "running" and job.lease_until is not None
                        and job.lease_until < now and job.attempts >= job.max_attempts):
                    self._jobs[job.job_id] = evolve(
                        job, state="dead", updated_at=now,
                        last_error=job.last_error or "lease expired: the worker stopped during the last attempt",
                        last_error_class=job.last_error_class or "LeaseExpired")
            ready = sorted((j for j in self._jobs.values() if self._ready(j, kind, now)
                            and (namespace is None or j.namespace == namespace)
                            and (session_id is None or j.session_id == session_id)),
                           key=lambda j: (j.created_at, j.job_id))
            groups: dict[tuple[str, str], list[Job]] = {}
            for job in ready:
                groups.setdefault((job.namespace, job.session_id), []).append(job)
            # Oldest first; ties by (namespace, session), as the SQLite queue orders them.
            for _key, jobs in sorted(groups.items(), key=lambda kv: (kv[1][0].created_at, kv[0])):
                if flush or len(jobs) >= size or _waited(jobs[0], now, max_wait_seconds) \
                        or _waited(jobs[-1], now, idle_seconds):
                    taken = []
                    for job in jobs[:size]:
                        new = evolve(job, state="running", lease_owner=owner,
                                     lease_until=now + timedelta(seconds=lease_seconds), attempts=job.attempts + 1,
                                     updated_at=now)
                        self._jobs[job.job_id] = new
                        taken.append(new)
                    return taken
            return []

    def complete(self, job_ids: Sequence[str], *, owner: str, now: datetime) -> None:
        with self._store.transaction():
            for job_id in job_ids:
                job = self._jobs.get(job_id)
                if job is None or job.state != "running" or job.lease_owner != owner:
                    raise ConcurrencyConflict("a job's lease was lost (it expired and another worker took it)")
                self._jobs[job_id] = evolve(job, state="succeeded", lease_owner=None, lease_until=None,
                                            updated_at=now)

    def fail(self, job_ids: Sequence[str], *, owner: str, now: datetime, error: str, error_class: str,
             retry_at: datetime | None, raw_response: str | None = None) -> None:
        with self._store.transaction():
            for job_id in job_ids:
                job = self._jobs.get(job_id)
                if job is None or job.state != "running" or job.lease_owner != owner:
                    continue
                dead = retry_at is None or job.attempts >= job.max_attempts
                self._jobs[job_id] = evolve(
                    job, state="dead" if dead else "failed", available_at=retry_at or job.available_at,
                    lease_owner=None, lease_until=None, last_error=error[:4000], last_error_class=error_class,
                    updated_at=now)

    def defer(self, job_ids: Sequence[str], *, owner: str, now: datetime, until: datetime, reason: str,
              reason_class: str) -> None:
        with self._store.transaction():
            for job_id in job_ids:
                job = self._jobs.get(job_id)
                if job is None or job.state != "running" or job.lease_owner != owner:
                    continue
                self._jobs[job_id] = evolve(job, state="pending", attempts=max(job.attempts - 1, 0),
                                            available_at=until, lease_owner=None, lease_until=None,
                                            last_error=reason[:4000], last_error_class=reason_class, updated_at=now)

    def retry(self, job_id: str, *, now: datetime) -> None:
        with self._store.transaction():
            job = self._jobs.get(job_id)
            if job is None:
                raise NotFound(f"no job {job_id}")
            if job.state not in ("dead", "failed"):
                raise ValidationError(f"job {job_id} is {job.state}; only dead or failed jobs can be retried",
                                      field="job")
            self._jobs[job_id] = evolve(job, state="pending", attempts=0, available_at=now, updated_at=now)

    def jobs(self, *, state: str | None = None, limit: int = 100) -> list[Job]:
        found = [j for j in self._jobs.values() if state is None or j.state == state]
        return sorted(found, key=lambda j: (j.created_at, j.job_id), reverse=True)[:limit]

    def raw_response(self, job_id: str) -> str | None:
        """Raw responses are not kept in memory."""
        return None

    def job_counts(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for job in self._jobs.values():
            out.setdefault(job.kind, {}).setdefault(job.state, 0)
            out[job.kind][job.state] += 1
        return out

    def prune(self, *, succeeded_before: datetime, dead_before: datetime, limit: int, dry_run: bool = False) -> int:
        """Delete up to ``limit`` succeeded/dead jobs last updated before the cutoffs (maintenance, ADR 0015)."""
        cutoff = {"succeeded": succeeded_before, "dead": dead_before}
        old = [j.job_id for j in sorted(self._jobs.values(), key=lambda j: (j.updated_at, j.job_id))
               if j.state in cutoff and j.updated_at < cutoff[j.state]][:max(limit, 0)]
        if not dry_run:
            with self._store.transaction():
                for job_id in old:
                    del self._jobs[job_id]
        return len(old)
