"""The worker heartbeat role: who is draining the queue, and when it last said so (ADR 0035)."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol, runtime_checkable

from attrs import frozen

from hlmem.domain.errors import ValidationError

#: Values of :attr:`WorkerBeat.state`.
WORKER_STATES = ("running", "idle", "stopped")


@frozen(kw_only=True)
class WorkerBeat:
    """One worker's last word about itself (one row per ``owner``, replaced at every beat).

    :param owner: the worker's lease owner (``host:pid:token``), the key of its row.
    :param state: ``running`` (a window was processed since the last beat), ``idle`` (nothing was
        ready) or ``stopped`` (it exited; ``last_error`` says why when it did not exit cleanly).
    :param jobs_done: jobs it completed since it started (failed attempts are not counted).
    :param last_error: the last error it recorded, or ``None``.
    """

    owner: str
    pid: int
    host: str
    started_at: datetime
    last_beat: datetime
    state: str
    jobs_done: int = 0
    last_error: str | None = None


@runtime_checkable
class WorkerHeartbeats(Protocol):
    """Where workers say they are alive; ``hlmem doctor`` and ``hlmem ops report`` read it.

    Contract:
    - ``beat(b)`` stores ``b`` as the one row of ``b.owner``, replacing the previous one
      (idempotent: the same beat twice leaves one row). It commits on its own when no transaction
      is open, and joins the caller's when one is.
    - ``beats()`` returns every worker's row, the newest ``last_beat`` first (ties by owner).
    - A bad ``state`` (not one of :data:`WORKER_STATES`) raises :class:`ValidationError` and
      stores nothing.
    """

    def beat(self, beat: WorkerBeat) -> None: ...

    def beats(self) -> list[WorkerBeat]: ...


def check_worker_state(state: str) -> None:
    """Refuse a state the port does not know (every adapter applies this rule before storing).

    :raises ValidationError: ``state`` is not one of :data:`WORKER_STATES`.
    """
    if state not in WORKER_STATES:
        raise ValidationError(f"worker state must be one of {', '.join(WORKER_STATES)}, not {state!r}",
                              field="state")
