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

    The extraction an ``add`` runs inline (``process``) runs after that commit, with the worker's
    own short transactions (lease the window, then write its outcome): segmentation, embedding
    and extraction happen between them, never under the write lock (ADR 0064).

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
        return self.add_many([cmd], extract=extract, process=process)[0]

    def add_many(self, cmds: Sequence[RecordObservation], *, extract: bool | Sequence[bool] = True,
                 process: bool | Sequence[bool] = True) -> list[AddResult]:
        """Several turns in one transaction (all or nothing; one commit, so one fsync), in order;
        then each session's ready extraction jobs, once per session.

        ``extract`` and ``process`` are one flag for all turns or one per turn (as for :meth:`add`).

        :raises ForgottenContent: one of the texts was forgotten and re-ingest blocking is on
            (nothing is recorded).
        """
        if not cmds:
            return []
        extracts, processes = _flags(extract, len(cmds), "extract"), _flags(process, len(cmds), "process")
        inline = [e and p and self._worker is not None for e, p in zip(extracts, processes, strict=True)]
        wanted = iter(extracts)  # write_batch reports each observation once, in order, once it wrote them

        def enqueue(cmd: RecordObservation, result: WriteResult, now: datetime) -> None:
            if next(wanted):
                self._enqueue(cmd, result, now)

        # The guard looks before anything is embedded and again under the write lock (ADR 0064).
        results = self._writes.write_batch([(cmd, None) for cmd in cmds], on_recorded=enqueue if any(extracts) else None,
                                           guard=self._guard)
        if any(inline):
            worker = self._worker()
            for namespace, session in dict.fromkeys(
                    (cmd.namespace, cmd.session_id) for cmd, now in zip(cmds, inline, strict=True) if now):
                worker.process_session(namespace, session)
        out = []
        for r, now in zip(results, inline, strict=True):
            claims: tuple[ClaimState, ...] = ()
            if now and self._reader is not None:
                claims = tuple(self._reader.get_claims(self._reader.claims_citing(r.id)).values())
            out.append(AddResult(r.id, r.outcome, r.position, r.events, claims))
        return out


def _flags(flag: bool | Sequence[bool], n: int, name: str) -> list[bool]:
    if isinstance(flag, bool):
        return [flag] * n
    flags = [bool(f) for f in flag]
    if len(flags) != n:
        raise ValueError(f"{name}: {len(flags)} flags for {n} turns")
    return flags
