"""Ingest: record observations and their extraction jobs in one transaction; process now or later."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from attrs import frozen

from hlmem.application.pipeline import EXTRACT
from hlmem.application.ports import ClaimReader, JobQueue
from hlmem.application.writes import WriteResult, WriteService
from hlmem.domain.commands import RecordObservation
from hlmem.domain.state import ClaimState

if TYPE_CHECKING:
    from hlmem.application.reingest import ReingestGuard
    from hlmem.application.worker import Worker


@frozen
class AddResult(WriteResult):
    """What ``add`` did: the event's write, and the claims extracted from it inline (none when
    extraction was deferred to the worker or turned off)."""

    claims: tuple[ClaimState, ...] = ()


class IngestService:
    """Nothing is reported as remembered before its transaction commits; the job commits with it.

    :param guard: refuses forgotten content in :meth:`add` (re-ingest blocking, ADR 0014).
    :param worker: makes the worker that runs the session's ready extraction jobs when :meth:`add`
        processes inline (made on first use: an add that defers never builds an LLM client).
    :param reader: reads back the claims an inline extraction made, for :class:`AddResult`.
    """

    def __init__(self, writes: WriteService, queue: JobQueue, max_attempts: int = 5, *,
                 guard: ReingestGuard | None = None, worker: Callable[[], Worker] | None = None,
                 reader: ClaimReader | None = None) -> None:
        self._writes = writes
        self._queue = queue
        self._max_attempts = max_attempts
        self._guard = guard
        self._worker = worker
        self._reader = reader

    def _enqueue(self, cmd: RecordObservation, result: WriteResult, now: datetime) -> None:
        self._queue.enqueue(kind=EXTRACT, idempotency_key=f"{EXTRACT}:{result.id}", namespace=cmd.namespace,
                            session_id=cmd.session_id, payload={"event_id": result.id}, now=now,
                            max_attempts=self._max_attempts)

    def record(self, cmds: Sequence[tuple[RecordObservation, datetime | None]], *, extract: bool = True) -> list[WriteResult]:
        """Record observations (and, with ``extract``, their extraction jobs) atomically."""
        return self._writes.write_batch(cmds, on_recorded=self._enqueue if extract else None)

    def add(self, cmd: RecordObservation, *, extract: bool = True, process: bool = True) -> AddResult:
        """One user turn: refuse forgotten content, record it with its job, and (``process``) run
        the session's ready extraction jobs now.

        :raises ForgottenContent: the text was forgotten and re-ingest blocking is on.
        """
        if self._guard is not None:
            self._guard.refuse([cmd])
        result = self.record([(cmd, None)], extract=extract)[0]
        claims: tuple[ClaimState, ...] = ()
        if extract and process and self._worker is not None:
            self._worker().process_session(cmd.namespace, cmd.session_id)
            if self._reader is not None:
                claims = tuple(self._reader.get_claims(self._reader.claims_citing(result.id)).values())
        return AddResult(result.id, result.outcome, result.position, result.events, claims)
