"""``rerank_items``: the reranked head, stable ties, the top_n boundary, and the fallback to the fused order."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import pytest
from attrs import frozen
from hypothesis import given
from hypothesis import strategies as st

from hlmem.application.ports import Reranker
from hlmem.application.recall import RecallItem
from hlmem.application.reranking import DEFAULT_TOP_N, RerankOutcome, rerank_items
from hlmem.domain.errors import (
    MalformedResponse,
    ProviderRejected,
    ProviderTimeout,
    ProviderUnavailable,
    ValidationError,
)

QUERY = "which theme does the user prefer"


@frozen
class RerankCall:
    query: str
    texts: tuple[str, ...]


class FakeReranker:
    """Scores each text with ``handler(query, text)``, or answers with ``answer(query, texts)``; records calls."""

    def __init__(self, handler: Callable[[str, str], float] | None = None, *,
                 answer: Callable[[str, Sequence[str]], object] | None = None) -> None:
        self._handler = handler
        self._answer = answer
        self.calls: list[RerankCall] = []

    @property
    def model_id(self) -> str:
        return "fake:reranker"

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        self.calls.append(RerankCall(query, tuple(texts)))
        if self._answer is not None:
            return self._answer(query, texts)  # type: ignore[return-value]
        assert self._handler is not None
        return [self._handler(query, text) for text in texts]


class FailingReranker(FakeReranker):
    """Raises ``error`` on every call (after recording it)."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(lambda q, t: 0.0)
        self._error = error

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        self.calls.append(RerankCall(query, tuple(texts)))
        raise self._error


@frozen
class Item:
    id: str
    text: str


def items(*texts: str) -> list[Item]:
    return [Item(f"i{n}", text) for n, text in enumerate(texts)]


def by_table(table: dict[str, float]) -> FakeReranker:
    return FakeReranker(lambda _q, text: table[text])


def ids(outcome: RerankOutcome) -> list[str]:
    return [item.id for item in outcome.items]


# --- reordering -------------------------------------------------------------------------------


def test_the_head_is_reordered_by_score() -> None:
    fused = items("dark mode", "light mode", "font size")
    reranker = by_table({"dark mode": 0.2, "light mode": 0.9, "font size": -1.5})
    outcome = rerank_items(QUERY, fused, reranker)
    assert ids(outcome) == ["i1", "i0", "i2"]
    assert outcome.reranked and outcome.note is None
    assert outcome.scores == (0.9, 0.2, -1.5)
    assert reranker.calls == [RerankCall(QUERY, ("dark mode", "light mode", "font size"))]


def test_the_fake_satisfies_the_port() -> None:
    assert isinstance(FakeReranker(lambda q, t: 0.0), Reranker)


def test_ties_keep_the_fused_order() -> None:
    fused = items("a", "b", "c", "d", "e")
    outcome = rerank_items(QUERY, fused, by_table({"a": 0.5, "b": 0.9, "c": 0.5, "d": 0.9, "e": 0.5}))
    assert ids(outcome) == ["i1", "i3", "i0", "i2", "i4"]


def test_unscored_texts_go_after_the_scored_ones_in_fused_order() -> None:
    fused = items("a", "b", "c", "d")
    outcome = rerank_items(QUERY, fused, by_table({"a": -math.inf, "b": 0.1, "c": -math.inf, "d": -3.0}))
    assert ids(outcome) == ["i1", "i3", "i0", "i2"]
    assert outcome.reranked


def test_integer_and_infinite_scores_are_numbers_too() -> None:
    outcome = rerank_items(QUERY, items("a", "b"), FakeReranker(answer=lambda q, t: [1, math.inf]))
    assert ids(outcome) == ["i1", "i0"] and outcome.scores == (math.inf, 1.0)


def test_recall_items_are_judged_by_their_text_by_default() -> None:
    fused = [RecallItem(id="cl_1", kind="claim", text="user · preferred_ui_theme · 深色", score=0.03),
             RecallItem(id="cl_2", kind="claim", text="user · preferred_ui_theme · 浅色", score=0.02)]
    reranker = FakeReranker(lambda _q, text: 1.0 if "浅色" in text else 0.0)
    outcome = rerank_items("现在偏好什么主题", fused, reranker)
    assert [i.id for i in outcome.items] == ["cl_2", "cl_1"]
    assert reranker.calls[0].texts == (fused[0].text, fused[1].text)


def test_a_custom_text_of() -> None:
    fused = items("x", "y")
    reranker = FakeReranker(lambda _q, text: float(len(text)))
    outcome = rerank_items(QUERY, fused, reranker, text_of=lambda item: item.id * (2 if item.id == "i1" else 1))
    assert reranker.calls[0].texts == ("i0", "i1i1") and ids(outcome) == ["i1", "i0"]


# --- the top_n boundary -----------------------------------------------------------------------


def test_only_the_first_top_n_are_sent_and_the_rest_keep_their_fused_order_after_them() -> None:
    fused = items("a", "b", "c", "d", "e")
    reranker = by_table({"a": 0.1, "b": 0.2, "c": 0.3, "d": 9.0, "e": 8.0})
    outcome = rerank_items(QUERY, fused, reranker, top_n=3)
    assert reranker.calls[0].texts == ("a", "b", "c")
    assert ids(outcome) == ["i2", "i1", "i0", "i3", "i4"]  # d and e score higher but were not sent
    assert outcome.scores == (0.3, 0.2, 0.1, None, None)


