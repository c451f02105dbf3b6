"""RecallService over the in-memory store with fakes: RRF fusion, filters, bounds and the two clocks (the
fusion arithmetic itself is tested in test_ranking.py)."""

from __future__ import annotations

import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from hlmem.application.ports import Candidate, Embedder
from hlmem.application.ranking import RankingConfig
from hlmem.application.recall import MAX_K, MAX_QUERY_CHARS, RecallService
from hlmem.domain.commands import AssertClaim, RecordObservation
from hlmem.domain.errors import InvalidTimestamp, ValidationError

_TESTS = str(Path(__file__).resolve().parents[2])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/fakes.py importable in any import mode
    sys.path.insert(0, _TESTS)

from fakes import FakeEmbedder, ScriptedSearchStorage, Services, keyword_handler, make_services  # noqa: E402

UTC = timezone.utc
T0 = datetime(2026, 3, 1, tzinfo=UTC)


def c(item_id: str, rank: int, kind: str = "claim") -> Candidate:
    return Candidate(item_id, kind, rank, 0.0)


# --- the service --------------------------------------------------------------------------------


def seed(services: Services) -> dict[str, str]:
    """An observation and two claims in the default namespace, one claim in another."""
    w = services.writes
    ids = {
        "event": w.record(RecordObservation(text="I switched to dark mode today")).id,
        "theme": w.remember(AssertClaim(subject="user", predicate="preferred_ui_theme", value="dark")).id,
        "city": w.remember(AssertClaim(subject="user", predicate="lives_in", value="Hangzhou")).id,
        "other": w.remember(AssertClaim(subject="user", predicate="preferred_ui_theme", value="dark",
                                        namespace="work")).id,
    }
    return ids


@pytest.fixture
def services() -> Services:
    return make_services(T0)


def test_fake_embedder_satisfies_the_port() -> None:
    assert isinstance(FakeEmbedder(), Embedder)


def test_service_fuses_text_and_vector_rankings_with_rrf() -> None:
    storage = ScriptedSearchStorage()
    embedder = FakeEmbedder(keyword_handler(["dark", "hangzhou"]))
    s = make_services(T0, storage=storage, embedder=embedder)
    ids = seed(s)
    storage.text_handler = lambda ns, q, limit: [c(ids["theme"], 1), c(ids["event"], 2, "event")]
    storage.vector_handler = lambda ns, v, limit: [c(ids["event"], 1, "event"), c(ids["city"], 2)]
    embedder.calls.clear()
    plain_rrf = RankingConfig(fusion="rrf", text_weight=1, vector_weight=1, context_weight=0, recency_weight=0,
                              importance_weight=0, usefulness_weight=0)

    result = RecallService(storage, s.clock, embedder, plain_rrf).recall("dark", k=10)

    assert [i.id for i in result.items] == [ids["event"], ids["theme"], ids["city"]]
    # Scaled by k + 1 = 61: a first rank counts its weight.
    assert [i.score for i in result.items] == pytest.approx([61 / 62 + 1, 1, 61 / 62])
    assert result.items[0].ranks == {"text": 2, "vector": 1}
    assert [(call.role, call.texts) for call in embedder.calls] == [("query", ("dark",))]  # one query embedding
    assert {(x.source, x.limit) for x in storage.searches} == {("text", 50), ("vector", 50)}


@pytest.mark.parametrize(("k", "pool"), [(1, 50), (10, 50), (11, 55), (200, 1000)])
def test_candidate_pool_grows_with_k(k: int, pool: int) -> None:
    storage = ScriptedSearchStorage(text=lambda ns, q, limit: [])
    s = make_services(T0, storage=storage)
    s.recall.recall("anything", k=k)
    assert storage.searches == [type(storage.searches[0])("text", "default", pool)]


def test_without_an_embedder_only_text_ranks(services: Services) -> None:
    ids = seed(services)
    items = services.recall.recall("dark").items
    assert {i.id for i in items} == {ids["event"], ids["theme"]}
    # Full text: the items' own words, and for events the conversational context too (ADR 0019).
    assert all(set(i.ranks) == ({"text", "context"} if i.kind == "event" else {"text"}) for i in items)


