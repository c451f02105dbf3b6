"""VectorIndex's Hamming scan and rescoring: the fast paths compute exactly what their plain definitions do."""

from __future__ import annotations

import numpy as np
import pytest

from hlmem.adapters.vectors.index import VectorIndex, hamming_into


def _reference(codes: np.ndarray, q_code: np.ndarray) -> list[int]:
    """Hamming distances by Python popcount, one column at a time."""
    return [sum(bin(int(codes[w, i]) ^ int(q_code[w])).count("1") for w in range(codes.shape[0]))
            for i in range(codes.shape[1])]


def _scan(codes: np.ndarray, q_code: np.ndarray, dtype: type = np.uint16) -> np.ndarray:
    n = codes.shape[1]
    out = np.full(n, 7, dtype=dtype)  # garbage: the scan must overwrite, not add to, what is there
    hamming_into(codes, q_code, out, xor=np.empty(n, np.uint64), count=np.full(n, 9, np.uint8),
                 partial=np.full(n, 11, np.uint8))
    return out


@pytest.mark.parametrize("words", range(1, 14))  # every remainder of the three-word groups
def test_the_scan_equals_a_reference_popcount(words: int) -> None:
    rng = np.random.default_rng(words)
    n = 257
    codes = rng.integers(0, 2**64, size=(words, n), dtype=np.uint64, endpoint=False)
    q_code = rng.integers(0, 2**64, size=words, dtype=np.uint64, endpoint=False)
    codes[:, 0] = q_code  # distance 0
    codes[:, 1] = ~q_code  # every bit differs: 64 per word, 192 in a full group (the uint8 limit)
    codes[:, 2] = ~q_code
    codes[words - 1, 2] = q_code[words - 1]  # all but the last word differ
    got = _scan(codes, q_code)
    assert got.tolist() == _reference(codes, q_code)
    assert got[0] == 0 and got[1] == 64 * words and got[2] == 64 * (words - 1)


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32])
def test_the_largest_distances_do_not_wrap(dtype: type) -> None:
    words = 13
    q_code = np.zeros(words, dtype=np.uint64)
    codes = np.full((words, 5), np.iinfo(np.uint64).max, dtype=np.uint64)
    assert _scan(codes, q_code, dtype).tolist() == [64 * words] * 5


def test_a_column_slice_is_scanned_in_place() -> None:
    # The index scans codes[:, :n] of a larger array (its capacity): a strided view.
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 2**64, size=(4, 100), dtype=np.uint64, endpoint=False)
    q_code = codes[:, 50].copy()
    got = _scan(codes[:, :60], q_code)
    assert got.tolist() == _reference(codes[:, :60], q_code)
    assert got[50] == 0


def _coded_index(n: int, dim: int, seed: int) -> tuple[VectorIndex, np.ndarray]:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    vectors[n // 2:n // 2 + 40] = vectors[:40]  # exact ties, broken by id
    index = VectorIndex(dim, candidates=64, exact_below=16)
    index.add(_names(n), vectors)
    return index, vectors


def _names(n: int) -> list[str]:
    """Ids whose order is not the row order, so a tie broken by row would show."""
    return [f"id{i:05d}" for i in np.random.default_rng(0).permutation(n)]


def test_the_coded_stage_keeps_exactly_the_rows_nearest_in_hamming() -> None:
    index, vectors = _coded_index(3_000, 24, 1)
    q = vectors[7] + 0.1
    q = q / np.linalg.norm(q)
    n = len(index)
    rows = index._nearest_codes(q.astype(np.float32), None, 64)
    codes = index._codes[:, :n]
    q_code = index._encode(q.reshape(1, -1).astype(np.float32))[0]
    dist = np.array(_reference(codes, q_code))
    cutoff = np.sort(dist)[63]  # the 64th smallest distance
    assert set(rows.tolist()) == set(np.flatnonzero(dist <= cutoff).tolist())


def test_the_coded_search_ranks_its_candidates_by_exact_cosine_ties_by_id() -> None:
    index, vectors = _coded_index(3_000, 24, 2)
    unit = index._vectors[:len(index)]
    for row in (3, 20, 1_503, 2_000):  # 3 and 1_503 are the same vector
        q = vectors[row]
        qn = (q.reshape(1, -1) / np.linalg.norm(q.reshape(1, -1), axis=1, keepdims=True))[0]
        rows = index._nearest_codes(qn, None, index.candidates)
        scores = np.einsum("ij,j->i", unit[rows], qn)
        names = _names(len(index))
        expected = sorted((-float(s), names[r]) for r, s in zip(rows.tolist(), scores))[:10]
        got = index.search(q, 10)
        # The compiled pass sums in SIMD order: the same cosines to float32 rounding.
        assert [item for item, _ in got] == [item for _, item in expected]
        assert [score for _, score in got] == pytest.approx([-neg for neg, _ in expected], abs=1e-6)
