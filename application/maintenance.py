"""Maintenance: bounded, resumable passes that expire, archive and prune; and revival of archived claims.

A pass works in small transactions (``batch_size`` claims or rows each), so recall and writes
wait at most one batch; it stops when ``max_rows`` rows were examined or ``max_seconds`` passed,
and the next pass resumes from a cursor kept in the store's metadata. ADR 0015.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

from attrs import field, fields, frozen

from hlmem.application.ports import CallLedger, Clock, Embedder, IdGenerator, JobQueue, MaintenanceStore
from hlmem.application.revival import revival_index
from hlmem.application.writes import WriteResult
from hlmem.domain.errors import ConfigurationError
from hlmem.domain.events import DomainEvent
from hlmem.domain.lifecycle import (
    LifecyclePolicy,
    activity_of,
    decide_archive,
    decide_expire,
    decide_revive,
    parse_duration,
)
from hlmem.domain.slots import SlotRegistry
from hlmem.domain.state import ClaimState
from hlmem.domain.time import MAX_OFFSET, require_aware

#: Phases of a pass, in order; a pass that runs out of budget resumes at the same phase.
PHASES = ("expire", "archive", "jobs", "ledger")
#: Where the cursor lives in the store's metadata.
CURSOR_KEY = "maintenance.cursor"


def _count(_instance: object, attribute: Any, value: int) -> None:
    if type(value) is not int or value < 1:
        raise ConfigurationError(f"MaintenanceConfig.{attribute.name} must be a whole number >= 1, not {value!r}")


def _seconds(_instance: object, attribute: Any, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise ConfigurationError(f"MaintenanceConfig.{attribute.name} must be a number of seconds >= 0, not {value!r}")


def _retention(_instance: object, attribute: Any, value: timedelta) -> None:
    if not isinstance(value, timedelta) or not timedelta(0) <= value <= MAX_OFFSET:
        raise ConfigurationError(f"MaintenanceConfig.{attribute.name} must be a duration >= 0 of at most "
                                 f"{MAX_OFFSET.days} days, not {value!r}")


@frozen(kw_only=True)
class MaintenanceConfig:
    """How a pass runs and how long operational rows are kept (defaults in docs/lifecycle.md)."""

    jobs_succeeded_retention: timedelta = field(default=timedelta(days=7), validator=_retention)
    jobs_dead_retention: timedelta = field(default=timedelta(days=30), validator=_retention)
    ledger_retention: timedelta = field(default=timedelta(days=90), validator=_retention)
    batch_size: int = field(default=100, validator=_count)
    max_rows: int = field(default=5_000, validator=_count)
    max_seconds: float = field(default=2.0, validator=_seconds)
    #: After each write transaction a pass sleeps this many times as long as the transaction took,
    #: so other writers (waiting in SQLite's busy handler, which polls every ≤ 100 ms) get the lock.
    pause_factor: float = field(default=1.0, validator=_seconds)

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> MaintenanceConfig:
        """From configuration; retentions as ``timedelta``, seconds, or ``"7d"``-style strings."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ConfigurationError(f"unknown maintenance setting(s): {', '.join(unknown)}")
        return cls(**{k: parse_duration(v, k) if k.endswith("_retention") else v for k, v in values.items()})


