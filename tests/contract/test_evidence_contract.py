"""The evidence rule through every write path, run against both storage adapters (issue 11).

A claim whose evidence names a forgotten event, or an id that names no event, is refused with a
reason code and writes nothing: ``remember``, corroboration, batches, ``import``, the pipeline
(also when the forget commits after the window was read) and conflict decisions. One abstract
suite, subclassed once per adapter (style guide item 18).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

import pytest

from hlmem import Memory
from hlmem.adapters.clock import FixedClock
from hlmem.adapters.ids import SequentialIds
from hlmem.application.conflicts import ConflictService
from hlmem.application.forgetting import ForgetService
from hlmem.application.ingest import IngestService
from hlmem.application.pipeline import EXTRACT, ExtractionPipeline
from hlmem.application.ports import Storage
from hlmem.application.writes import WriteService
from hlmem.domain.candidates import CandidateClaim, SourceEvent
from hlmem.domain.commands import AssertClaim, RecordObservation
from hlmem.domain.events import ClaimAsserted, ConflictOpened, ExtractionRecorded
from hlmem.domain.evidence import EVIDENCE_FORGOTTEN, EVIDENCE_UNKNOWN, UnusableEvidence
from hlmem.domain.forgetting import ForgetTarget
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY
from hlmem.domain.state import slot_key

from support.stores import InMemoryStore, SQLiteStore, StoreContract
from support.stores import PostgresStore

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)


def theme(*evidence: str, value: str = "dark") -> AssertClaim:
    return AssertClaim(subject="user", predicate="theme", value=value, evidence=evidence)


class ForgettingExtractor:
    """Proposes "user · theme · dark" from every event, and forgets the first event while it
    "thinks" (after the window was read, before the pipeline's write transaction)."""

    name = "rules"

    def __init__(self, forget: ForgetService) -> None:
        self._forget = forget

    def extract(self, events: Sequence[SourceEvent], *, job_id: str | None = None) -> list[CandidateClaim]:
        self._forget.forget(ForgetTarget("event", events[0].event_id))
        return [CandidateClaim(subject="user", predicate="preferred_ui_theme", value="dark",
                               evidence_quote="dark mode", evidence=(events[0].event_id,))]


class EvidenceContract(StoreContract):
    """Cases every Storage adapter must pass. Subclasses mix in the adapter (``make_store``,
    ``make_queue``, ``memory_path``)."""

    @pytest.fixture
    def ids(self) -> SequentialIds:
        return SequentialIds(1)

    @pytest.fixture
    def writes(self, store: Storage, clock: FixedClock, ids: SequentialIds) -> WriteService:
        return WriteService(store, clock, ids, DEFAULT_REGISTRY)

    @pytest.fixture
    def forget(self, store: Storage, clock: FixedClock, ids: SequentialIds) -> ForgetService:
        return ForgetService(store, store.tombstones, clock, ids, DEFAULT_REGISTRY)

    @pytest.fixture
    def events(self, writes: WriteService, forget: ForgetService) -> tuple[str, str]:
        """(live event, forgotten event)."""
        live = writes.record(RecordObservation(text="I switched to dark mode")).id
        gone = writes.record(RecordObservation(text="我喜欢深色主题", session_id="s1")).id
        forget.forget(ForgetTarget("event", gone))
        return live, gone

    # -- the port ---------------------------------------------------------------------------------

    def test_a_forgotten_event_keeps_its_tombstone_state_and_an_unknown_id_has_none(
            self, store: Storage, events: tuple[str, str]) -> None:
        live, gone = events
        got = store.get_observations([live, gone, "ev_nosuchevent"])
        assert set(got) == {live, gone}
        assert not got[live].forgotten and got[gone].forgotten and got[gone].text == ""

    # -- remember, corroborate, batch ---------------------------------------------------------------

    @pytest.mark.parametrize(("cite", "reason"), [("gone", EVIDENCE_FORGOTTEN), ("missing", EVIDENCE_UNKNOWN),
                                                  ("both", EVIDENCE_FORGOTTEN)])
    def test_remember_refuses_unusable_evidence_and_writes_nothing(
            self, store: Storage, writes: WriteService, events: tuple[str, str], cite: str, reason: str) -> None:
        live, gone = events
        evidence = {"gone": (gone,), "missing": ("ev_nosuchevent",), "both": (live, gone)}[cite]
        before = store.last_position()
        with pytest.raises(UnusableEvidence) as refused:
            writes.remember(theme(*evidence))
        assert refused.value.reason == reason and f"({reason})" in str(refused.value)
        assert store.last_position() == before
        assert store.subject_claims("default", "user") == []

    def test_corroboration_refuses_forgotten_evidence(self, store: Storage, writes: WriteService,
                                                      events: tuple[str, str]) -> None:
        live, gone = events
        claim = writes.remember(theme(live)).id
        with pytest.raises(UnusableEvidence):
            writes.remember(theme(gone))
        assert writes.remember(theme(live)).outcome == "corroborated"
        assert store.get_claims([claim])[claim].evidence == (live,)

    def test_a_batch_may_cite_an_event_it_records_earlier_but_not_later(
            self, store: Storage, writes: WriteService, events: tuple[str, str]) -> None:
        live, gone = events
        first = RecordObservation(text="new turn", event_id="ev_inbatch")
        results = writes.write_batch([(first, None), (theme("ev_inbatch", live), None)])
        assert store.get_claims([results[1].id])[results[1].id].evidence == ("ev_inbatch", live)
        before = store.last_position()
        later = RecordObservation(text="later turn", event_id="ev_later")
        with pytest.raises(UnusableEvidence, match=EVIDENCE_UNKNOWN):
            writes.write_batch([(theme("ev_later", value="light"), None), (later, None)])
        with pytest.raises(UnusableEvidence, match=EVIDENCE_FORGOTTEN):
            writes.write_batch([(RecordObservation(text="fine"), None), (theme(value="light"), None),
                                (theme(gone, value="Dark"), None)])
        assert store.last_position() == before, "a refused batch wrote something"

    def test_a_legacy_claim_on_forgotten_evidence_still_replays_into_this_adapter(
            self, store: Storage, events: tuple[str, str], tmp_path: Path) -> None:
        """Reducers never raise on accepted events: a log from before the rule replays here."""
        from hlmem.application.replay import ReplayService

        live, gone = events
        store.append([ClaimAsserted(event_id="lg_legacy", stream_id="cl_legacy", version=1, recorded_at=T0,
                                    namespace="default", subject="user", predicate="preferred_ui_theme",
                                    value="dark", valid_from=T0, evidence=(gone, "ev_nosuchevent"))])
        target = self.make_store(tmp_path / "replayed")
        try:
            replay = ReplayService(DEFAULT_REGISTRY)
            assert replay.rebuild(store, target) == store.last_position()
            assert replay.compare(store, target).equal
            assert target.get_claims(["cl_legacy"])["cl_legacy"].evidence == (gone, "ev_nosuchevent")
        finally:
            target.close()

    # -- the pipeline -----------------------------------------------------------------------------

    def test_the_pipeline_rejects_a_candidate_whose_evidence_was_forgotten_after_the_window_was_read(
            self, store: Storage, writes: WriteService, forget: ForgetService, clock: FixedClock,
            ids: SequentialIds) -> None:
        queue = self.make_queue(store, ids.new)
        ingest = IngestService(writes, queue)
        event = ingest.record([(RecordObservation(text="I switched to dark mode"), None)])[0].id
        pipeline = ExtractionPipeline(store, queue, clock, ids, DEFAULT_REGISTRY, ForgettingExtractor(forget))
        jobs = queue.claim_window(kind=EXTRACT, owner="w", now=clock.now(), lease_seconds=60, size=8,
                                  max_wait_seconds=0, flush=True)
        result = pipeline.process(jobs, owner="w")
        assert result.claims == () and result.rejected == 1
        record = next(s.event for s in store.read() if isinstance(s.event, ExtractionRecorded))
        assert record.rejected == (("user · preferred_ui_theme", (EVIDENCE_FORGOTTEN,)),)
        assert store.subject_claims("default", "user") == []
        assert store.get_observations([event])[event].forgotten

    # -- conflict decisions -------------------------------------------------------------------------

    def test_a_conflict_decision_refuses_a_candidate_on_forgotten_evidence(
            self, store: Storage, clock: FixedClock, ids: SequentialIds, events: tuple[str, str]) -> None:
        """Only a log from before the rule holds such an open conflict (a forget takes it)."""
        _live, gone = events
        store.append([ConflictOpened(
            event_id="lg_cf", stream_id="cf_legacy", version=1, recorded_at=T0, namespace="default",
            slot_key=slot_key("default", "user", "preferred_ui_theme", ()), existing=(), subject="user",
            predicate="preferred_ui_theme", value="dark", valid_from=T0, evidence=(gone,),
            reason="conflict.same_window_contradiction")])
        service = ConflictService(store, clock, ids, DEFAULT_REGISTRY)
        before = store.last_position()
        with pytest.raises(UnusableEvidence, match=EVIDENCE_FORGOTTEN):
            service.resolve("cf_legacy", "keep-new")
        assert store.last_position() == before
        assert service.resolve("cf_legacy", "keep-old").claim_id is None

    # -- import (the facade over this adapter) ---------------------------------------------------------

    def test_import_refuses_or_skips_lines_citing_forgotten_or_unknown_events(self, tmp_path: Path) -> None:
        with Memory(self.memory_path(tmp_path), embedder="none", now=T0) as mem:
            live = mem.add("I switched to dark mode", extract=False).id
            gone = mem.add("我喜欢深色主题", extract=False).id
            mem.forget(gone)
            lines = [
                '{"type": "observation", "text": "new turn", "id": "n1"}',
                '{"type": "claim", "subject": "user", "predicate": "theme", "value": "dark", "evidence": ["n1", "%s"]}'
                % live,
                '{"type": "claim", "subject": "user", "predicate": "likes", "value": "tea", "evidence": ["%s"]}' % gone,
                '{"type": "claim", "subject": "user", "predicate": "likes", "value": "咖啡", "evidence": ["ev_nope"]}',
            ]
            before = mem.storage.last_position()
            refused = mem.import_jsonl(lines, extract=False)
            assert refused.written == 0 and mem.storage.last_position() == before
            assert refused.errors == (f"line 3: evidence {gone} was forgotten (evidence.forgotten)",
                                      "line 4: evidence ev_nope names no event (evidence.unknown)")
            skipped = mem.import_jsonl(lines, extract=False, skip_invalid=True)
            assert skipped.written == 2 and len(skipped.errors) == 2
            values = {c.value for c in mem.storage.subject_claims("default", "user")}
            assert values == {"dark"}

    def test_import_blocks_a_claim_resting_only_on_a_blocked_line_of_the_file(self, tmp_path: Path) -> None:
        with Memory(self.memory_path(tmp_path), embedder="none", now=T0) as mem:
            mem.forget(mem.add("我喜欢深色主题", extract=False).id)
            lines = ['{"type": "observation", "text": "我喜欢深色主题", "id": "old"}',
                     '{"type": "claim", "subject": "user", "predicate": "theme", "value": "深色", "evidence": ["old"]}',
                     '{"type": "observation", "text": "fresh", "id": "new"}']
            report = mem.import_jsonl(lines, extract=False)
            assert report.errors == () and report.written == 1
            assert report.blocked[0] == "line 1: blocked: forgotten content"
            # The evidence is named by the line it stands for (its event id was never made).
            assert report.blocked[1] == "line 2: blocked: evidence line 1 was forgotten (evidence.forgotten)"
            assert mem.storage.subject_claims("default", "user") == []


class TestInMemoryEvidence(InMemoryStore, EvidenceContract):
    pass


class TestSQLiteEvidence(SQLiteStore, EvidenceContract):
    pass


# --- PostgreSQL (adapters/postgres/, issue 18): the same suite on a fresh database per test ----------


class TestPostgresEvidence(PostgresStore, EvidenceContract):
    pass
