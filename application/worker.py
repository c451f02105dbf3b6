"""The worker: claims windows of jobs, runs them through the pipeline, retries with backoff."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from attrs import define, field

from hlmem.application.derived import DerivedService
from hlmem.application.derived_guard import DERIVE
from hlmem.application.maintenance import MaintenanceReport, MaintenanceService
from hlmem.application.pipeline import EXTRACT, ExtractionPipeline
from hlmem.application.ports import Clock, Job, JobQueue, WorkerBeat, WorkerHeartbeats
from hlmem.domain.errors import BudgetExceeded, ConfigurationError, HlmemError
from hlmem.domain.time import MAX_OFFSET

if TYPE_CHECKING:
    from attrs import Attribute

    from hlmem.application.vector_backlog import VectorBacklog

_MAX_SECONDS = MAX_OFFSET.total_seconds()


def _seconds(_instance: object, attribute: Attribute, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise ConfigurationError(f"WorkerConfig.{attribute.name} must be a number of seconds >= 0, not {value!r}")


def _offset(_instance: object, attribute: Attribute, value: float) -> None:
    # Added to the clock's time (a lease, a backoff, the next maintenance): bounded, so it cannot overflow.
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= _MAX_SECONDS:
        raise ConfigurationError(f"WorkerConfig.{attribute.name} must be a number of seconds from 0 to "
                                 f"{_MAX_SECONDS:.0f}, not {value!r}")


def _count(_instance: object, attribute: Attribute, value: int) -> None:
    if type(value) is not int or value < 1:
        raise ConfigurationError(f"WorkerConfig.{attribute.name} must be a whole number >= 1, not {value!r}")


@define
class WorkerConfig:
    """Tunables (documented defaults; docs/pipeline.md, ADR 0013).

    A session's extraction window closes at the first of: ``window_size`` events; no new event of
    the session for ``window_idle_seconds`` (the conversation paused); its oldest event has waited
    ``window_max_seconds`` (a chatty session never starves). ``flush`` (``--once``, ``add``)
    closes partial windows at once.
    """

    window_size: int = field(default=8, validator=_count)
    window_idle_seconds: float = field(default=120.0, validator=_seconds)
    window_max_seconds: float = field(default=600.0, validator=_seconds)
    lease_seconds: float = field(default=300.0, validator=_offset)
    backoff_base_seconds: float = field(default=2.0, validator=_offset)
    backoff_max_seconds: float = field(default=600.0, validator=_offset)
    idle_sleep_seconds: float = 1.0
    #: A bounded lifecycle maintenance pass runs this often while ``run`` loops (0: never; ADR 0015).
    maintenance_interval_seconds: float = field(default=3600.0, validator=_offset)
    #: At most one heartbeat per this many seconds while ``run`` loops, plus one at start and at
    #: stop (ADR 0035): a beat is a write, so not one per job.
    heartbeat_interval_seconds: float = field(default=5.0, validator=_offset)


@define
class WorkerStats:
    """Counts of what a worker did."""

    windows: int = 0
    jobs_succeeded: int = 0
    jobs_failed: int = 0
    #: Jobs put back to wait for the budget (attempts intact; ADR 0034).
    jobs_deferred: int = 0
    claims: int = 0
    #: Vectors stored for writes that owed them (ADR 0080).
    vectors: int = 0
    rejected: int = 0
    conflicts: int = 0
    errors: list[str] = field(factory=list)
    maintenance_passes: int = 0


def backoff(job: Job, config: WorkerConfig, now: datetime) -> datetime:
    """When a failed job may run again: exponential in its attempts, with a stable jitter.

    The jitter comes from the job id (not a random source), so tests and replays are repeatable
    while jobs that failed together still spread out.
    """
    base = min(config.backoff_base_seconds * 2 ** max(job.attempts - 1, 0), config.backoff_max_seconds)
    spread = int(hashlib.sha256(job.job_id.encode()).hexdigest()[:4], 16) / 0xFFFF  # 0..1
    return now + timedelta(seconds=base * (0.75 + 0.5 * spread))


class Worker:
    """Drains the extraction queue. ``run_once`` drains and returns; ``run`` loops until stopped."""

    def __init__(self, queue: JobQueue, pipeline: ExtractionPipeline, clock: Clock, *, owner: str,
                 config: WorkerConfig | None = None, sleep: Callable[[float], None] | None = None,
                 maintenance: MaintenanceService | None = None, heartbeats: WorkerHeartbeats | None = None,
                 pid: int = 0, host: str = "", derived: DerivedService | None = None,
                 vectors: VectorBacklog | None = None) -> None:
        """:param heartbeats: where :meth:`run` and :meth:`run_once` say they are alive (None: nowhere).
        :param pid: this process's id, and ``host`` its host name, recorded in the heartbeat.
        :param derived: runs the ``derive`` jobs (stale derived items rebuilt; ADR 0046) when no
            extraction window is ready (None: those jobs wait).
        :param vectors: pays the vectors writes owed (``vectors = "worker"``, ADR 0080), a window
            per model call, before each extraction window (None: none are owed)."""
        self._queue = queue
        self._pipeline = pipeline
        self._clock = clock
        self.owner = owner
        self.config = config or WorkerConfig()
        self.stop_event = threading.Event()
        self._sleep = sleep or self.stop_event.wait
        self.stats = WorkerStats()
        self._maintenance = maintenance
        self._next_maintenance: datetime | None = None
        self._heartbeats = heartbeats
        self._pid, self._host = pid, host
        self._started_at: datetime | None = None
        self._last_beat: datetime | None = None
        self._derived = derived
        self._vectors = vectors

    def vector_step(self) -> bool:
        """Embed and store one window of owed vectors if any are due; return whether there was one."""
        if self._vectors is None:
            return False
        jobs = self._vectors.claim(owner=self.owner, lease_seconds=self.config.lease_seconds)
        if not jobs:
            return False
        try:
            self.stats.vectors += self._vectors.pay(jobs, owner=self.owner)
        except Exception as exc:  # recorded on the jobs like an extraction failure; the worker goes on
            self._failed(jobs, exc)
            return True
        self.stats.jobs_succeeded += len(jobs)
        return True

    def _any_step(self, *, flush: bool = False) -> bool:
        """One window of owed vectors, then one extraction (or derive) window: whether either ran."""
        paid = self.vector_step()
        return self.step(flush=flush) or paid

    def step(self, *, flush: bool = False, namespace: str | None = None, session_id: str | None = None) -> bool:
        """Process one window if one is ready (optionally of one session); return whether there was one."""
        cfg = self.config
        jobs = self._queue.claim_window(kind=EXTRACT, owner=self.owner, now=self._clock.now(),
                                        lease_seconds=cfg.lease_seconds, size=cfg.window_size,
                                        max_wait_seconds=cfg.window_max_seconds,
                                        idle_seconds=cfg.window_idle_seconds, flush=flush, namespace=namespace,
                                        session_id=session_id)
        if not jobs:
            return self._derive_step(namespace) if session_id is None else False
        self.stats.windows += 1
        try:
            result = self._pipeline.process(jobs, owner=self.owner)
        except BudgetExceeded as exc:  # nothing was sent: wait for the budget, lose nothing, spend no attempt
            self._deferred(jobs, exc)
            return True
        except Exception as exc:  # every failure is recorded on the jobs; the worker goes on
            self._failed(jobs, exc)
            return True
        self.stats.jobs_succeeded += len(jobs)
        self.stats.claims += len(result.claims)
        self.stats.rejected += result.rejected
        self.stats.conflicts += len(result.conflicts)
        return True

    def _derive_step(self, namespace: str | None) -> bool:
        """Rebuild stale derived items (up to ``window_size`` ``derive`` jobs) if any are ready."""
        if self._derived is None:
            return False
        cfg = self.config
        jobs = self._queue.claim_window(kind=DERIVE, owner=self.owner, now=self._clock.now(),
                                        lease_seconds=cfg.lease_seconds, size=cfg.window_size, max_wait_seconds=0,
                                        flush=True, namespace=namespace)
        if not jobs:
            return False
        try:
            self._derived.run_jobs(jobs, owner=self.owner)
        except Exception as exc:  # recorded on the jobs like an extraction failure; the worker goes on
            self._failed(jobs, exc)
            return True
        self.stats.jobs_succeeded += len(jobs)
        return True

    def _deferred(self, jobs: list[Job], exc: BudgetExceeded) -> None:
        now = self._clock.now()
        until = max(exc.retry_at, now)
        self._queue.defer([j.job_id for j in jobs], owner=self.owner, now=now, until=until,
                          reason=f"waiting for the budget until {until.isoformat()}: {exc}",
                          reason_class=type(exc).__name__)
        self.stats.jobs_deferred += len(jobs)
        self.stats.errors.append(str(exc))

    def _failed(self, jobs: list[Job], exc: Exception) -> None:
        now = self._clock.now()
        raw = getattr(exc, "raw", None)
        message = str(exc) if isinstance(exc, HlmemError) else f"{type(exc).__name__}: {exc}"
        retryable = getattr(exc, "retryable", True)  # a provider's refusal (4xx) will not change
        retry_after = getattr(exc, "retry_after", None)
        for job in jobs:
            retry_at = None if job.attempts >= job.max_attempts or not retryable else backoff(job, self.config, now)
            if retry_at is not None and retry_after:
                # The provider said when to come back (HTTP Retry-After): never earlier.
                wait = min(float(retry_after), _MAX_SECONDS)  # a header must not overflow the clock
                retry_at = max(retry_at, now + timedelta(seconds=wait)) if wait > 0 else retry_at
            self._queue.fail([job.job_id], owner=self.owner, now=now, error=message,
                             error_class=type(exc).__name__, retry_at=retry_at,
                             raw_response=raw if isinstance(raw, str) else None)
        self.stats.jobs_failed += len(jobs)
        self.stats.errors.append(message)

    def process_session(self, namespace: str, session_id: str) -> WorkerStats:
        """Run one session's ready jobs now, partial windows too (``hlmem add`` without --defer)."""
        while self.step(flush=True, namespace=namespace, session_id=session_id):
            pass
        return self.stats

    def run_once(self) -> WorkerStats:
        """Drain every ready job, partial windows included (cron); failed jobs wait for their backoff.

        It beats at start, at most every ``heartbeat_interval_seconds`` while draining, and
        ``stopped`` when it returns (:meth:`beat`).
        """
        self.beat("running", force=True)
        with self._stopping():
            while not self.stop_event.is_set() and self._any_step(flush=True):
                self.beat("running")
        return self.stats

    def beat(self, state: str, *, force: bool = False) -> bool:
        """Record this worker's heartbeat (``running``, ``idle`` or ``stopped``) unless one was
        recorded less than ``heartbeat_interval_seconds`` ago (``force``: always). Returns whether
        it wrote. A failing heartbeat store never stops the worker: the error goes to its stats.
        """
        if self._heartbeats is None:
            return False
        now = self._clock.now()
        if self._started_at is None:
            self._started_at = now
        interval = timedelta(seconds=self.config.heartbeat_interval_seconds)
        if not force and self._last_beat is not None and now - self._last_beat < interval:
            return False
        beat = WorkerBeat(owner=self.owner, pid=self._pid, host=self._host, started_at=self._started_at,
                          last_beat=now, state=state, jobs_done=self.stats.jobs_succeeded,
                          last_error=self.stats.errors[-1] if self.stats.errors else None)
        try:
            self._heartbeats.beat(beat)
        except Exception as exc:  # the heartbeat is a report about the work, never a reason to stop it
            self.stats.errors.append(f"heartbeat: {exc}")
            return False
        self._last_beat = now
        return True

    @contextmanager
    def _stopping(self) -> Iterator[None]:
        """Beat ``stopped`` when the loop ends: cleanly, or with the error that ended it recorded."""
        try:
            yield
        except BaseException as exc:
            self.stats.errors.append(f"worker stopped: {type(exc).__name__}: {exc}")
            self.beat("stopped", force=True)
            raise
        self.beat("stopped", force=True)

    def maintain_if_due(self) -> MaintenanceReport | None:
        """Run one bounded maintenance pass if one is due (``maintenance_interval_seconds`` after the
        last; at once when the last ran out of budget, so a backlog drains between windows)."""
        interval = self.config.maintenance_interval_seconds
        if self._maintenance is None or interval <= 0:
            return None
        now = self._clock.now()
        if self._next_maintenance is not None and now < self._next_maintenance:
            return None
        try:
            report = self._maintenance.run(now=now)
        except Exception as exc:  # maintenance must never stop extraction; it retries next interval
            self.stats.errors.append(f"maintenance: {exc}")
            self._next_maintenance = now + timedelta(seconds=interval)
            return None
        self.stats.maintenance_passes += 1
        self._next_maintenance = now + timedelta(seconds=interval) if report.complete else now
        return report

    def run(self) -> WorkerStats:
        """Loop until ``stop_event`` is set (SIGTERM/SIGINT in the CLI); a window in flight finishes.

        Between windows it runs lifecycle maintenance when due (:meth:`maintain_if_due`).
        """
        self.beat("running", force=True)
        with self._stopping():
            while not self.stop_event.is_set():
                self.maintain_if_due()
                if self._any_step():
                    self.beat("running")
                else:
                    self._finish_erasure()
                    self.beat("idle")
                    self._sleep(self.config.idle_sleep_seconds)
        return self.stats

    def _finish_erasure(self) -> None:
        """When idle: finish a forget's erasure that another connection had left pending (one
        metadata read when there is none)."""
        if self._maintenance is None:
            return
        try:
            self._maintenance.finish_erasure()
        except Exception as exc:  # never stop extraction for it; the next idle tick retries
            self.stats.errors.append(f"erasure: {exc}")