@pytest.mark.parametrize("top_n", [4, 5, 50])
def test_top_n_at_or_over_the_length_sends_everything(top_n: int) -> None:
    fused = items("a", "b", "c", "d")
    reranker = by_table({"a": 0.1, "b": 0.2, "c": 0.3, "d": 0.4})
    assert ids(rerank_items(QUERY, fused, reranker, top_n=top_n)) == ["i3", "i2", "i1", "i0"]
    assert len(reranker.calls[0].texts) == 4


def test_top_n_of_one_sends_one_and_changes_nothing() -> None:
    fused = items("a", "b", "c")
    reranker = by_table({"a": 0.1, "b": 5.0, "c": 5.0})
    outcome = rerank_items(QUERY, fused, reranker, top_n=1)
    assert ids(outcome) == ["i0", "i1", "i2"] and outcome.reranked and outcome.scores == (0.1, None, None)


def test_the_default_top_n_is_thirty() -> None:
    fused = [Item(f"i{n}", f"t{n}") for n in range(40)]
    reranker = FakeReranker(lambda _q, text: -float(text[1:]))
    outcome = rerank_items(QUERY, fused, reranker)
    assert DEFAULT_TOP_N == 30 and len(reranker.calls[0].texts) == 30
    assert ids(outcome) == [f"i{n}" for n in range(40)]


@pytest.mark.parametrize("top_n", [0, -1, True, 1.5, "3"])
def test_a_bad_top_n_is_refused(top_n: object) -> None:
    with pytest.raises(ValidationError) as info:
        rerank_items(QUERY, items("a"), by_table({"a": 1.0}), top_n=top_n)  # type: ignore[arg-type]
    assert info.value.field == "top_n"


# --- off, empty -------------------------------------------------------------------------------


def test_no_reranker_means_reranking_is_off() -> None:
    fused = items("a", "b")
    outcome = rerank_items(QUERY, fused, None)
    assert outcome == RerankOutcome(tuple(fused), reranked=False, note=None, scores=(None, None))


def test_empty_input_calls_nothing() -> None:
    reranker = by_table({})
    assert rerank_items(QUERY, [], reranker) == RerankOutcome((), reranked=False, note=None, scores=())
    assert reranker.calls == []


# --- failure falls back to the fused order ----------------------------------------------------


@pytest.mark.parametrize(
    "error",
    [ProviderTimeout("cohere: no rerank answer within 5 s", provider="cohere"),
     ProviderUnavailable("server error", status=503), ProviderRejected("bad key", status=401),
     MalformedResponse("not a rerank answer"), RuntimeError("plugin crashed"), KeyError("scores"),
     ConnectionResetError("reset")],
    ids=lambda e: type(e).__name__,
)
def test_any_reranker_error_keeps_the_fused_order_with_a_note(error: Exception) -> None:
    fused = items("a", "b", "c")
    reranker = FailingReranker(error)
    outcome = rerank_items(QUERY, fused, reranker, top_n=2)
    assert ids(outcome) == ["i0", "i1", "i2"]
    assert not outcome.reranked and outcome.scores == (None, None, None)
    assert outcome.note == f"rerank failed ({type(error).__name__}): fused order kept"
    assert len(reranker.calls) == 1


def test_an_interrupt_is_not_swallowed() -> None:
    with pytest.raises(KeyboardInterrupt):
        rerank_items(QUERY, items("a"), FailingReranker(KeyboardInterrupt()))


@pytest.mark.parametrize(
    ("answer", "why"),
    [([0.1], "bad scores: 1 for 2 texts"), ([0.1, 0.2, 0.3], "bad scores: 3 for 2 texts"),
     ([0.1, math.nan], "bad scores: NaN"), ([0.1, "0.2"], "bad scores: not all numbers"),
     ([True, False], "bad scores: not all numbers"), ([0.1, None], "bad scores: not all numbers"),
     (None, "bad scores: not a list"), (0.5, "bad scores: not a list")],
)
def test_scores_that_do_not_fit_keep_the_fused_order(answer: object, why: str) -> None:
    outcome = rerank_items(QUERY, items("a", "b"), FakeReranker(answer=lambda q, t: answer))
    assert ids(outcome) == ["i0", "i1"] and not outcome.reranked
    assert outcome.note == f"rerank failed ({why}): fused order kept"


# --- a property over any scores and any top_n -------------------------------------------------


@given(scores=st.lists(st.floats(allow_nan=False), max_size=12), top_n=st.integers(1, 15))
def test_the_outcome_is_a_permutation_with_a_sorted_head_and_an_untouched_tail(scores: list[float],
                                                                               top_n: int) -> None:
    fused = [Item(f"i{n}", str(n)) for n in range(len(scores))]
    outcome = rerank_items(QUERY, fused, FakeReranker(lambda _q, text: scores[int(text)]), top_n=top_n)
    assert sorted(ids(outcome)) == sorted(item.id for item in fused)
    head = min(top_n, len(fused))
    assert list(outcome.items[head:]) == fused[head:]
    head_scores = [scores[int(item.text)] for item in outcome.items[:head]]
    assert head_scores == sorted(head_scores, reverse=True)
    assert list(outcome.scores[:head]) == head_scores and set(outcome.scores[head:]) <= {None}
    # stable: among equal scores the fused order survives
    for a, b in zip(outcome.items[:head], outcome.items[1:head]):
        if scores[int(a.text)] == scores[int(b.text)]:
            assert int(a.text) < int(b.text)
