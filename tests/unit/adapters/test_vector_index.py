"""VectorIndex: exact search equals brute force; the coded fast path only returns valid, ranked rows."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, precondition, rule

from hlmem.adapters.vectors.index import VectorIndex
from hlmem.application.errors import ValidationError

DIM = 10  # not a multiple of 64, so code padding is exercised
TOL = 1e-5


def _unit(rng: np.random.Generator, n: int, dim: int = DIM) -> np.ndarray:
    rows = rng.standard_normal((n, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def _true_scores(model: dict[str, tuple[np.ndarray, str]], query: np.ndarray, group: str | None) -> dict[str, float]:
    q = query.astype(np.float64) / np.linalg.norm(query)
    return {
        item: float(vec.astype(np.float64) @ q / np.linalg.norm(vec))
        for item, (vec, g) in model.items()
        if group is None or g == group
    }


def _assert_valid(hits: list[tuple[str, float]], truth: dict[str, float], k: int) -> None:
    """Only eligible ids, once each, best first, with their true cosine, and as many as possible."""
    ids = [item for item, _ in hits]
    assert len(ids) == len(set(ids))
    assert set(ids) <= set(truth)
    scores = [score for _, score in hits]
    assert scores == sorted(scores, reverse=True)
    for item, score in hits:
        assert score == pytest.approx(truth[item], abs=TOL)
    assert len(hits) == min(k, len(truth))


def _assert_exact(hits: list[tuple[str, float]], truth: dict[str, float], k: int) -> None:
    """Valid, and the scores are the k best true scores (ids may differ only within ties)."""
    _assert_valid(hits, truth, k)
    best = sorted(truth.values(), reverse=True)[:k]
    assert [score for _, score in hits] == pytest.approx(best, abs=TOL)


# -- table tests ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("vectors", "message"),
    [
        (np.zeros((1, DIM)), "zero-norm"),
        (np.full((1, DIM), np.nan), "NaN"),
        (np.full((1, DIM), np.inf), "NaN or infinite"),
        (np.ones((1, DIM + 1)), "shape"),
        (np.ones(DIM), "shape"),
    ],
)
def test_add_refuses_bad_vectors(vectors: np.ndarray, message: str) -> None:
    index = VectorIndex(DIM)
    with pytest.raises(ValueError, match=message):
        index.add(["a"], vectors)
    assert len(index) == 0


@pytest.mark.parametrize(
    ("query", "message"),
    [(np.zeros(DIM), "zero-norm"), (np.full(DIM, np.nan), "NaN"), (np.ones(DIM - 1), "shape")],
)
def test_search_refuses_bad_queries(query: np.ndarray, message: str) -> None:
    index = VectorIndex(DIM)
    index.add(["a"], np.ones((1, DIM)))
    with pytest.raises(ValidationError, match=message):
        index.search(query, 1)


def test_ids_and_rows_must_match() -> None:
    with pytest.raises(ValueError, match="2 ids but 1 vectors"):
        VectorIndex(DIM).add(["a", "b"], np.ones((1, DIM)))


@pytest.mark.parametrize(("k", "expected"), [(0, []), (-1, []), (5, ["near", "far"])])
def test_k_bounds(k: int, expected: list[str]) -> None:
    index = VectorIndex(2)
    index.add(["near", "far"], np.array([[1.0, 0.1], [0.0, 1.0]]))
    assert [item for item, _ in index.search(np.array([1.0, 0.0]), k)] == expected


def test_scores_are_cosines_of_unnormalised_input() -> None:
    index = VectorIndex(2)
    index.add(["x"], np.array([[3.0, 4.0]]))
    [(item, score)] = index.search(np.array([10.0, 0.0]), 1)
    assert (item, score) == ("x", pytest.approx(0.6))


@pytest.mark.parametrize(("k", "expected"), [(4, ["z", "a", "b", "c"]), (2, ["z", "a"])])
def test_ties_are_broken_by_id_even_at_the_cut(k: int, expected: list[str]) -> None:
    index = VectorIndex(2)
    tied = [1.0, 0.5]
    index.add(["c", "b", "z", "a", "far"], np.array([tied, tied, [1.0, 0.0], tied, [-1.0, 0.0]]))
    assert [item for item, _ in index.search(np.array([1.0, 0.0]), k)] == expected


def test_add_replaces_an_id_and_a_repeated_id_keeps_its_last_row() -> None:
    index = VectorIndex(2)
    index.add(["a", "a"], np.array([[1.0, 0.0], [0.0, 1.0]]), group="g1")
    index.add(["a"], np.array([[-1.0, 0.0]]), group="g2")
    assert len(index) == 1
    assert index.search(np.array([-1.0, 0.0]), 1, group="g2") == [("a", pytest.approx(1.0))]
    assert index.search(np.array([-1.0, 0.0]), 1, group="g1") == []


def test_remove_ignores_unknown_ids_and_keeps_the_rest_searchable() -> None:
    index = VectorIndex(DIM)
    vectors = _unit(np.random.default_rng(0), 5)
    index.add(list("abcde"), vectors)
    assert index.remove(["a", "zz", "c", "a"]) == 2
    assert len(index) == 3 and "a" not in index and "b" in index
    for item, row in zip("bde", vectors[[1, 3, 4]], strict=True):
        assert index.search(row, 1)[0][0] == item


@pytest.mark.parametrize(
    ("group", "expected"),
    [(None, {"a1", "a2", "b1"}), ("a", {"a1", "a2"}), (["b", "nope"], {"b1"}), ("nope", set()), ([], set())],
)
def test_group_filter(group: str | list[str] | None, expected: set[str]) -> None:
    index = VectorIndex(2)
    index.add(["a1", "a2"], np.array([[1.0, 0.0], [1.0, 1.0]]), group="a")
    index.add(["b1"], np.array([[0.0, 1.0]]), group="b")
    assert {item for item, _ in index.search(np.array([1.0, 0.0]), 10, group=group)} == expected


@pytest.mark.parametrize("exact", [True, False])
def test_allowed_predicate_skips_rejected_ids_and_still_fills_k(exact: bool) -> None:
    rng = np.random.default_rng(1)
    index = VectorIndex(DIM, candidates=4, exact_below=0)
    index.add([f"m{i}" for i in range(300)], _unit(rng, 300))
    index.calibrate()
    query = _unit(rng, 1)[0]
    everything = index.search(query, 300, exact=True)
    # Only the 3 worst rows pass, so the fast path must widen its pool to the whole index.
    allowed = {item for item, _ in everything[-3:]}
    hits = index.search(query, 2, allowed=allowed.__contains__, exact=exact)
    assert hits == everything[-3:-1]


def test_fast_path_recall_on_clustered_vectors() -> None:
    # Clusters around a shared offset imitate e5: cosines crowd near 0.8 as in real embeddings.
    rng = np.random.default_rng(2)
    dim, n = 64, 4_000
    centres = _unit(rng, 200, dim) + 3 * _unit(rng, 1, dim)
    vectors = centres[rng.integers(0, 200, n)] + 0.05 * rng.standard_normal((n, dim))
    index = VectorIndex(dim, candidates=200, exact_below=0)
    index.add([f"v{i}" for i in range(n)], vectors)
    queries = centres[:50] + 0.05 * rng.standard_normal((50, dim))
    recall = [
        len({i for i, _ in index.search(q, 10)} & {i for i, _ in index.search(q, 10, exact=True)}) / 10
        for q in queries
    ]
    assert np.mean(recall) >= 0.95


def test_growth_and_calibration_keep_every_row() -> None:
    rng = np.random.default_rng(3)
    index = VectorIndex(DIM, exact_below=0, candidates=50)
    vectors = _unit(rng, 3_000)
    for start in range(0, 3_000, 700):  # crosses the first calibration and several growths
        index.add([f"v{i}" for i in range(start, min(start + 700, 3_000))], vectors[start : start + 700])
    assert len(index) == 3_000
    assert index.nbytes >= vectors.nbytes
    # Removing moves rows into the holes; each moved row must keep its own code, so every
    # survivor is still its own nearest neighbour through the coded path.
    index.remove([f"v{i}" for i in range(0, 3_000, 3)])
    assert len(index) == 2_000
    for i in range(1, 3_000, 7):
        if i % 3:
            assert index.search(vectors[i], 1)[0] == (f"v{i}", pytest.approx(1.0))


def test_a_bulk_load_sizes_once_calibrates_once_and_searches_like_one_add() -> None:
    rng = np.random.default_rng(4)
    vectors = _unit(rng, 3_000)
    ids = [f"v{i}" for i in range(3_000)]
    bulk, single = VectorIndex(DIM, exact_below=0, candidates=50), VectorIndex(DIM, exact_below=0, candidates=50)
    single.add(ids, vectors, group="g")
    calibrations = []
    real = bulk.calibrate
    bulk.calibrate = lambda: (calibrations.append(len(bulk)), real())[1]  # type: ignore[method-assign]
    with bulk.bulk(3_000):
        capacity = bulk._vectors.shape[0]
        for start in range(0, 3_000, 700):  # would cross two calibrations one add at a time
            bulk.add(ids[start : start + 700], vectors[start : start + 700], group="g")
        assert bulk._vectors.shape[0] == capacity == 3_000
    assert calibrations == [3_000]
    for q in _unit(rng, 20):
        assert bulk.search(q, 10, group="g") == single.search(q, 10, group="g")


def test_bulk_loads_do_not_nest_and_small_ones_stay_exact() -> None:
    index = VectorIndex(DIM)
    with index.bulk(10):
        index.add(["a"], np.ones((1, DIM)))
        with pytest.raises(ValidationError, match="nest"), index.bulk():
            pass
    assert index._thresholds is None  # too few rows for codes: searches scan exactly
    assert index.search(np.ones(DIM), 1) == [("a", pytest.approx(1.0))]


def test_a_group_holding_every_row_searches_like_no_group() -> None:
    rng = np.random.default_rng(5)
    index = VectorIndex(DIM, exact_below=0, candidates=40)
    index.add([f"v{i}" for i in range(2_000)], _unit(rng, 2_000), group="only")
    for q in _unit(rng, 10):
        assert index.search(q, 10, group="only") == index.search(q, 10) == index.search(q, 10, group=["only", "x"])
    index.add(["other"], _unit(rng, 1), group="x")
    assert all(item != "other" for item, _ in index.search(_unit(rng, 1)[0], 2_001, group="only"))


# -- properties ----------------------------------------------------------------------------------


@given(
    n=st.integers(0, 40),
    k=st.integers(1, 12),
    seed=st.integers(0, 2**32 - 1),
    bits=st.integers(1, 3),
    duplicates=st.booleans(),
)
def test_exact_search_equals_brute_force(n: int, k: int, seed: int, bits: int, duplicates: bool) -> None:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((n, DIM)).astype(np.float32) * rng.uniform(0.1, 10)
    if duplicates and n > 1:
        vectors[n // 2 :] = vectors[: n - n // 2]  # exact ties
    index = VectorIndex(DIM, bits=bits)
    ids = [f"id{i}" for i in range(n)]
    index.add(ids, vectors)
    query = rng.standard_normal(DIM)
    model = {item: (vec, "") for item, vec in zip(ids, vectors, strict=True)}
    _assert_exact(index.search(query, k, exact=True), _true_scores(model, query, None), k)


class VectorIndexMachine(RuleBasedStateMachine):
    """Random adds, replaces, removes and recalibrations against a dict model of id -> (vector, group).

    The index uses tiny ``candidates`` and ``exact_below=0`` so searches really take the coded path.
    """

    ids = Bundle("ids")

    @initialize(bits=st.integers(1, 3), candidates=st.integers(1, 6))
    def start(self, bits: int, candidates: int) -> None:
        self.index = VectorIndex(DIM, bits=bits, candidates=candidates, exact_below=0)
        self.model: dict[str, tuple[np.ndarray, str]] = {}
        self.removed: set[str] = set()

    @rule(target=ids, names=st.lists(st.text("abcdef", min_size=1, max_size=2), min_size=1, max_size=8),
          group=st.sampled_from(["a", "b"]), seed=st.integers(0, 2**32 - 1))
    def add(self, names: list[str], group: str, seed: int) -> str:
        vectors = _unit(np.random.default_rng(seed), len(names))
        self.index.add(names, vectors, group=group)
        for name, vec in zip(names, vectors, strict=True):
            self.model[name] = (vec, group)
            self.removed.discard(name)
        return names[0]

    @rule(names=st.lists(ids, max_size=3))
    def remove(self, names: list[str]) -> None:
        assert self.index.remove(names) == len(set(names) & set(self.model))
        for name in names:
            self.model.pop(name, None)
            self.removed.add(name)

    @precondition(lambda self: len(self.model) > 0)
    @rule()
    def calibrate(self) -> None:
        self.index.calibrate()

    @rule(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 8), group=st.sampled_from([None, "a", "b", "zz"]))
    def search(self, seed: int, k: int, group: str | None) -> None:
        query = _unit(np.random.default_rng(seed), 1)[0]
        truth = _true_scores(self.model, query, group)
        fast = self.index.search(query, k, group=group)
        _assert_valid(fast, truth, k)  # covers: no other group's id, no removed id, no duplicate
        assert not {item for item, _ in fast} & self.removed
        _assert_exact(self.index.search(query, k, group=group, exact=True), truth, k)

    @invariant()
    def same_ids(self) -> None:
        assert len(self.index) == len(self.model)
        assert all(item in self.index for item in self.model)
        assert not any(item in self.index for item in self.removed)


TestVectorIndexMachine = VectorIndexMachine.TestCase