def test_vectors_written_with_the_fake_are_searched() -> None:
    embedder = FakeEmbedder(keyword_handler(["dark", "hangzhou"]))
    s = make_services(T0, embedder=embedder)
    ids = seed(s)
    assert embedder.texts("passage")  # writes embedded their texts
    items = s.recall.recall("杭州 Hangzhou", k=3).items
    assert items[0].id == ids["city"] and set(items[0].ranks) == {"text", "vector"}


@pytest.mark.parametrize(
    ("kinds", "expected"),
    [(("claim",), {"theme"}), (("event",), {"event"}), (("claim", "event"), {"theme", "event"})],
)
def test_kinds_filter(services: Services, kinds: tuple[str, ...], expected: set[str]) -> None:
    ids = seed(services)
    items = services.recall.recall("dark", kinds=kinds).items
    assert {i.id for i in items} == {ids[name] for name in expected}
    assert {i.kind for i in items} <= set(kinds)


def test_items_carry_what_the_cli_prints(services: Services) -> None:
    ids = seed(services)
    (claim,) = services.recall.recall("dark", kinds=("claim",)).items
    assert (claim.id, claim.subject, claim.predicate, claim.value, claim.status) == (
        ids["theme"], "user", "preferred_ui_theme", "dark", "active")
    assert (claim.valid_from, claim.valid_to, claim.recorded_from, claim.recorded_to) == (T0, None, T0, None)
    (event,) = services.recall.recall("dark", kinds=("event",)).items
    assert event.text == "I switched to dark mode today" and event.evidence == (ids["event"],)


def test_namespaces_are_isolated(services: Services) -> None:
    ids = seed(services)
    assert [i.id for i in services.recall.recall("dark", namespace="work").items] == [ids["other"]]
    assert services.recall.recall("dark", namespace="nobody").items == ()


@pytest.mark.parametrize("k", [1, 2, MAX_K])
def test_k_limits_the_items(services: Services, k: int) -> None:
    seed(services)
    assert len(services.recall.recall("dark", k=k).items) == min(k, 2)


@pytest.mark.parametrize("k", [0, -1, MAX_K + 1, 10**9, 2.5, "3", True])
def test_k_out_of_bounds_is_refused(services: Services, k: object) -> None:
    with pytest.raises(ValidationError) as info:
        services.recall.recall("dark", k=k)  # type: ignore[arg-type]
    assert info.value.field == "k"


@pytest.mark.parametrize("query", ["", "   ", "\n\t", None, "x" * (MAX_QUERY_CHARS + 1)])
def test_bad_query_is_refused(services: Services, query: object) -> None:
    with pytest.raises(ValidationError) as info:
        services.recall.recall(query)  # type: ignore[arg-type]
    assert info.value.field == "query"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"namespace": "no spaces"}, "namespace"), ({"kinds": ("claim", "note")}, "kinds"), ({"kinds": ()}, "kinds")],
)
def test_bad_filters_are_refused(services: Services, kwargs: dict, field: str) -> None:
    with pytest.raises(ValidationError) as info:
        services.recall.recall("dark", **kwargs)
    assert info.value.field == field


def test_several_bad_arguments_are_grouped(services: Services) -> None:
    with pytest.raises(ExceptionGroup) as info:
        services.recall.recall("", k=0, namespace="?")
    assert {e.field for e in info.value.exceptions} == {"query", "k", "namespace"}  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", ["valid_at", "known_at"])
def test_naive_instants_are_refused(services: Services, name: str) -> None:
    with pytest.raises(InvalidTimestamp):
        services.recall.recall("dark", **{name: datetime(2026, 3, 1)})


def test_longest_query_is_accepted(services: Services) -> None:
    seed(services)
    services.recall.recall("dark " + "x" * (MAX_QUERY_CHARS - 5))


def test_superseded_claim_leaves_current_recall_but_stays_in_the_past(services: Services) -> None:
    w, clock = services.writes, services.clock
    dark = w.remember(AssertClaim(subject="user", predicate="preferred_ui_theme", value="dark")).id
    clock.advance(timedelta(days=30))
    light = w.remember(AssertClaim(subject="user", predicate="preferred_ui_theme", value="light")).id

    now = services.recall.recall("theme", kinds=("claim",))
    assert [(i.id, i.value, i.status) for i in now.items] == [(light, "light", "active")]
    assert (now.valid_at, now.known_at) == (clock.now(), clock.now())

    past = services.recall.recall("theme", kinds=("claim",), valid_at=T0 + timedelta(days=10))
    assert [(i.id, i.status) for i in past.items] == [(dark, "superseded")]
    assert past.items[0].valid_to == T0 + timedelta(days=30)  # the row as known now: closed at the switch

    as_known_then = services.recall.recall("theme", kinds=("claim",), valid_at=T0 + timedelta(days=40),
                                           known_at=T0 + timedelta(days=10))
    assert [i.id for i in as_known_then.items] == [dark]
    assert as_known_then.items[0].valid_to is None  # the row believed then was still open

    before_anything = services.recall.recall("theme", known_at=T0 - timedelta(days=1))
    assert before_anything.items == ()


