"""The optional LLM audit of dedup's gray zone: off by default, asked only about GRAY pairs."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hlmem.adapters.clock import FixedClock
from hlmem.adapters.ids import SequentialIds
from hlmem.adapters.inmemory.store import InMemoryStorage
from hlmem.adapters.inmemory.jobs import InMemoryJobQueue
from hlmem.application.ingest import IngestService
from hlmem.application.pipeline import ExtractionPipeline
from hlmem.application.worker import Worker
from hlmem.application.writes import WriteService
from hlmem.domain.candidates import CandidateClaim
from hlmem.domain.commands import RecordObservation
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)


class ScriptedExtractor:
    """Proposes one 'hobby' claim per event: the event's text after 'hobby:'."""

    name = "scripted"

    def extract(self, events, *, job_id=None):
        return [CandidateClaim(subject="用户", predicate="hobby", value=e.text.split(":", 1)[1],
                               evidence=(e.event_id,), evidence_quote=e.text.split(":", 1)[1]) for e in events]


class RecordingAuditor:
    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.asked: list[tuple[str, str]] = []

    def same_claim(self, new, existing, *, job_id=None):
        self.asked.append((new, existing))
        return self.answer


def _run(auditor, texts):
    store, clock, ids = InMemoryStorage(), FixedClock(T0), SequentialIds()
    queue = InMemoryJobQueue(store, ids.new)
    writes = WriteService(store, clock, ids, DEFAULT_REGISTRY)
    pipeline = ExtractionPipeline(store, queue, clock, ids, DEFAULT_REGISTRY, ScriptedExtractor(), auditor=auditor)
    worker = Worker(queue, pipeline, clock, owner="test")
    for text in texts:
        IngestService(writes, queue).record([(RecordObservation(text=text), None)])
        worker.process_session("default", "default")
        clock.advance(timedelta(minutes=1))
    return store


def _hobbies(store):
    return sorted(c.value for c in store.view.claims.values())


def test_gray_pairs_are_kept_apart_without_an_audit() -> None:
    store = _run(None, ["hobby:早上喝手冲咖啡", "hobby:早上喝手冲的咖啡"])
    assert _hobbies(store) == ["早上喝手冲咖啡", "早上喝手冲的咖啡"]


def test_an_audit_that_says_same_corroborates_instead() -> None:
    auditor = RecordingAuditor(True)
    store = _run(auditor, ["hobby:早上喝手冲咖啡", "hobby:早上喝手冲的咖啡"])
    assert auditor.asked == [("早上喝手冲的咖啡", "早上喝手冲咖啡")]
    (claim,) = store.view.claims.values()
    assert claim.value == "早上喝手冲咖啡" and len(claim.evidence) == 2


def test_the_audit_is_never_asked_about_pairs_the_atoms_keep_apart() -> None:
    auditor = RecordingAuditor(True)
    store = _run(auditor, ["hobby:每周跑步3次", "hobby:每周跑步4次"])
    assert auditor.asked == []
    assert _hobbies(store) == ["每周跑步3次", "每周跑步4次"]
