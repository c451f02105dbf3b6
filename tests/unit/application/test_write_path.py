"""The write path's user actions as single application calls: add (guard, record, inline jobs),
remember's guard, import (batches, refusals) and replay's tombstones (ADR 0029)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hlmem.adapters.clock import FixedClock
from hlmem.adapters.ids import SequentialIds
from hlmem.adapters.inmemory.store import InMemoryStorage
from hlmem.adapters.inmemory.jobs import InMemoryJobQueue
from hlmem.application.forgetting import ForgetService
from hlmem.application.import_service import ImportService
from hlmem.application.ingest import AddResult, IngestService
from hlmem.application.replay import ReplayService
from hlmem.application.writes import WriteService
from hlmem.domain.commands import AssertClaim, RecordObservation
from hlmem.domain.forgetting import ForgetTarget, ForgottenContent
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


class Services:
    def __init__(self) -> None:
        self.store = InMemoryStorage()
        self.clock = FixedClock(T0)
        self.ids = SequentialIds()
        self.forget = ForgetService(self.store, self.store.tombstones, self.clock, self.ids, DEFAULT_REGISTRY)
        self.writes = WriteService(self.store, self.clock, self.ids, DEFAULT_REGISTRY, guard=self.forget.guard)
        self.queue = InMemoryJobQueue(self.store, self.ids.new)


class RecordingWorker:
    """Stands in for the worker: records the sessions it is asked to process and, like the rule
    extractor would, asserts one claim citing the session's event."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.sessions: list[tuple[str, str]] = []

    def process_session(self, namespace: str, session_id: str) -> None:
        self.sessions.append((namespace, session_id))
        event = list(self.services.store.read())[-1].event.stream_id
        self.services.writes.write_batch([(AssertClaim(subject="user", predicate="lives_in", value="Hangzhou",
                                                       evidence=(event,)), None)])


def _ingest(services: Services, worker: RecordingWorker | None = None) -> IngestService:
    return IngestService(services.writes, services.queue, guard=services.forget.guard,
                         worker=(lambda: worker) if worker else None, reader=services.store)


def test_add_records_runs_the_session_and_returns_the_claims_it_made() -> None:
    services = Services()
    worker = RecordingWorker(services)
    result = _ingest(services, worker).add(RecordObservation(text="I live in Hangzhou", session_id="s1"))
    assert isinstance(result, AddResult) and result.outcome == "recorded"
    assert worker.sessions == [("default", "s1")]
    assert [(c.predicate, c.value, c.evidence) for c in result.claims] == [("lives_in", "Hangzhou", (result.id,))]


@pytest.mark.parametrize(("extract", "process"), [(True, False), (False, True)])
def test_add_that_defers_or_skips_extraction_never_makes_the_worker(extract: bool, process: bool) -> None:
    services = Services()

    def no_worker():
        raise AssertionError("the worker was made")

    ingest = IngestService(services.writes, services.queue, guard=services.forget.guard, worker=no_worker,
                           reader=services.store)
    result = ingest.add(RecordObservation(text="note"), extract=extract, process=process)
    assert result.claims == () and services.store.get_observations([result.id])
    assert len(services.queue.jobs()) == int(extract)


def test_add_and_remember_refuse_forgotten_content_before_writing() -> None:
    services = Services()
    ingest = _ingest(services)
    event = ingest.add(RecordObservation(text="my secret"), extract=False).id
    claim = services.writes.remember(AssertClaim(subject="user", predicate="likes", value="tea")).id
    services.forget.forget(ForgetTarget("event", event, "default"))
    services.forget.forget(ForgetTarget("claim", claim, "default"))
    before = services.store.last_position()
    with pytest.raises(ForgottenContent):
        ingest.add(RecordObservation(text="my secret"), extract=False)
    with pytest.raises(ForgottenContent):
        services.writes.remember(AssertClaim(subject="user", predicate="likes", value="tea"))
    assert services.store.last_position() == before


def test_import_writes_in_batches_and_reports_progress() -> None:
    services = Services()
    imports = ImportService(_ingest(services), services.store, services.forget.guard, services.ids,
                            DEFAULT_REGISTRY, batch=2)
    lines = [f'{{"type": "observation", "text": "note {i}"}}' for i in range(5)]
    seen: list[int] = []
    report = imports.import_lines(lines, progress=seen.append)
    assert (report.lines, report.written, report.errors) == (5, 5, ())
    assert seen == [2, 4, 5] and len(services.queue.jobs()) == 5


def test_one_bad_line_refuses_the_file_unless_skipped() -> None:
    services = Services()
    imports = ImportService(_ingest(services), services.store, services.forget.guard, services.ids,
                            DEFAULT_REGISTRY)
    lines = ['{"type": "observation", "text": "fine"}', "{not json", '{"type": "claim", "subject": "user"}']
    refused = imports.import_lines(lines)
    assert refused.written == 0 and [e.split(":")[0] for e in refused.errors] == ["line 2", "line 3"]
    assert services.store.last_position() == 0
    skipped = imports.import_lines(lines, skip_invalid=True, invalid=["line 9: not UTF-8"])
    assert skipped.written == 1 and {e.split(":")[0] for e in skipped.errors} == {"line 2", "line 3", "line 9"}


def test_replay_copies_the_ledgers_forgotten_streams_redacted_and_compares() -> None:
    services = Services()
    ingest = _ingest(services)
    kept = ingest.add(RecordObservation(text="kept"), extract=False).id
    gone = ingest.add(RecordObservation(text="gone"), extract=False).id
    services.forget.forget(ForgetTarget("event", gone, "default"))
    target = InMemoryStorage()
    report = ReplayService(DEFAULT_REGISTRY).replay(services.store, target)
    assert report.equal and report.events == services.store.last_position()
    copied = target.get_observations([kept, gone])
    assert copied[kept].text == "kept" and copied[gone].forgotten