def test_events_are_visible_only_once_recorded(services: Services) -> None:
    ids = seed(services)
    items = services.recall.recall("dark", kinds=("event",), known_at=T0 - timedelta(seconds=1)).items
    assert ids["event"] not in {i.id for i in items}


# --- the vector search beside the full-text search (ADR 0022) ------------------------------------


class _ThreadNoting(FakeEmbedder):
    """A FakeEmbedder noting the thread of each query embedding; ``gate`` (when set up) holds it back."""

    def __init__(self, handler) -> None:
        super().__init__(handler)
        self.threads: list[str] = []
        self.gate: threading.Event | None = None
        self.fail = False
        self.finished = threading.Event()

    def embed_queries(self, texts):
        self.threads.append(threading.current_thread().name)
        try:
            if self.gate is not None:
                self.gate.wait(5)
            if self.fail:
                raise RuntimeError("the embedder is down")
            return super().embed_queries(texts)
        finally:
            self.finished.set()


QUERIES = ["dark", "theme", "Hangzhou", "dark mode today", "现在呢", "what did I switch to", "nothing at all"]


def test_an_executor_changes_where_the_vector_search_runs_not_what_recall_returns() -> None:
    embedder = _ThreadNoting(keyword_handler(["dark", "hangzhou", "theme"]))
    s = make_services(T0, embedder=embedder)
    seed(s)
    sequential = RecallService(s.storage, s.clock, embedder)
    with ThreadPoolExecutor(1, thread_name_prefix="beside") as pool:
        parallel = RecallService(s.storage, s.clock, embedder, executor=pool)
        embedder.threads.clear()
        for query in QUERIES:
            assert parallel.recall(query, k=5) == sequential.recall(query, k=5)
    assert embedder.threads == [name for _ in QUERIES for name in ("beside_0", threading.current_thread().name)]


def test_without_vectors_nothing_goes_to_the_executor() -> None:
    s = make_services(T0)
    seed(s)

    class Refusing(ThreadPoolExecutor):
        def submit(self, *args, **kwargs):
            raise AssertionError("a recall without vectors submitted work")

    with Refusing(1) as pool:
        assert RecallService(s.storage, s.clock, executor=pool).recall("dark").items


def test_a_failing_vector_search_in_the_executor_fails_the_recall_as_it_would_in_line() -> None:
    embedder = _ThreadNoting(keyword_handler(["dark"]))
    s = make_services(T0, embedder=embedder)
    seed(s)
    embedder.fail = True
    with pytest.raises(RuntimeError, match="the embedder is down"):
        RecallService(s.storage, s.clock, embedder).recall("dark")
    with ThreadPoolExecutor(1) as pool, pytest.raises(RuntimeError, match="the embedder is down"):
        RecallService(s.storage, s.clock, embedder, executor=pool).recall("dark")


def test_when_the_full_text_side_fails_the_recall_waits_for_its_vector_search() -> None:
    """No vector search outlives the recall that started it, even when that recall fails."""
    storage = ScriptedSearchStorage()
    embedder = _ThreadNoting(keyword_handler(["dark"]))
    s = make_services(T0, storage=storage, embedder=embedder)
    seed(s)
    embedder.gate = threading.Event()
    embedder.finished.clear()

    def broken(ns, q, limit):
        threading.Timer(0.05, embedder.gate.set).start()  # the vector side finishes a little after this fails
        raise RuntimeError("full text is down")

    storage.text_handler = broken
    with ThreadPoolExecutor(1) as pool, pytest.raises(RuntimeError, match="full text is down"):
        RecallService(storage, s.clock, embedder, executor=pool).recall("dark")
    assert embedder.finished.is_set()
