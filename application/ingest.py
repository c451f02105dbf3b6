"""Ingest: record observations and their extraction jobs in one transaction; process now or later."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from hlmem.application.pipeline import EXTRACT
from hlmem.application.ports import JobQueue
from hlmem.application.writes import WriteResult, WriteService
from hlmem.domain.commands import RecordObservation


class IngestService:
    """Nothing is reported as remembered before its transaction commits; the job commits with it."""

    def __init__(self, writes: WriteService, queue: JobQueue, max_attempts: int = 5) -> None:
        self._writes = writes
        self._queue = queue
        self._max_attempts = max_attempts

    def _enqueue(self, cmd: RecordObservation, result: WriteResult, now: datetime) -> None:
        self._queue.enqueue(kind=EXTRACT, idempotency_key=f"{EXTRACT}:{result.id}", namespace=cmd.namespace,
                            session_id=cmd.session_id, payload={"event_id": result.id}, now=now,
                            max_attempts=self._max_attempts)

    def record(self, cmds: Sequence[tuple[RecordObservation, datetime | None]], *, extract: bool = True) -> list[WriteResult]:
        """Record observations (and, with ``extract``, their extraction jobs) atomically."""
        return self._writes.write_batch(cmds, on_recorded=self._enqueue if extract else None)
