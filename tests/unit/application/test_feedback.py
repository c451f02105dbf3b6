"""Pseudo-relevance feedback on the vector side (ADR 0054): the Rocchio vector, its fusion as the
``feedback`` source, the floor for what only it found, and the recall stage that runs it."""

from __future__ import annotations

import math
import sys
from array import array
from datetime import datetime, timezone
from pathlib import Path

import pytest

from hlmem.application.feedback import rocchio
from hlmem.application.ports import Candidate
from hlmem.application.ranking import RankingConfig, apply_floor, fuse
from hlmem.application.recall import RecallService
from hlmem.domain.commands import RecordObservation

_TESTS = str(Path(__file__).resolve().parents[2])
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

from fakes import FakeEmbedder, ScriptedSearchStorage, keyword_handler, make_services  # noqa: E402

T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)
PLAIN = RankingConfig(recency_weight=0, current_recency_weight=0, importance_weight=0, usefulness_weight=0,
                      context_weight=0, text_weight=0.4, vector_weight=0.5, feedback_weight=0.3)


def f32(*xs: float) -> bytes:
    return array("f", xs).tobytes()


def floats(raw: bytes) -> list[float]:
    return list(array("f", raw))


def v(item_id: str, rank: int, score: float) -> Candidate:
    return Candidate(item_id, "event", rank, score)


# --- the Rocchio vector ---------------------------------------------------------------------------


def test_rocchio_moves_the_unit_query_towards_the_mean_and_stays_unit_length() -> None:
    moved = floats(rocchio(f32(2.0, 0.0), f32(0.0, 1.0), 1.0))
    assert moved == pytest.approx([1 / math.sqrt(2), 1 / math.sqrt(2)])  # (1, 0) + 1·(0, 1), normalised
    half = floats(rocchio(f32(3.0, 0.0), f32(0.0, 1.0), 0.5))
    assert half == pytest.approx([2 / math.sqrt(5), 1 / math.sqrt(5)])  # (1, 0) + 0.5·(0, 1)
    assert math.fsum(x * x for x in half) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("query", "mean", "alpha"),
    [(f32(1.0, 0.0), f32(0.0, 1.0), 0.0),       # off
     (f32(1.0, 0.0), f32(0.0, 1.0, 0.0), 0.5),  # another dimension
     (f32(0.0, 0.0), f32(0.0, 1.0), 0.5),       # a zero query
     (f32(1.0, 0.0), f32(-1.0, 0.0), 1.0)],     # the mean cancels the query
)
def test_rocchio_gives_nothing_when_there_is_nothing_to_feed_back(query: bytes, mean: bytes, alpha: float) -> None:
    assert rocchio(query, mean, alpha) is None


# --- fusion and floor -----------------------------------------------------------------------------


def test_the_feedback_source_is_min_max_scaled_with_its_own_weight() -> None:
    rankings = {"vector": [v("a", 1, 0.9), v("b", 2, 0.8)], "feedback": [v("b", 1, 0.95), v("c", 2, 0.85)]}
    got = {s.item_id: s.relevance for s in fuse(rankings, PLAIN)}
    assert got == pytest.approx({"a": 0.5, "b": 0.3, "c": 0.0})
    scored = {s.item_id: s for s in fuse(rankings, PLAIN)}
    assert scored["b"].ranks == {"vector": 2, "feedback": 1}
    assert scored["c"].similarity is None  # its cosine is to the moved query: no similarity to the query
    assert {s.item_id: s.relevance for s in fuse(rankings, RankingConfig(feedback_weight=0))}["c"] == 0


@pytest.mark.parametrize(
    ("vector", "kept"),
    [([v("a", 1, 0.90), v("b", 2, 0.85)], ["a", "b", "c", "x"]),  # the pool's lowest is above the floor
     ([v("a", 1, 0.90), v("b", 2, 0.70)], ["a", "x"]),            # it is not: b and what only feedback found drop
     ([v("a", 1, 0.70)], [])],                                    # nothing reaches the floor
)
def test_what_only_feedback_found_is_kept_when_the_query_pool_stayed_above_the_floor(
        vector: list[Candidate], kept: list[str]) -> None:
    rankings = {"text": [Candidate("x", "event", 1, 3.0)], "vector": vector,
                "feedback": [v("a", 1, 0.99), v("b", 2, 0.98), v("c", 3, 0.97)]}
    assert sorted(s.item_id for s in apply_floor(fuse(rankings, PLAIN), rankings, 0.82)) == kept


# --- the recall stage -----------------------------------------------------------------------------


def test_recall_searches_again_with_the_moved_vector_and_fuses_what_it_finds() -> None:
    storage = ScriptedSearchStorage(text=lambda ns, q, limit: [])
    embedder = FakeEmbedder(keyword_handler(["dark", "editor"]))
    s = make_services(T0, storage=storage, embedder=embedder)
    dark = s.writes.record(RecordObservation(text="dark mode")).id
    editor = s.writes.record(RecordObservation(text="the editor")).id
    asked: list[list[float]] = []

    def vectors(namespace: str, vector: bytes, limit: int) -> list[Candidate]:
        asked.append(floats(vector))
        # The query's own pass finds only "dark mode"; the moved query finds the editor note too.
        return [v(dark, 1, 0.9)] if len(asked) == 1 else [v(dark, 1, 0.95), v(editor, 2, 0.9)]

    storage.vector_handler = vectors
    # Vectors only (the conversation stages would lift the other note of the session by themselves).
    alone = {"context_weight": 0, "successor_weight": 0, "predecessor_weight": 0, "session_weight": 0,
             "similarity_floor": -1}
    config = RankingConfig(feedback_weight=0.3, feedback_alpha=1.0, feedback_top=1, **alone)
    items = RecallService(storage, s.clock, embedder, config).recall("dark").items
    assert [i.id for i in items] == [dark, editor]
    assert items[1].ranks == {"feedback": 2}
    query = embedder.embed_queries(["dark"])[0]
    mean = embedder.embed_passages(["dark mode"])[0]
    expected = query / (query @ query) ** 0.5 + mean / (mean @ mean) ** 0.5
    assert asked[1] == pytest.approx(list(expected / (expected @ expected) ** 0.5), abs=1e-6)

    asked.clear()
    off = RecallService(storage, s.clock, embedder, RankingConfig(**alone)).recall("dark").items
    assert len(asked) == 1 and [i.id for i in off] == [dark]  # off by default: one vector pass