@frozen(kw_only=True)
class MaintenanceReport:
    """What one pass did (or, with ``dry_run``, would do): rows touched per kind and why."""

    now: datetime
    expired: int = 0
    archived: int = 0
    jobs_pruned: int = 0
    ledger_pruned: int = 0
    examined: int = 0
    reasons: tuple[tuple[str, int], ...] = ()
    transactions: int = 0
    longest_transaction_ms: float = 0.0
    seconds: float = 0.0
    complete: bool = True
    dry_run: bool = False
    #: A forget's erasure that another connection had left pending was finished by this pass.
    erasure_finished: bool = False
    #: Erased bytes are still on disk (another connection still holds old pages); retried next pass.
    erasure_pending: bool = False

    @property
    def touched(self) -> int:
        """Rows changed: events appended plus operational rows deleted."""
        return self.expired + self.archived + self.jobs_pruned + self.ledger_pruned

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (the CLI prints it)."""
        return {"now": self.now.isoformat(), "expired": self.expired, "archived": self.archived,
                "jobs_pruned": self.jobs_pruned, "ledger_pruned": self.ledger_pruned, "examined": self.examined,
                "touched": self.touched, "reasons": dict(self.reasons), "transactions": self.transactions,
                "longest_transaction_ms": round(self.longest_transaction_ms, 3), "seconds": round(self.seconds, 3),
                "complete": self.complete, "dry_run": self.dry_run, "erasure_finished": self.erasure_finished,
                "erasure_pending": self.erasure_pending}


class _Budget:
    """Rows and seconds left in a pass."""

    def __init__(self, rows: int, seconds: float, timer: Callable[[], float]) -> None:
        self.rows, self._seconds, self._timer, self._start = rows, seconds, timer, timer()

    def exhausted(self) -> bool:
        return self.rows <= 0 or self._timer() - self._start >= self._seconds

    def elapsed(self) -> float:
        return self._timer() - self._start


class MaintenanceService:
    """Runs lifecycle maintenance passes and revives archived claims."""

    def __init__(self, storage: MaintenanceStore, clock: Clock, ids: IdGenerator, registry: SlotRegistry, *,
                 jobs: JobQueue | None = None, ledger: CallLedger | None = None, embedder: Embedder | None = None,
                 policy: LifecyclePolicy | None = None, config: MaintenanceConfig | None = None,
                 timer: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> None:
        self._storage = storage
        self._clock = clock
        self._ids = ids
        self._registry = registry
        self._jobs = jobs
        self._ledger = ledger
        self._embedder = embedder
        self.policy = policy or LifecyclePolicy()
        self.config = config or MaintenanceConfig()
        self._timer = timer
        self._sleep = sleep

    # -- passes -----------------------------------------------------------------------------------

    def run(self, *, now: datetime | None = None, max_rows: int | None = None, max_seconds: float | None = None,
            dry_run: bool = False) -> MaintenanceReport:
        """One bounded pass: expire, archive, prune jobs, prune the LLM ledger (resuming where the last stopped).

        :param now: the instant to judge at (default the clock); events are recorded at it.
        :param dry_run: count what would change, from the start, without writing anything.
        """
        now = require_aware(now, field="now") if now is not None else self._clock.now()
        cfg = self.config
        budget = _Budget(cfg.max_rows if max_rows is None else max_rows,
                         cfg.max_seconds if max_seconds is None else max_seconds, self._timer)
        tally: Counter[str] = Counter()
        reasons: Counter[str] = Counter()
        spans: list[float] = []
        stored = ("expire", "") if dry_run else self._cursor()
        start = PHASES.index(stored[0])
        complete, cursor = True, (PHASES[0], "")
        for step in range(len(PHASES)):
            phase = PHASES[(start + step) % len(PHASES)]
            after = stored[1] if step == 0 else ""
            if phase in ("expire", "archive"):
                done, after = self._sweep(phase, now, after, budget, tally, reasons, spans, dry_run)
            else:
                done = self._prune(phase, now, budget, tally, spans, dry_run)
            if not done:
                complete, cursor = False, (phase, after)
                break
        if not dry_run and cursor != stored:
            self._storage.set_meta(CURSOR_KEY, json.dumps(list(cursor)))
        finished, still = (False, self._storage.pending_erasure() is not None) if dry_run else self.finish_erasure()
        return MaintenanceReport(
            now=now, expired=tally["expired"], archived=tally["archived"], jobs_pruned=tally["jobs"],
            ledger_pruned=tally["ledger"], examined=tally["examined"], reasons=tuple(sorted(reasons.items())),
            transactions=len(spans), longest_transaction_ms=max(spans, default=0.0) * 1000,
            seconds=budget.elapsed(), complete=complete, dry_run=dry_run, erasure_finished=finished,
            erasure_pending=still)

    def finish_erasure(self) -> tuple[bool, bool]:
        """Finish a forget's erasure that another connection left pending (docs/forgetting.md);
        return (finished now, still pending). Costs one metadata read when nothing is pending."""
        if self._storage.pending_erasure() is None:
            return False, False
        still = bool(self._storage.compact_erased().get("pending"))
        return not still, still

    def _cursor(self) -> tuple[str, str]:
        raw = self._storage.meta(CURSOR_KEY)
        try:
            phase, after = json.loads(raw) if raw else (PHASES[0], "")
        except (ValueError, TypeError):
            return PHASES[0], ""
        return (phase, str(after)) if phase in PHASES else (PHASES[0], "")

    def _decide(self, kind: str, claims: Mapping[str, ClaimState], now: datetime) -> list[DomainEvent]:
        new_id, policy = self._ids.new, self.policy
        if kind == "expire":
            found = [decide_expire(c, now=now, policy=policy, new_id=new_id) for c in claims.values()]
        else:
            acts = self._storage.activity(list(claims))
            found = [decide_archive(c, activity_of(c, acts.get(cid)), now=now, policy=policy, new_id=new_id)
                     for cid, c in claims.items()]
        return [e for e in found if e is not None]

    def _sweep(self, kind: str, now: datetime, after: str, budget: _Budget, tally: Counter, reasons: Counter,
               spans: list[float], dry_run: bool) -> tuple[bool, str]:
        """Candidates in id order from ``after``; each due batch is decided again and appended in one transaction."""
        storage = self._storage
        while True:
            if budget.exhausted():
                return False, after
            limit = min(self.config.batch_size, budget.rows)
            ids = storage.lifecycle_candidates(kind, now=now, policy=self.policy, after=after, limit=limit)
            budget.rows -= len(ids)
            tally["examined"] += len(ids)
            if ids:
                events = self._decide(kind, storage.get_claims(ids), now)
                if events and not dry_run:
                    due = [e.stream_id for e in events]
                    began = self._timer()
                    with storage.transaction():
                        # Decided again on fresh states: a writer may have moved a claim meanwhile.
                        events = self._decide(kind, storage.get_claims(due), now)
                        if events:
                            storage.append(events)
                    self._yield(began, spans)
                tally["expired" if kind == "expire" else "archived"] += len(events)
                reasons.update(getattr(e, "reason", "") for e in events)
                after = ids[-1]
            if len(ids) < limit:
                return True, ""

    def _prune(self, phase: str, now: datetime, budget: _Budget, tally: Counter, spans: list[float],
               dry_run: bool) -> bool:
        """Delete old terminal jobs or ledger rows, ``batch_size`` per transaction."""
        cfg = self.config
        if (phase == "jobs" and self._jobs is None) or (phase == "ledger" and self._ledger is None):
            return True
        while True:
            if budget.exhausted():
                return False
            limit = budget.rows if dry_run else min(cfg.batch_size, budget.rows)
            began = self._timer()
            with self._storage.transaction():
                if phase == "jobs":
                    n = self._jobs.prune(succeeded_before=now - cfg.jobs_succeeded_retention,  # type: ignore[union-attr]
                                         dead_before=now - cfg.jobs_dead_retention, limit=limit, dry_run=dry_run)
                else:
                    n = self._ledger.prune(before=now - cfg.ledger_retention, limit=limit,  # type: ignore[union-attr]
                                           dry_run=dry_run)
            if not dry_run and n:
                self._yield(began, spans)
            budget.rows -= n
            tally[phase] += n
            if n < limit or dry_run:
                return n < limit

    def _yield(self, began: float, spans: list[float]) -> None:
        """Record a write transaction's length and let other writers in before the next one."""
        took = self._timer() - began
        spans.append(took)
        if self.config.pause_factor and took > 0:
            self._sleep(took * self.config.pause_factor)

    # -- revival ----------------------------------------------------------------------------------

    def revive(self, claim_id: str, *, reason: str = "", actor: str = "user") -> WriteResult:
        """Bring an archived claim back into normal recall (an explicit lookup); it counts as an access.

        :raises NotFound: no such claim.
        :raises DomainRuleViolation: it was forgotten, or is not archived.
        """
        claim_id = (claim_id or "").strip()
        claim = self._storage.get_claims([claim_id]).get(claim_id)
        now = self._clock.now()
        decide_revive(claim, claim_id, reason=reason, actor=actor, new_id=self._ids.new, recorded_at=now)
        # Embedded before the write transaction (a model call never holds the write lock).
        index = revival_index([claim], self._registry, self._embedder, self._storage)  # type: ignore[list-item]
        with self._storage.transaction():
            fresh = self._storage.get_claims([claim_id]).get(claim_id)
            event = decide_revive(fresh, claim_id, reason=reason, actor=actor, new_id=self._ids.new, recorded_at=now)
            position = self._storage.append([event], index)
        self._storage.record_access([claim_id], now)
        return WriteResult(claim_id, "revived", position, (event.event_id,))

