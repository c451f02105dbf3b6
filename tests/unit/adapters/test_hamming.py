"""The Hamming first stage (adapters/vectors/hamming.py): the numba-compiled pass chooses the rows the
numpy pass chooses, over random codes, masks, pools and heavy ties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hlmem.adapters.vectors import hamming
from hlmem.adapters.vectors.index import VectorIndex

needs_numba = pytest.mark.skipif(not hamming.compiled_available(), reason="numba is not installed (extra: fast)")


def scratch(n: int, words: int) -> dict[str, np.ndarray]:
    return {"dist": np.empty(n, np.uint16 if words * 64 + 1 < 2**16 else np.uint32), "xor": np.empty(n, np.uint64),
            "count": np.empty(n, np.uint8), "partial": np.empty(n, np.uint8)}


def reference(codes: np.ndarray, q: np.ndarray, pool: int, mask: np.ndarray | None) -> np.ndarray:
    """The definition: full distances by unpacking bits, then the cut-off rule, row by row."""
    n = codes.shape[1]
    bits = np.unpackbits((codes ^ q[:, None]).T.copy().view(np.uint8), axis=1)
    dist = bits.sum(axis=1)
    if mask is not None:
        dist = np.where(mask, dist, 10**6)
    order = sorted(range(n), key=lambda i: (dist[i], i))
    cutoff = dist[order[pool - 1]]
    upto = [i for i in range(n) if dist[i] <= cutoff]
    if len(upto) <= 2 * pool:
        return np.array(upto)
    below = [i for i in range(n) if dist[i] < cutoff]
    tied = [i for i in range(n) if dist[i] == cutoff][: pool - len(below)]
    return np.array(sorted(below + tied))


@st.composite
def cases(draw):
    words = draw(st.integers(1, 7))
    n = draw(st.integers(2, 300))
    # Few distinct words make many ties at the cut-off; many make distances spread out.
    distinct = draw(st.sampled_from([1, 2, 3, 50]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    palette = rng.integers(0, 2**63, size=(words, distinct), dtype=np.uint64)
    codes = palette[:, rng.integers(0, distinct, size=n)]
    codes = np.ascontiguousarray(np.concatenate([codes, np.zeros((words, 5), np.uint64)], axis=1))  # spare capacity
    q = rng.integers(0, 2**63, size=words, dtype=np.uint64)
    mask = None
    if draw(st.booleans()):
        mask = rng.random(n) < 0.6
        mask[: 2] = True
    kept = n if mask is None else int(mask.sum())
    pool = draw(st.integers(1, max(1, kept - 1)))
    return codes, q, n, pool, mask


def first_stage(case, *, compiled: bool) -> np.ndarray:
    """The rows :func:`hamming.nearest` keeps for a drawn case, by the pass asked for."""
    codes, q, n, pool, mask = case
    words = codes.shape[0]
    return hamming.nearest(codes, q, n, pool, words * 64 + 1, mask, scratch(n, words), compiled=compiled)


@settings(max_examples=150, deadline=None)
@given(cases())
def test_the_numpy_pass_keeps_the_rows_the_definition_keeps(case) -> None:
    codes, q, n, pool, mask = case
    assert first_stage(case, compiled=False).tolist() == reference(codes[:, :n], q, pool, mask).tolist()


@needs_numba
@settings(max_examples=150, deadline=None)
@given(cases())
def test_the_compiled_pass_keeps_the_rows_the_numpy_pass_keeps(case) -> None:
    assert first_stage(case, compiled=True).tolist() == first_stage(case, compiled=False).tolist()


@needs_numba
def test_an_index_searches_alike_compiled_or_not() -> None:
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((6_000, 24)).astype(np.float32)
    ids = [f"v{i}" for i in range(len(vectors))]
    indexes = [VectorIndex(24, compiled=flag, candidates=300, exact_below=1_000) for flag in (True, False)]
    for index in indexes:
        index.add(ids[:4_000], vectors[:4_000], group="a")
        index.add(ids[4_000:], vectors[4_000:], group="b")
    for q in rng.standard_normal((25, 24)).astype(np.float32):
        for group in (None, "a", "b"):
            compiled, plain = (index.search(q, 20, group=group) for index in indexes)
            # Same rows; the compiled rescoring sums in SIMD order, so scores agree to float32 rounding.
            assert [i for i, _ in compiled] == [i for i, _ in plain]
            assert [s for _, s in compiled] == pytest.approx([s for _, s in plain], abs=1e-6)


@needs_numba
@settings(max_examples=60, deadline=None)
@given(cases(), st.integers(1, 30))
def test_compiled_rescoring_keeps_the_best_k_of_the_first_stage_rows(case, k) -> None:
    codes, q_code, n, pool, mask = case
    words = codes.shape[0]
    rng = np.random.default_rng(n * 31 + pool)
    vectors = rng.standard_normal((codes.shape[1], 8)).astype(np.float32)
    vectors[1] = vectors[0]  # a tie of scores
    q = rng.standard_normal(8).astype(np.float32)
    rows = first_stage(case, compiled=False)
    scores = vectors[rows] @ q
    got_rows, got_scores = hamming.nearest_scored(codes, vectors, q_code, q, n, pool, k, words * 64 + 1, mask,
                                                  scratch(n, words))
    assert got_rows.tolist() == sorted(got_rows.tolist())  # row order
    assert got_scores == pytest.approx(vectors[got_rows] @ q, abs=1e-5)
    if len(rows) <= k:
        assert got_rows.tolist() == rows.tolist()
        return
    kth = np.sort(scores)[len(rows) - k]
    # The k best and every row tied with the k-th (to float32 rounding), nothing below.
    assert set(rows[scores > kth + 1e-5].tolist()) <= set(got_rows.tolist())
    assert set(got_rows.tolist()) <= set(rows[scores >= kth - 1e-5].tolist())
    assert len(got_rows) >= k


def test_hlmem_numba_off_turns_the_compiled_pass_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hamming, "_compiled", None)
    monkeypatch.setenv("HLMEM_NUMBA", "0")
    assert not hamming.compiled_available()
    with pytest.raises(RuntimeError, match="numba"):
        hamming.nearest(np.zeros((1, 4), np.uint64), np.zeros(1, np.uint64), 4, 1, 65, None, scratch(4, 1),
                        compiled=True)
