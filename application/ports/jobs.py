"""The job roles: durable jobs with leases, and the LLM-call ledger as maintenance prunes it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from attrs import frozen


@frozen
class Job:
    """A unit of background work (today: extracting claims from one observation)."""

    job_id: str
    kind: str
    idempotency_key: str
    namespace: str
    session_id: str
    payload: Mapping[str, Any]
    state: str  # pending | running | succeeded | failed | dead
    attempts: int
    max_attempts: int
    available_at: datetime
    created_at: datetime
    updated_at: datetime
    lease_owner: str | None = None
    lease_until: datetime | None = None
    last_error: str | None = None
    last_error_class: str | None = None


@runtime_checkable
class JobQueue(Protocol):
    """Durable jobs with leases, in the same store (and transaction) as the events they serve.

    Contract:
    - ``enqueue`` inside ``Storage.transaction()`` commits with the event it serves; the same
      ``idempotency_key`` twice gives the existing job (no duplicate).
    - ``claim_window`` leases up to ``size`` ready jobs of *one* (namespace, session, kind):
      ready = pending, or failed whose backoff has passed, or running whose lease expired (a
      crashed worker's job). A window is ready when it holds ``size`` jobs, its newest job is
      ``idle_seconds`` old (the session paused; None: never by idleness), or its oldest job
      waited ``max_wait_seconds`` (ADR 0013); ``flush=True`` takes partial windows at once; ``namespace`` and
      ``session_id`` restrict the choice to one session. Attempts are counted at claim time.
      Returns ``[]`` when nothing is ready.
    - ``complete`` marks jobs succeeded only if ``owner`` still holds their lease (else
      :class:`ConcurrencyConflict`): call it inside the transaction that writes the results,
      so a retried job never writes twice.
    - ``fail`` records the error; the job goes back to ``failed`` with ``retry_at``, or to
      ``dead`` when its attempts are used up.
    - ``defer(job_ids, owner=, now=, until=, reason=, reason_class=)`` puts running jobs that
      ``owner`` holds back to ``pending``, not ready before ``until``, with their claim's attempt
      given back (a job deferred by the budget never ran: deferral never makes it dead);
      ``reason`` and ``reason_class`` show in ``last_error``/``last_error_class`` (``hlmem jobs``
      shows why it waits). Jobs whose lease ``owner`` lost are left alone.
    - ``prune(succeeded_before=, dead_before=, limit=, dry_run=False)`` deletes at most ``limit``
      terminal jobs last updated before the cutoffs (succeeded, dead; never pending, running or
      failed) and returns how many; ``dry_run`` only counts them (maintenance, ADR 0015).
    """

    def enqueue(self, *, kind: str, idempotency_key: str, namespace: str, session_id: str,
                payload: Mapping[str, Any], now: datetime, max_attempts: int = 5) -> str: ...

    def claim_window(self, *, kind: str, owner: str, now: datetime, lease_seconds: float, size: int,
                     max_wait_seconds: float, idle_seconds: float | None = None, flush: bool = False,
                     namespace: str | None = None, session_id: str | None = None) -> list[Job]: ...

    def complete(self, job_ids: Sequence[str], *, owner: str, now: datetime) -> None: ...

    def fail(self, job_ids: Sequence[str], *, owner: str, now: datetime, error: str, error_class: str,
             retry_at: datetime | None, raw_response: str | None = None) -> None: ...

    def defer(self, job_ids: Sequence[str], *, owner: str, now: datetime, until: datetime, reason: str,
              reason_class: str) -> None: ...

    def retry(self, job_id: str, *, now: datetime) -> None: ...

    def jobs(self, *, state: str | None = None, limit: int = 100) -> list[Job]: ...

    def job_counts(self) -> dict[str, dict[str, int]]: ...

    def prune(self, *, succeeded_before: datetime, dead_before: datetime, limit: int,
              dry_run: bool = False) -> int: ...


@runtime_checkable
class CallLedger(Protocol):
    """The LLM-call ledger as maintenance sees it (operational rows, not the event log).

    Contract: ``prune(before=, limit=, dry_run=False)`` deletes at most ``limit`` attempt rows
    recorded before ``before``, oldest first, and returns how many; ``dry_run`` only counts them.
    """

    def prune(self, *, before: datetime, limit: int, dry_run: bool = False) -> int: ...
