"""Pseudo-relevance feedback on the vector side of recall (Rocchio; docs/recall.md, step 4a; ADR 0054).

The query vector is moved towards the mean of the vectors of the best few items of the first,
fused ranking (full text, context and vectors together), and the store's vectors are searched
again with it: items worded like the best matches, though not like the question, join as a
``feedback`` source of the fusion. The store gives the mean (``SearchIndex.mean_vector``); this
module only mixes it in, in pure Python over float32 bytes (the application does not use numpy).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence

__all__ = ["rocchio"]


def _floats(raw: bytes) -> array:
    out = array("f")
    out.frombytes(raw)
    return out


def _norm(vector: Sequence[float]) -> float:
    return math.sqrt(sum(x * x for x in vector))


def rocchio(query: bytes, mean: bytes, alpha: float) -> bytes | None:
    """``unit(query) + alpha × mean``, made unit length, as float32 bytes.

    :param query: the query's float32 vector.
    :param mean: the mean of the fed-back items' unit vectors (float32, the query's dimension).
    :param alpha: the weight of the items' mean against the query's own direction.
    :returns: None when there is nothing to feed back (``alpha`` ≤ 0, sizes that differ, a zero
        vector).
    """
    if alpha <= 0 or len(mean) != len(query) or len(query) % 4:
        return None
    q, m = _floats(query), _floats(mean)
    q_norm = _norm(q)
    if q_norm <= 0:
        return None
    moved = [x / q_norm + alpha * y for x, y in zip(q, m, strict=True)]
    norm = _norm(moved)
    if norm <= 0:
        return None
    return array("f", [x / norm for x in moved]).tobytes()
