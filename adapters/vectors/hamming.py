"""The first stage of :class:`~hlmem.adapters.vectors.index.VectorIndex`: the rows whose codes are
nearest the query's in Hamming distance (ADR 0005, ADR 0022).

Two implementations choose the same rows:

- compiled with numba (the optional ``fast`` extra, :mod:`hlmem.adapters.vectors._hamming_numba`): one
  pass over the codes that adds up the distances, counts them in a histogram and then collects
  the rows (and, in :func:`nearest_scored`, rescores them), all without the GIL, so a full-text
  search in another thread runs meanwhile;
- numpy (always there): three ufunc calls per three code words and a histogram.

The compiled one is used when numba imports and ``HLMEM_NUMBA`` is not ``0``/``off``. It is built
on first use (about a second, once per machine: numba caches it on disk), never at import, so
small stores and short commands never pay for it.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

__all__ = ["compiled_available", "hamming_into", "nearest", "nearest_scored"]

#: Words whose popcounts are summed in uint8 before widening: 3 x 64 = 192 fits a byte, 4 x 64 would not.
_WORDS_PER_GROUP = 3

_lock = threading.Lock()
_compiled: Any = None  # the compiled module, False when numba is missing or turned off, None before the first look


def compiled_available() -> bool:
    """Whether :func:`nearest` runs compiled (numba is installed and not turned off)."""
    return _kernel() is not None


def _compiled_buffers(excluded: int, mask: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The compiled pass's histogram and its mask as bytes (empty: no mask)."""
    picked = np.empty(0, dtype=np.uint8) if mask is None else mask.view(np.uint8)
    return np.empty(excluded + 2, dtype=np.int64), picked


def nearest(codes: np.ndarray, q_code: np.ndarray, n: int, pool: int, excluded: int, mask: np.ndarray | None,
            scratch: dict[str, np.ndarray], *, compiled: bool | None = None) -> np.ndarray:
    """Rows (ascending, int64) among the first ``n`` with the ``pool`` smallest Hamming distances to
    ``q_code``; every row tied at the cut-off too, unless that tie is more than ``2 x pool`` rows,
    when only the first rows of it (in row order) fill the pool.

    :param codes: uint64 codes, word-major ``(words, capacity)``.
    :param excluded: a distance above every real one (``words x 64 + 1``), given to rows ``mask``
        leaves out; the caller asks for fewer rows than ``mask`` keeps.
    :param scratch: the caller's reusable buffers (``dist``: ``n`` unsigned ints; ``xor``,
        ``count``, ``partial``: numpy-path buffers of ``n``).
    :param compiled: force the compiled (True) or the numpy (False) path; None: compiled if available.
    """
    kernel = _kernel() if compiled is not False else None
    if compiled and kernel is None:
        raise RuntimeError("the compiled Hamming kernel needs numba (pip install 'hlmem[fast]')")
    dist = scratch["dist"][:n]
    if kernel is not None:
        out = np.empty(min(n, 2 * pool + 1), dtype=np.int64)
        hist, picked = _compiled_buffers(excluded, mask)
        count = kernel.nearest(codes, q_code, n, picked, mask is not None, pool, excluded, dist, hist, out)
        return out[:count]
    hamming_into(codes[:, :n], q_code, dist, xor=scratch["xor"][:n], count=scratch["count"][:n],
                 partial=scratch["partial"][:n])
    if mask is not None:
        np.copyto(dist, excluded, where=~mask)
    # Distances are small integers, so a histogram finds the cut-off in O(n) without
    # the partial sort argpartition would do.
    cumulative = np.cumsum(np.bincount(dist, minlength=excluded + 1))
    cutoff = int(np.searchsorted(cumulative, pool))
    rows = np.flatnonzero(dist <= cutoff)
    if len(rows) > 2 * pool:  # a huge tie at the cut-off: keep only part of it
        below = np.flatnonzero(dist < cutoff)
        tied = np.flatnonzero(dist == cutoff)[: pool - len(below)]
        rows = np.sort(np.concatenate([below, tied]))
    return rows


def nearest_scored(codes: np.ndarray, vectors: np.ndarray, q_code: np.ndarray, q: np.ndarray, n: int, pool: int,
                   k: int, excluded: int, mask: np.ndarray | None,
                   scratch: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray] | None:
    """The compiled pass, rescoring too: of the rows :func:`nearest` keeps, the ``k`` with the
    highest float32 dot product with ``q`` and every row tied with the k-th, as ``(rows, scores)``
    in row order; one call without the GIL. None when the compiled pass is not available.

    The scores are sums in SIMD order: they may differ from numpy's in the last bits.
    """
    kernel = _kernel()
    if kernel is None:
        return None
    size = min(n, 2 * pool + 1)
    rows, scores = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.float32)
    top_rows, top_scores = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.float32)
    hist, picked = _compiled_buffers(excluded, mask)
    count = kernel.search(codes, vectors, q_code, q, n, picked, mask is not None, pool, k, excluded,
                          scratch["dist"][:n], hist, rows, scores, top_rows, top_scores)
    return top_rows[:count], top_scores[:count]


def hamming_into(codes: np.ndarray, q_code: np.ndarray, out: np.ndarray, *, xor: np.ndarray, count: np.ndarray,
                 partial: np.ndarray) -> None:
    """``out[i]`` = the Hamming distance between column ``codes[:, i]`` and ``q_code`` (numpy).

    :param codes: uint64 codes, word-major ``(words, n)``.
    :param q_code: the query's ``words`` uint64 words.
    :param out: ``n`` unsigned integers of at least 16 bits (up to ``words x 64``).
    :param xor: uint64 scratch of ``n``; ``count``, ``partial``: uint8 scratch of ``n``.

    Up to three words' popcounts add up in a uint8 buffer (at most 192) and are widened into
    ``out`` once per group: a uint8 add costs about a quarter of a uint8-into-uint16 one.
    """
    words = codes.shape[0]
    for first in range(0, words, _WORDS_PER_GROUP):
        last = min(first + _WORDS_PER_GROUP, words)
        np.bitwise_xor(codes[first], q_code[first], out=xor)
        np.bitwise_count(xor, out=partial)
        for word in range(first + 1, last):
            np.bitwise_xor(codes[word], q_code[word], out=xor)
            np.bitwise_count(xor, out=count)
            np.add(partial, count, out=partial)
        if first == 0:
            np.copyto(out, partial)
        else:
            np.add(out, partial, out=out)


def _kernel() -> Any:
    global _compiled
    if _compiled is None:
        with _lock:
            if _compiled is None:
                _compiled = _build() or False
    return _compiled or None


def _build() -> Any:
    from hlmem.adapters.settings import process_setting

    if not process_setting("numba"):  # HLMEM_NUMBA (docs/config.md)
        return None
    try:
        from hlmem.adapters.vectors import _hamming_numba
    except ImportError:  # numba is not installed (it comes with the ``fast`` extra)
        return None
    return _hamming_numba
