"""The Storage port's contract, written once and run against every adapter (style guide item 18).

``StorageContract`` holds the cases; each adapter subclasses it once with a ``make_store``
factory. A case that one adapter fails is re-declared in that adapter's class as a strict xfail
naming the bug, so the suite stays green while the bug is open and fails once it is fixed.
"""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest
from attrs import evolve
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hlmem.adapters.clock import FixedClock
from hlmem.adapters.embedders.hashing import HashEmbedder
from hlmem.adapters.ids import SequentialIds
from hlmem.adapters.memory import InMemoryStorage
from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.application.ports import Candidate, IndexEntry, Storage
from hlmem.application.recall import RecallService
from hlmem.application.writes import WriteService
from hlmem.domain.commands import AssertClaim, RecordObservation
from hlmem.domain.errors import ConcurrencyConflict, HlmemError, ModelMismatch, StorageError
from hlmem.domain.events import (
    ClaimAsserted,
    ClaimRetracted,
    ConflictOpened,
    ConflictResolved,
    ObservationRecorded,
    OriginClass,
    SessionKind,
)
from hlmem.domain.reducers import project
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY
from hlmem.domain.state import ClaimStatus, slot_key

UTC = timezone.utc
T0 = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
DAY = timedelta(days=1)

#: Query strings that are FTS5 syntax, or break naive quoting; text_candidates must take them all.
HOSTILE_QUERIES = [
    '"', '""', '"unterminated', "'", "*", "a*", "^start", "NEAR(a b)", "NEAR", "a AND", "OR", "NOT x",
    "AND OR NOT", "col:value", "items_fts:dark", "body:dark", "-dark", "+dark", "(dark", "dark)", "{a b}",
    "[x]", "dark OR", ":", ";", "\\", "\x00", "dark\x00theme", "\ud800", "a\udfffb", "🙂", "🇨🇳", "e\u0301",
    "'; DROP TABLE events; --", "%", "_", "?", "?1", "$x", "@x", ":x", "   ", "\n\t", "深色\"主题",
    "x" * 5000, "主题 " * 300, "\u200b", "\ufeff", "\u0301\u0301", "〇〇", "①②", "Ⅻ",
]


#: One word or phrase per script (and some case and diacritic traps); each must find itself.
SCRIPTS = [
    "dark mode", "深色主题", "λόγος", "ΛΌΓΟΣ", "Ёлка", "Straße", "İstanbul", "Łódź", "Příliš", "Tiếng Việt",
    "naïve café", "ﬁsh", "Ǣsir", "ǅemal", "हिन्दी", "ภาษาไทย", "العربية", "עברית", "한국어", "ひらがな", "カタカナ",
]


def obs_event(n: int, *, text: str = "note", version: int = 1, stream: str | None = None,
              namespace: str = "default", at: datetime = T0) -> ObservationRecorded:
    """A raw ObservationRecorded event (for appending without the write service)."""
    return ObservationRecorded(
        event_id=f"lg_raw{n}", stream_id=stream or f"ev_raw{n}", version=version, recorded_at=at,
        namespace=namespace, text=text, role="user", session_id="s1", origin_class=OriginClass.DIRECT_USER,
        session_kind=SessionKind.INTERACTIVE, occurred_at=at,
    )


def claim_event(n: int, *, value: str = "dark", stream: str | None = None, at: datetime = T0) -> ClaimAsserted:
    """A raw ClaimAsserted event."""
    return ClaimAsserted(
        event_id=f"lg_rawc{n}", stream_id=stream or f"cl_raw{n}", version=1, recorded_at=at,
        namespace="default", subject="user", predicate="preferred_ui_theme", value=value, valid_from=at,
    )


def snapshot(store: Storage) -> dict:
    """Everything observable through the port, for before/after comparisons."""
    events = list(store.read())
    claim_ids = [s.event.stream_id for s in events if s.event.stream_id.startswith("cl_")]
    obs_ids = [s.event.stream_id for s in events if s.event.stream_id.startswith("ev_")]
    return {
        "log": events,
        "last": store.last_position(),
        "claims": store.get_claims(claim_ids),
        "observations": store.get_observations(obs_ids),
        "counts": store.counts(),
        "search": sorted(c.item_id for c in store.text_candidates("default", "dark theme 深色 note", 50)),
        "context": sorted(c.item_id for c in store.context_candidates("default", "dark theme 深色 note", 50)),
    }


