"""The SearchIndex role's contract, text half: full-text and context candidates, visibility, items; once per adapter.

The vector half is tests/contract/test_vector_search_contract.py.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest
from attrs import evolve
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hlmem.adapters.clock import FixedClock
from hlmem.adapters.inmemory.store import InMemoryStorage
from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.application.ports import Candidate, IndexEntry, SearchIndex, Storage
from hlmem.application.writes import WriteService
from hlmem.domain.commands import AssertClaim, RecordObservation
from hlmem.domain.state import ClaimStatus

from support.store_events import obs_event
from support.stores import DAY, T0, UTC, InMemoryStore, SQLiteStore, StoreContract
from support.stores import PostgresStore

#: Query strings that are FTS5 syntax, or break naive quoting; text_candidates must take them all.
HOSTILE_QUERIES = [
    '"', '""', '"unterminated', "'", "*", "a*", "^start", "NEAR(a b)", "NEAR", "a AND", "OR", "NOT x",
    "AND OR NOT", "col:value", "items_fts:dark", "body:dark", "-dark", "+dark", "(dark", "dark)", "{a b}",
    "[x]", "dark OR", ":", ";", "\\", "\x00", "dark\x00theme", "\ud800", "a\udfffb", "🙂", "🇨🇳", "e\u0301",
    "'; DROP TABLE events; --", "%", "_", "?", "?1", "$x", "@x", ":x", "   ", "\n\t", "深色\"主题",
    "x" * 5000, "主题 " * 300, "\u200b", "\ufeff", "\u0301\u0301", "〇〇", "①②", "Ⅻ",
]


def _each_query(queries, search) -> None:
    """Every query searched on one store (a store per query would cost a database each on
    PostgreSQL): none raises, each gives candidates; the failures are named by their query."""
    failed = {}
    for query in queries:
        try:
            got = search(query)
            assert all(isinstance(c, Candidate) for c in got), got
        except Exception as exc:  # noqa: BLE001 - collected and reported with the query
            failed[query[:40]] = repr(exc)[:200]
    assert failed == {}, failed


#: One word or phrase per script (and some case and diacritic traps); each must find itself.
SCRIPTS = [
    "dark mode", "深色主题", "λόγος", "ΛΌΓΟΣ", "Ёлка", "Straße", "İstanbul", "Łódź", "Příliš", "Tiếng Việt",
    "naïve café", "ﬁsh", "Ǣsir", "ǅemal", "हिन्दी", "ภาษาไทย", "العربية", "עברית", "한국어", "ひらがな", "カタカナ",
]


class SearchContract(StoreContract):
    """Cases every adapter's search index must pass (text, context, visibility)."""

    def test_satisfies_the_role(self, store: Storage) -> None:
        assert isinstance(store, SearchIndex)

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

    def test_context_candidates_never_raise_on_hostile_queries(self, store: Storage, writes: WriteService) -> None:
        writes.record(RecordObservation(text="dark theme 深色主题 NEAR col:value context_fts"))
        _each_query(HOSTILE_QUERIES[:20], lambda query: store.context_candidates("default", query, 10))

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

    def test_text_candidates_never_raise_on_hostile_queries(self, store: Storage, writes: WriteService) -> None:
        writes.record(RecordObservation(text="dark theme 深色主题 NEAR col:value items_fts"))
        _each_query(HOSTILE_QUERIES, lambda query: store.text_candidates("default", query, 10))

    def test_text_candidates_never_raise_on_any_text(self, store: Storage, writes: WriteService) -> None:
        writes.record(RecordObservation(text="dark theme 深色主题 e\u0301 😀 a*b \"q\""))

        @settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
        @given(st.text(max_size=80), st.integers(min_value=-1, max_value=60))
        def check(query: str, limit: int) -> None:
            got = store.text_candidates("default", query, limit)
            assert len(got) <= max(limit, 0)

        check()

    def test_items_lists_every_searchable_item(self, store: Storage, writes: WriteService,
                                               clock: FixedClock) -> None:
        ev = writes.record(RecordObservation(text="dark please")).id
        a = writes.remember(AssertClaim(subject="user", predicate="theme", value="dark")).id
        clock.advance(DAY)
        b = writes.remember(AssertClaim(subject="user", predicate="theme", value="light")).id
        writes.retract(b)
        work = writes.record(RecordObservation(text="elsewhere", namespace="work")).id
        assert list(store.items()) == [(ev, "event"), (a, "claim"), (b, "claim"), (work, "event")]


class TestInMemorySearch(InMemoryStore, SearchContract):
    pass


class TestSQLiteSearch(SQLiteStore, SearchContract):
    pass


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


# --- PostgreSQL (adapters/postgres/, issue 18): the same suite on a fresh database per test ----------


class TestPostgresSearch(PostgresStore, SearchContract):
    pass
