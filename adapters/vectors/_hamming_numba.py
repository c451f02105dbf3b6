"""The Hamming first stage compiled with numba (imported only when numba is installed; see
:mod:`hlmem.adapters.vectors.hamming`, which holds the numpy twin and the contract both keep).

Module-level functions, so numba's on-disk cache finds them again in the next process.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

__all__ = ["nearest", "search"]


@intrinsic
def _popcount(typingctx: Any, x: Any) -> Any:
    """The CPU's population count of a uint64 (LLVM ``ctpop``)."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@njit(nogil=True, cache=True)
def nearest(codes, q_code, n, mask, use_mask, pool, excluded, dist, hist, out):  # pragma: no cover - compiled
    """Fill ``out`` with the rows :func:`hlmem.adapters.vectors.hamming.nearest` chooses; return how many.

    ``dist`` (``n``) and ``hist`` (``excluded + 2``) are scratch; ``mask`` (uint8) is read only when
    ``use_mask``. Runs without the GIL.
    """
    words = codes.shape[0]
    for i in range(n):
        dist[i] = 0
    for w in range(words):  # word-major: each word's column is one sequential stream
        qw = q_code[w]
        column = codes[w]
        for i in range(n):
            dist[i] += _popcount(column[i] ^ qw)
    hist[:] = 0
    for i in range(n):
        if use_mask and mask[i] == 0:
            dist[i] = excluded
        hist[dist[i]] += 1
    # The cut-off: the smallest distance whose running count reaches the pool.
    total = 0
    cutoff = 0
    while cutoff <= excluded:
        if total + hist[cutoff] >= pool:
            break
        total += hist[cutoff]
        cutoff += 1
    found = 0
    if total + hist[cutoff] <= 2 * pool:  # every row up to the cut-off
        for i in range(n):
            if dist[i] <= cutoff:
                out[found] = i
                found += 1
        return found
    room = pool - total  # a huge tie at the cut-off: its first rows fill the pool
    for i in range(n):
        d = dist[i]
        if d < cutoff:
            out[found] = i
            found += 1
        elif d == cutoff and room > 0:
            out[found] = i
            found += 1
            room -= 1
    return found


@njit(nogil=True, cache=True, fastmath=True)
def _dots(vectors, rows, m, q, scores):  # pragma: no cover - compiled
    """``scores[j]`` = the float32 dot product of ``vectors[rows[j]]`` and ``q`` (SIMD: any order of sums)."""
    dim = vectors.shape[1]
    for j in range(m):
        r = rows[j]
        total = np.float32(0.0)
        for t in range(dim):
            total += vectors[r, t] * q[t]
        scores[j] = total


@njit(nogil=True, cache=True)
def search(codes, vectors, q_code, q, n, mask, use_mask, pool, k, excluded, dist, hist, rows, scores,
           top_rows, top_scores):  # pragma: no cover - compiled
    """:func:`nearest`, then the exact score of each row kept, then the ``k`` best of them and every
    row tied with the k-th, into ``top_rows``/``top_scores``; returns how many. All without the GIL."""
    m = nearest(codes, q_code, n, mask, use_mask, pool, excluded, dist, hist, rows)
    _dots(vectors, rows, m, q, scores)
    threshold = -np.inf
    if m > k:
        threshold = np.sort(scores[:m])[m - k]
    found = 0
    for j in range(m):
        if scores[j] >= threshold:
            top_rows[found] = rows[j]
            top_scores[found] = scores[j]
            found += 1
    return found