class StorageContract:
    """Cases every Storage adapter must pass. Subclasses supply ``make_store``."""

    def make_store(self, tmp_path: Path) -> Storage:
        raise NotImplementedError

    @pytest.fixture
    def store(self, tmp_path: Path):
        store = self.make_store(tmp_path)
        yield store
        store.close()

    @pytest.fixture
    def clock(self) -> FixedClock:
        return FixedClock(T0)

    @pytest.fixture
    def writes(self, store: Storage, clock: FixedClock) -> WriteService:
        return WriteService(store, clock, SequentialIds(), DEFAULT_REGISTRY)

    @pytest.fixture
    def vector_writes(self, store: Storage, clock: FixedClock) -> WriteService:
        return WriteService(store, clock, SequentialIds(), DEFAULT_REGISTRY, HashEmbedder(dim=64))

    # -- the log ----------------------------------------------------------------------------------

    def test_satisfies_the_protocol(self, store: Storage) -> None:
        assert isinstance(store, Storage)

    def test_empty_store(self, store: Storage) -> None:
        assert store.last_position() == 0
        assert list(store.read()) == []
        assert store.stream_version("cl_nothing") == 0
        assert store.counts()["events"] == 0
        assert store.vector_model() is None

    def test_append_and_read_keep_order_and_positions(self, store: Storage) -> None:
        batch = [obs_event(1), obs_event(2), obs_event(3, stream="ev_raw1", version=2)]
        assert store.append(batch[:2]) == 2
        assert store.append(batch[2:]) == 3
        stored = list(store.read())
        assert [s.position for s in stored] == [1, 2, 3]
        assert [s.event for s in stored] == batch
        assert store.last_position() == 3
        assert store.stream_version("ev_raw1") == 2
        assert store.stream_version("ev_raw2") == 1

    def test_read_after_and_limit(self, store: Storage) -> None:
        store.append([obs_event(i) for i in range(1, 8)])
        assert [s.position for s in store.read(after=2, limit=3)] == [3, 4, 5]
        assert [s.position for s in store.read(after=5)] == [6, 7]
        assert list(store.read(after=7)) == []
        assert list(store.read(limit=0)) == []

    def test_empty_append_writes_nothing(self, store: Storage) -> None:
        store.append([obs_event(1)])
        store.append([])
        assert store.last_position() == 1

    @pytest.mark.parametrize("version", [0, 2, 5])
    def test_first_event_of_a_stream_must_be_version_1(self, store: Storage, version: int) -> None:
        with pytest.raises(ConcurrencyConflict):
            store.append([obs_event(1, version=version)])
        assert store.last_position() == 0

    def test_taken_version_conflicts(self, store: Storage) -> None:
        store.append([obs_event(1)])
        with pytest.raises(ConcurrencyConflict):
            store.append([obs_event(2, stream="ev_raw1", version=1)])
        with pytest.raises(ConcurrencyConflict):
            store.append([obs_event(3, stream="ev_raw1", version=3)])  # a gap
        assert [s.event.event_id for s in store.read()] == ["lg_raw1"]

    def test_conflicting_batch_is_all_or_nothing(self, store: Storage, writes: WriteService) -> None:
        writes.record(RecordObservation(text="a dark note"))
        writes.remember(AssertClaim(subject="user", predicate="theme", value="dark"))
        before = snapshot(store)
        claim_id = next(iter(before["claims"]))
        batch = [obs_event(10, text="dark theme note"), claim_event(11, value="深色"),
                 ClaimRetracted(event_id="lg_x", stream_id=claim_id, version=1, recorded_at=T0, namespace="default")]
        with pytest.raises(ConcurrencyConflict):
            store.append(batch, {"ev_raw10": IndexEntry("dark theme note"), "cl_raw11": IndexEntry("深色")})
        assert snapshot(store) == before
        store.append(batch[:2])  # the store is still usable, and those ids were never taken
        assert store.last_position() == before["last"] + 2

    def test_duplicate_event_id_is_refused(self, store: Storage) -> None:
        store.append([obs_event(1), obs_event(2)])
        with pytest.raises(ConcurrencyConflict):
            store.append([evolve(obs_event(3, stream="ev_other"), event_id="lg_raw1")])
        assert store.last_position() == 2

    def test_failed_append_inside_a_transaction_leaves_no_partial_batch(self, store: Storage) -> None:
        store.append([obs_event(1)])
        with store.transaction():
            with pytest.raises(ConcurrencyConflict):
                store.append([obs_event(2), obs_event(3), obs_event(4, stream="ev_raw1", version=1)])
            # The caller handled the conflict; the batch must not have been half-written.
            assert store.last_position() == 1
        assert store.last_position() == 1
        assert store.get_observations(["ev_raw2", "ev_raw3"]) == {}

    def test_unencodable_text_is_stored_faithfully_or_refused_cleanly(self, store: Storage) -> None:
        event = obs_event(1, text="lone \ud800 surrogate")
        try:
            store.append([event])
        except HlmemError:
            assert store.last_position() == 0
        else:
            assert [s.event for s in store.read()] == [event]

    # -- transactions -----------------------------------------------------------------------------

    def test_transaction_rolls_back_on_exception(self, store: Storage, writes: WriteService) -> None:
        writes.remember(AssertClaim(subject="user", predicate="theme", value="dark"))
        before = snapshot(store)
        with pytest.raises(RuntimeError), store.transaction():
            writes.record(RecordObservation(text="dark theme note"))
            writes.remember(AssertClaim(subject="user", predicate="theme", value="light"))
            assert store.last_position() > before["last"]  # reads inside see their own writes
            raise RuntimeError("boom")
        assert snapshot(store) == before
        writes.remember(AssertClaim(subject="user", predicate="theme", value="light"))  # still usable
        assert store.counts()["claims"] == 2

    def test_nested_transactions_join_the_outer_one(self, store: Storage) -> None:
        with pytest.raises(KeyError), store.transaction():
            with store.transaction():
                store.append([obs_event(1)])
            assert store.last_position() == 1
            raise KeyError("outer fails after the inner block finished")
        assert store.last_position() == 0
        assert store.get_observations(["ev_raw1"]) == {}

    def test_write_batch_is_atomic(self, store: Storage, writes: WriteService) -> None:
        before = snapshot(store)
        with pytest.raises(ConcurrencyConflict):
            writes.write_batch([(RecordObservation(text="one"), None),
                                (RecordObservation(text="two", event_id="ev_dup"), None),
                                (RecordObservation(text="three", event_id="ev_dup"), None)])
        assert snapshot(store) == before

    def test_rollback_undoes_bind_vector_model(self, store: Storage) -> None:
        with pytest.raises(RuntimeError), store.transaction():
            store.bind_vector_model("model-a", 4)
            raise RuntimeError("boom")
        assert store.vector_model() is None
        store.bind_vector_model("model-b", 8)  # the rolled-back binding does not block another model
        assert store.vector_model() == ("model-b", 8)

    # -- projection queries -----------------------------------------------------------------------

    def test_get_claims_and_observations(self, store: Storage, writes: WriteService) -> None:
        ev = writes.record(RecordObservation(text="I prefer dark mode", session_id="s9", role="user")).id
        cl = writes.remember(AssertClaim(subject="user", predicate="theme", value="dark", evidence=(ev,))).id
        claims = store.get_claims([cl, "cl_missing", cl])
        assert list(claims) == [cl]
        claim = claims[cl]
        assert (claim.subject, claim.predicate, claim.value, claim.status) == (
            "user", "preferred_ui_theme", "dark", ClaimStatus.ACTIVE)
        assert claim.evidence == (ev,) and claim.version == 1
        obs = store.get_observations([ev, "ev_missing"])
        assert list(obs) == [ev]
        assert (obs[ev].text, obs[ev].session_id, obs[ev].recorded_at) == ("I prefer dark mode", "s9", T0)
        assert store.get_claims([]) == {} and store.get_observations([]) == {}
        assert store.get_claims([ev]) == {} and store.get_observations([cl]) == {}

    def test_slot_claims(self, store: Storage, writes: WriteService, clock: FixedClock) -> None:
        a = writes.remember(AssertClaim(subject="user", predicate="theme", value="dark")).id
        clock.advance(DAY)
        b = writes.remember(AssertClaim(subject="User ", predicate="preferred ui theme", value="light")).id
        other = writes.remember(AssertClaim(subject="user", predicate="version", value="1.2",
                                            coordinates=(("component", "jieba"),))).id
        writes.remember(AssertClaim(subject="user", predicate="theme", value="dark", namespace="work"))
        key = slot_key("default", "user", "preferred_ui_theme", ())
        got = {c.claim_id: c for c in store.slot_claims(key)}
        assert set(got) == {a, b}
        assert got[a].status is ClaimStatus.SUPERSEDED and got[a].superseded_by == b
        assert got[b].supersedes == (a,)
        assert [c.claim_id for c in store.slot_claims(slot_key("default", "user", "version",
                                                                   (("component", "jieba"),)))] == [other]
        assert store.slot_claims(slot_key("default", "user", "version", ())) == []

    def test_subject_claims(self, store: Storage, writes: WriteService) -> None:
        theme = writes.remember(AssertClaim(subject="Alice  Smith", predicate="theme", value="dark")).id
        likes = writes.remember(AssertClaim(subject="alice smith", predicate="likes", value="tea")).id
        writes.remember(AssertClaim(subject="alice smith", predicate="likes", value="tea", namespace="work"))
        writes.remember(AssertClaim(subject="bob", predicate="likes", value="tea"))
        assert {c.claim_id for c in store.subject_claims("default", "ALICE SMITH")} == {theme, likes}
        assert [c.claim_id for c in store.subject_claims("default", "alice smith", "likes")] == [likes]
        assert [c.claim_id for c in store.subject_claims("default", "alice smith", "preferred ui-theme")] == [theme]
        assert store.subject_claims("default", "nobody") == []
        assert len(store.subject_claims("work", "alice smith")) == 1

    def test_stored_subjects_answers_as_subject_claims_does_in_one_read(self, store: Storage,
                                                                        writes: WriteService) -> None:
        writes.remember(AssertClaim(subject="Alice  Smith", predicate="theme", value="dark"))
        writes.remember(AssertClaim(subject="bob", predicate="likes", value="tea", namespace="work"))
        writes.retract(writes.remember(AssertClaim(subject="Carol", predicate="likes", value="tea")).id)
        asked = ["ALICE SMITH", "alice smith", "bob", "carol", "nobody", ""]
        assert store.stored_subjects("default", asked) == {"ALICE SMITH", "alice smith", "carol"}
        assert store.stored_subjects("default", asked) == {s for s in asked if store.subject_claims("default", s)}
        assert store.stored_subjects("work", asked) == {"bob"}
        assert store.stored_subjects("default", []) == set()

    def test_claims_citing(self, store: Storage, writes: WriteService) -> None:
        e1 = writes.record(RecordObservation(text="one")).id
        e2 = writes.record(RecordObservation(text="two")).id
        c1 = writes.remember(AssertClaim(subject="user", predicate="likes", value="tea", evidence=(e1,))).id
        c2 = writes.remember(AssertClaim(subject="user", predicate="lives_in", value="Berlin", evidence=(e1, e2))).id
        # Corroboration adds evidence to the existing claim.
        assert writes.remember(AssertClaim(subject="user", predicate="likes", value="Tea", evidence=(e2,))).id == c1
        assert store.claims_citing(e1) == sorted([c1, c2])
        assert store.claims_citing(e2) == sorted([c1, c2])
        assert store.claims_citing("ev_nobody") == []
        assert store.get_claims([c1])[c1].evidence == (e1, e2)

    def test_counts(self, store: Storage, writes: WriteService, clock: FixedClock) -> None:
        writes.record(RecordObservation(text="one"))
        a = writes.remember(AssertClaim(subject="user", predicate="theme", value="dark")).id
        clock.advance(DAY)
        writes.remember(AssertClaim(subject="user", predicate="theme", value="light"))
        writes.remember(AssertClaim(subject="user", predicate="likes", value="tea"))
        writes.retract(writes.remember(AssertClaim(subject="user", predicate="likes", value="coffee")).id)
        counts = store.counts()
        assert counts["events"] == store.last_position() == 7
        assert counts["observations"] == 1
        assert counts["claims"] == 4
        assert counts["claims_active"] == 2 and counts["claims_superseded"] == 1 and counts["claims_retracted"] == 1
        assert counts["vectors"] == 0
        assert store.get_claims([a])[a].version == 2

    # -- time -------------------------------------------------------------------------------------

    def test_visible_follows_both_clocks(self, store: Storage, writes: WriteService, clock: FixedClock) -> None:
        ev = writes.record(RecordObservation(text="dark please")).id
        a = writes.remember(AssertClaim(subject="user", predicate="theme", value="dark")).id
        clock.advance(10 * DAY)
        t1 = clock.now()
        b = writes.remember(AssertClaim(subject="user", predicate="theme", value="light")).id
        clock.advance(10 * DAY)
        t2 = clock.now()
        # A late fact: from T0 - 5 days the user had a blue theme (it lands before `a`).
        c = writes.remember(AssertClaim(subject="user", predicate="theme", value="blue", valid_from=T0 - 5 * DAY)).id
        ids = [a, b, c, ev, "cl_missing", "ev_missing"]
        eps = timedelta(microseconds=1)
        cases = [
            # (valid_at, known_at) -> visible
            ((T0, T0), {a, ev}),
            ((T0 - eps, T0), set()),             # the event had not happened yet (occurred_at T0)
            ((t1, t1 - eps), {a, ev}),           # as known before b: a still open-ended
            ((t1 - eps, t1), {a, ev}),
            ((t1, t1), {b, ev}),
            ((T0, t2 + eps), {a, ev}),
            ((T0 - DAY, t2 - eps), set()),        # the late fact was not known yet
            ((T0 - DAY, t2), {c}),
            ((T0 - 6 * DAY, t2), set()),
            ((t2, T0 - eps), set()),              # before anything was recorded
        ]
        for (valid_at, known_at), expected in cases:
            assert store.visible(ids, valid_at, known_at) == expected, (valid_at, known_at)
        assert store.visible([], T0, T0) == set()

    def test_retracted_claim_leaves_now_but_stays_in_the_past(self, store: Storage, writes: WriteService,
                                                              clock: FixedClock) -> None:
        a = writes.remember(AssertClaim(subject="user", predicate="likes", value="tea")).id
        clock.advance(DAY)
        writes.retract(a, "wrong")
        assert store.visible([a], clock.now(), clock.now()) == set()
        assert store.visible([a], clock.now(), T0) == {a}
        assert store.get_claims([a])[a].status is ClaimStatus.RETRACTED

    # -- search -----------------------------------------------------------------------------------

    def test_text_candidates_english_and_chinese(self, store: Storage, writes: WriteService) -> None:
        en = writes.record(RecordObservation(text="The user prefers a dark theme in the editor")).id
        zh = writes.record(RecordObservation(text="用户偏好深色主题，晚上用")).id
        cl = writes.remember(AssertClaim(subject="用户", predicate="theme", value="深色")).id
        writes.record(RecordObservation(text="dark theme 深色主题", namespace="work"))
        writes.record(RecordObservation(text="nothing related at all"))

        def found(query: str, limit: int = 20) -> list[Candidate]:
            return store.text_candidates("default", query, limit)

        assert {c.item_id for c in found("dark theme")} == {en, cl}  # the claim's labels say "theme"
        assert {c.item_id for c in found("深色")} == {zh, cl}
        assert {c.item_id for c in found("主题")} == {zh, cl}
        assert {c.item_id for c in found("EDITOR")} == {en}
        kinds = {c.item_id: c.kind for c in found("dark 深色")}
        assert kinds == {en: "event", zh: "event", cl: "claim"}
        ranked = found("dark 深色 theme")
        assert [c.rank for c in ranked] == list(range(1, len(ranked) + 1))
        assert [c.score for c in ranked] == sorted((c.score for c in ranked), reverse=True)
        assert len(found("dark 深色 theme", limit=1)) == 1
        assert found("dark", limit=0) == []
        assert found("zzzunknown") == []
        assert len(store.text_candidates("work", "深色", 20)) == 1
        assert store.text_candidates("nobody", "dark", 20) == []

    def test_prepare_index_is_a_hint_that_writes_nothing(self, store: Storage, writes: WriteService) -> None:
        texts = ["用户偏好深色主题", "dark theme v1.2", "", "🙂 ¸", "\ud800 lone surrogate"]
        store.prepare_index(texts)  # outside any transaction, any text: never raises
        store.prepare_index(())
        assert store.last_position() == 0 and store.counts()["events"] == 0
        zh = writes.record(RecordObservation(text=texts[0])).id
        assert {c.item_id for c in store.text_candidates("default", "深色", 20)} == {zh}

    def test_context_candidates_read_each_turn_with_its_neighbours_and_date(self, store: Storage,
                                                                            writes: WriteService,
                                                                            clock: FixedClock) -> None:
        def say(text: str, session: str = "chat", **kw) -> str:
            clock.advance(timedelta(seconds=1))
            return writes.record(RecordObservation(text=text, session_id=session, **kw)).id

        question = say("How long have you been painting?")
        answer = say("Seven years now", role="assistant")
        later = say("Nice. 我们周末去爬山吧", occurred_at=datetime(2023, 5, 8, 12, tzinfo=UTC))
        other = say("painting the fence", session="other")
        say("painting is fun", session="chat", namespace="work")
        claim = writes.remember(AssertClaim(subject="user", predicate="hobby", value="painting")).id

        def found(query: str, limit: int = 20) -> list[Candidate]:
            return store.context_candidates("default", query, limit)

        # The reply is found by the words of the question before it; the question by the reply's.
        assert {c.item_id for c in found("painting")} == {question, answer, other}
        assert {c.item_id for c in found("seven years")} == {question, answer, later}
        assert {c.item_id for c in found("爬山")} == {answer, later}
        # The days its turns were said, in English and Chinese words (a pair holds both turns' days).
        assert {c.item_id for c in found("May 2023")} == {answer, later}
        assert {c.item_id for c in found("2023年5月8日")[:2]} == {answer, later}  # 年, 月, 日 are in every date
        hits = found("painting years")
        assert all(not c.exact and c.kind == "event" for c in hits) and claim not in {c.item_id for c in hits}
        assert [c.rank for c in hits] == list(range(1, len(hits) + 1))
        assert found("painting", limit=0) == [] and found("zzzunknown") == []
        assert {c.item_id for c in store.context_candidates("work", "painting", 20)} != set()
        assert store.context_candidates("nobody", "painting", 20) == []

    def test_an_event_ranks_at_its_best_pair(self, store: Storage, writes: WriteService, clock: FixedClock) -> None:
        ids = []
        for text in ("alpha", "alpha beta gamma", "beta", "unrelated words here", "gamma"):
            clock.advance(timedelta(seconds=1))
            ids.append(writes.record(RecordObservation(text=text, session_id="s")).id)
        hits = store.context_candidates("default", "alpha beta gamma delta", 10)
        scores = [c.score for c in hits]
        assert scores == sorted(scores, reverse=True), "an item must sit at its best pair's rank"
        assert [c.rank for c in hits] == list(range(1, len(hits) + 1))
        # The second turn is in both of the two best pairs (alpha + alpha beta gamma, alpha beta gamma + beta).
        assert ids[1] in {c.item_id for c in hits[:2]} and {c.item_id for c in hits[:3]} == set(ids[:3])

    def test_speakers_are_the_roles_of_not_forgotten_events(self, store: Storage, writes: WriteService) -> None:
        assert store.speakers("default") == frozenset()
        writes.record(RecordObservation(text="hi", role="Caroline"))
        writes.record(RecordObservation(text="hello", role="Melanie"))
        writes.record(RecordObservation(text="yo", role="assistant", namespace="work"))
        writes.remember(AssertClaim(subject="Nate", predicate="hobby", value="games"))
        assert store.speakers("default") == {"Caroline", "Melanie"}
        assert store.speakers("work") == {"assistant"}
        assert store.speakers("nobody") == frozenset()
        writes.record(RecordObservation(text="again", role="Nate"))
        assert store.speakers("default") == {"Caroline", "Melanie", "Nate"}  # current after every write

    def test_sessions_of_maps_known_events_to_their_sessions(self, store: Storage, writes: WriteService) -> None:
        a = writes.record(RecordObservation(text="hi", session_id="s1")).id
        b = writes.record(RecordObservation(text="hello", session_id="s2", namespace="work")).id
        claim = writes.remember(AssertClaim(subject="Nate", predicate="hobby", value="games")).id
        assert store.sessions_of([a, b, claim, "ev_unknown", a]) == {a: "s1", b: "s2"}
        assert store.sessions_of([]) == {}

    @pytest.mark.parametrize("query", HOSTILE_QUERIES[:20], ids=range(20))
    def test_context_candidates_never_raise_on_hostile_queries(self, store: Storage, writes: WriteService,
                                                               query: str) -> None:
        writes.record(RecordObservation(text="dark theme 深色主题 NEAR col:value context_fts"))
        got = store.context_candidates("default", query, 10)
        assert all(isinstance(c, Candidate) for c in got)

    def test_text_candidates_break_score_ties_newest_first(self, store: Storage, writes: WriteService) -> None:
        # One turn said in several sessions scores the same everywhere: every adapter must hand
        # recall the same order (the machine found recall disagreeing when they did not).
        ids = [writes.record(RecordObservation(text="I use dark mode", session_id=f"s{n}")).id for n in range(4)]
        assert [c.item_id for c in store.text_candidates("default", "dark mode", 10)] == ids[::-1]

    def test_text_candidates_ignore_case_and_accents(self, store: Storage, writes: WriteService) -> None:
        cafe = writes.record(RecordObservation(text="Meet at the Café Noir")).id
        for query in ("café", "CAFÉ", "cafe", "Cafe noir"):
            assert [c.item_id for c in store.text_candidates("default", query, 5)] == [cafe], query

    def test_text_candidates_find_an_item_by_its_own_text_in_any_script(self, store: Storage,
                                                                        writes: WriteService) -> None:
        ids = {text: writes.record(RecordObservation(text=text)).id for text in SCRIPTS}
        missed = [text for text, item in ids.items()
                  if item not in {c.item_id for c in store.text_candidates("default", text, 50)}]
        assert missed == []

    @pytest.mark.parametrize("query", HOSTILE_QUERIES, ids=range(len(HOSTILE_QUERIES)))
    def test_text_candidates_never_raise_on_hostile_queries(self, store: Storage, writes: WriteService,
                                                            query: str) -> None:
        writes.record(RecordObservation(text="dark theme 深色主题 NEAR col:value items_fts"))
        got = store.text_candidates("default", query, 10)
        assert all(isinstance(c, Candidate) for c in got)

    def test_text_candidates_never_raise_on_any_text(self, store: Storage, writes: WriteService) -> None:
        writes.record(RecordObservation(text="dark theme 深色主题 e\u0301 😀 a*b \"q\""))

        @settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
        @given(st.text(max_size=80), st.integers(min_value=-1, max_value=60))
        def check(query: str, limit: int) -> None:
            got = store.text_candidates("default", query, limit)
            assert len(got) <= max(limit, 0)

        check()

    def test_vector_candidates_are_namespaced(self, store: Storage, vector_writes: WriteService) -> None:
        embedder = HashEmbedder(dim=64)
        mine = vector_writes.record(RecordObservation(text="dark theme in the editor")).id
        vector_writes.record(RecordObservation(text="dark theme in the editor", namespace="work"))
        other = vector_writes.record(RecordObservation(text="groceries: milk, eggs")).id
        assert store.vector_model() == (embedder.model_id, 64)
        query = embedder.embed_queries(["dark theme in the editor"])[0].astype("<f4").tobytes()
        got = store.vector_candidates("default", query, 10)
        assert [c.item_id for c in got] == [mine, other]
        assert [c.rank for c in got] == [1, 2]
        assert got[0].score == pytest.approx(1.0, abs=1e-5)
        assert [c.kind for c in got] == ["event", "event"]
        assert len(store.vector_candidates("work", query, 10)) == 1
        assert store.vector_candidates("nobody", query, 10) == []
        assert len(store.vector_candidates("default", query, 1)) == 1
        assert store.counts()["vectors"] == 3

    def test_vector_search_is_vector_candidates_in_two_steps(self, store: Storage,
                                                              vector_writes: WriteService) -> None:
        assert store.vector_search("default", 10) is None  # no vectors yet
        for text in ("dark theme in the editor", "groceries: milk, eggs", "深色主题", "flight to Hangzhou"):
            vector_writes.record(RecordObservation(text=text))
        query = HashEmbedder(dim=64).embed_queries(["dark theme"])[0].astype("<f4").tobytes()
        search = store.vector_search("default", 3)
        assert search is not None
        assert search(query) == store.vector_candidates("default", query, 3)
        assert len(search(query)) == 3
        with pytest.raises(ModelMismatch):
            search(np.ones(32, "<f4").tobytes())

    def test_a_vector_search_runs_beside_other_reads_and_writes(self, store: Storage,
                                                                vector_writes: WriteService) -> None:
        """The function ``vector_search`` returns may run in another thread while this one reads and
        writes (recall's parallel vector search, ADR 0022); it gives what a search alone gives."""
        ids = [vector_writes.record(RecordObservation(text=f"note {i} about the dark theme {i % 7}")).id
               for i in range(40)]
        embedder = HashEmbedder(dim=64)
        queries = [embedder.embed_queries([f"dark theme {i}"])[0].astype("<f4").tobytes() for i in range(7)]
        expected = [store.vector_candidates("default", q, 10) for q in queries]
        errors: list[BaseException] = []
        got: list[list[list[Candidate]]] = [[], []]

        def searching(mine: list[list[Candidate]]) -> None:
            try:
                for _ in range(30):
                    for q in queries:
                        search = store.vector_search("default", 10)
                        mine.append(search(q))
            except BaseException as exc:  # noqa: BLE001 - reported by the main thread
                errors.append(exc)

        threads = [threading.Thread(target=searching, args=(mine,)) for mine in got]
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            assert store.text_candidates("default", "dark theme", 5)
            assert store.get_observations(ids[:3])
        for t in threads:
            t.join()
        assert errors == []
        assert got == [expected * 30, expected * 30]
        # A search prepared before a write still answers, with items it knows.
        search = store.vector_search("default", 10)
        vector_writes.record(RecordObservation(text="dark theme again"))
        assert {c.item_id for c in search(queries[0])} <= {*ids, *(c.item_id for c in store.vector_candidates(
            "default", queries[0], 50))}

    def test_vector_candidates_without_a_model(self, store: Storage) -> None:
        assert store.vector_candidates("default", np.zeros(8, "<f4").tobytes(), 5) == []

    def test_vector_of_the_wrong_size(self, store: Storage, vector_writes: WriteService) -> None:
        vector_writes.record(RecordObservation(text="dark theme"))
        with pytest.raises(ModelMismatch):
            store.vector_candidates("default", np.ones(32, "<f4").tobytes(), 5)
        with pytest.raises(StorageError):
            store.append([obs_event(1)], {"ev_raw1": IndexEntry("x", np.ones(32, "<f4").tobytes())})
        assert store.get_observations(["ev_raw1"]) == {}

    def test_vectors_need_a_bound_model(self, store: Storage) -> None:
        with pytest.raises(StorageError):
            store.append([obs_event(1)], {"ev_raw1": IndexEntry("x", np.ones(4, "<f4").tobytes())})
        assert store.last_position() == 0

    def test_bind_vector_model_refuses_another_model(self, store: Storage) -> None:
        store.bind_vector_model("hash-v1-64", 64)
        store.bind_vector_model("hash-v1-64", 64)  # idempotent
        with pytest.raises(ModelMismatch):
            store.bind_vector_model("e5-small", 64)
        with pytest.raises(ModelMismatch):
            store.bind_vector_model("hash-v1-64", 128)
        assert store.vector_model() == ("hash-v1-64", 64)

    def test_writer_with_another_model_writes_nothing(self, store: Storage, vector_writes: WriteService,
                                                      clock: FixedClock) -> None:
        vector_writes.record(RecordObservation(text="dark theme"))
        other = WriteService(store, clock, SequentialIds(100), DEFAULT_REGISTRY, HashEmbedder(dim=32))
        with pytest.raises(ModelMismatch):
            other.record(RecordObservation(text="light theme"))
        assert store.last_position() == 1

    def test_recall_end_to_end(self, store: Storage, writes: WriteService, clock: FixedClock) -> None:
        a = writes.remember(AssertClaim(subject="user", predicate="theme", value="dark")).id
        clock.advance(DAY)
        b = writes.remember(AssertClaim(subject="user", predicate="theme", value="light")).id
        recall = RecallService(store, clock)
        assert [i.id for i in recall.recall("theme").items] == [b]
        assert [i.id for i in recall.recall("theme", valid_at=T0, known_at=T0).items] == [a]


    # -- review queue (conflicts) ----------------------------------------------------------------

    def test_conflicts_are_projected(self, store: Storage) -> None:
        def opened(n: int, ns: str = "default", at: datetime = T0) -> ConflictOpened:
            return ConflictOpened(
                event_id=f"lg_cf{n}", stream_id=f"cf_{n}", version=1, recorded_at=at, namespace=ns,
                slot_key=slot_key(ns, "user", "lives_in", ()), existing=("cl_1",), subject="user",
                predicate="lives_in", value="上海", qualifiers=(("reason", "moved"),), valid_from=at - DAY,
                valid_to=at + DAY, evidence=("ev_1",), reason="conflict.same_window_contradiction",
            )

        events = [opened(1, at=T0 + DAY), opened(2), opened(3, ns="work"),
                  ConflictResolved(event_id="lg_r1", stream_id="cf_1", version=2, recorded_at=T0 + 2 * DAY,
                                   namespace="default", decision="keep-new", claim_id="cl_9")]
        store.append(events)
        expected = project(events).conflicts
        got = store.get_conflicts(["cf_1", "cf_2", "cf_3", "cf_missing"])
        assert got == dict(expected)
        assert got["cf_1"].status == "resolved" and got["cf_1"].decision == "keep-new"
        assert got["cf_1"].version == 2 and got["cf_1"].resolved_at == T0 + 2 * DAY
        assert [c.conflict_id for c in store.conflicts("default")] == ["cf_2"]
        assert [c.conflict_id for c in store.conflicts("default", None)] == ["cf_2", "cf_1"]  # oldest first
        assert [c.conflict_id for c in store.conflicts("default", "resolved")] == ["cf_1"]
        assert [c.conflict_id for c in store.conflicts("work")] == ["cf_3"]
        counts = store.counts()
        assert counts["conflicts_open"] == 2 and counts["conflicts_resolved"] == 1
        with pytest.raises(ConcurrencyConflict):
            store.append([evolve(events[-1], event_id="lg_r2")])  # resolved twice from the same version

    # -- items and re-embedding -------------------------------------------------------------------

    def test_items_lists_every_searchable_item(self, store: Storage, writes: WriteService,
                                               clock: FixedClock) -> None:
        ev = writes.record(RecordObservation(text="dark please")).id
        a = writes.remember(AssertClaim(subject="user", predicate="theme", value="dark")).id
        clock.advance(DAY)
        b = writes.remember(AssertClaim(subject="user", predicate="theme", value="light")).id
        writes.retract(b)
        work = writes.record(RecordObservation(text="elsewhere", namespace="work")).id
        assert list(store.items()) == [(ev, "event"), (a, "claim"), (b, "claim"), (work, "event")]

    def test_replace_vectors_swaps_model_and_vectors(self, store: Storage, vector_writes: WriteService) -> None:
        ids = [vector_writes.record(RecordObservation(text=t)).id for t in ("dark theme", "light theme", "tea")]
        assert store.vector_model() == ("hash-v1-64", 64)
        new = HashEmbedder(dim=16)
        texts = {"dark theme": ids[0], "light theme": ids[1]}  # the third item gets no new vector
        matrix = new.embed_passages(list(texts))
        assert store.replace_vectors("other-16", 16, [(i, row.astype("<f4").tobytes())
                                                      for i, row in zip(texts.values(), matrix)]) == 2
        assert store.vector_model() == ("other-16", 16)
        assert store.counts()["vectors"] == 2
        query = new.embed_queries(["dark theme"])[0].astype("<f4").tobytes()
        assert [c.item_id for c in store.vector_candidates("default", query, 10)] == [ids[0], ids[1]]
        with pytest.raises(ModelMismatch):
            store.bind_vector_model("hash-v1-64", 64)

    def test_replace_vectors_refuses_the_wrong_size_and_changes_nothing(self, store: Storage,
                                                                       vector_writes: WriteService) -> None:
        item = vector_writes.record(RecordObservation(text="dark theme")).id
        with pytest.raises(StorageError):
            store.replace_vectors("other-16", 16, [(item, np.ones(8, "<f4").tobytes())])
        assert store.vector_model() == ("hash-v1-64", 64)
        assert store.counts()["vectors"] == 1

    def test_replace_vectors_counts_only_stored_vectors(self, store: Storage, vector_writes: WriteService) -> None:
        item = vector_writes.record(RecordObservation(text="dark theme")).id
        vec = np.ones(4, "<f4").tobytes()
        stored = store.replace_vectors("other-4", 4, [(item, vec), ("ev_no_such_item", vec)])
        assert stored == store.counts()["vectors"] == 1


class TestInMemoryStorage(StorageContract):
    def make_store(self, tmp_path: Path) -> Storage:
        return InMemoryStorage()


class TestSQLiteStorage(StorageContract):
    def make_store(self, tmp_path: Path) -> Storage:
        return SQLiteStorage(tmp_path / "s.db")


# --- agreement between the adapters --------------------------------------------------------------

#: Latin letters with and without diacritics and ligatures, Chinese, digits, joiners and symbols:
#: the alphabet on which both adapters' full text must give the same hits (other scripts: see
#: test_text_candidates_find_an_item_by_its_own_text_in_any_script).
_FTS_ALPHABET = [*"abcAB éüßİøÆœ0123.-_:'/@ 深色主题上海中文", "e\u0301", "\u0301", "ﬁ", "Ａ", "①", "😀", "ǅ", "ä",
                 "\u00ad", "\u200b", "Ł", "ő", "ñ", "Ç"]
_fts_words = st.lists(st.sampled_from(_FTS_ALPHABET), min_size=1, max_size=8).map("".join)


def test_text_candidates_agree_across_adapters(tmp_path: Path) -> None:
    memory, sqlite = InMemoryStorage(), SQLiteStorage(tmp_path / "agree.db", synchronous="OFF")
    fresh = iter(range(10**9))

    @settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(st.lists(_fts_words, min_size=1, max_size=4), _fts_words)
    def check(docs: list[str], query: str) -> None:
        ns = f"n{next(fresh)}"  # a namespace per example keeps examples apart in shared stores
        events = [obs_event(i, text=d, namespace=ns, stream=f"ev_{ns}_{i}") for i, d in enumerate(docs)]
        events = [evolve(e, event_id=f"lg_{ns}_{i}") for i, e in enumerate(events)]
        index = {e.stream_id: IndexEntry(e.text) for e in events}
        memory.append(events, index)
        sqlite.append(events, index)
        assert ({c.item_id for c in sqlite.text_candidates(ns, query, 50)}
                == {c.item_id for c in memory.text_candidates(ns, query, 50)})

    try:
        check()
    finally:
        sqlite.close()
