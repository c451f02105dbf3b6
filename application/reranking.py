"""Reranking the head of a fused result list, falling back to the fused order when the reranker fails.

Recall calls :func:`rerank_items` once, after fusion and before its final cut:
``outcome = rerank_items(query, items, reranker, top_n=settings.top_n)``. With no reranker
(the default: reranking is off) it returns the items untouched and calls nothing, so the call
can stay in place whether or not reranking is configured.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Generic, TypeVar

from attrs import frozen

from hlmem.domain.errors import ValidationError

if TYPE_CHECKING:
    from hlmem.application.ports import Reranker

T = TypeVar("T")

#: Fused items sent to the reranker by default: a cross-encoder's cost grows with every document.
DEFAULT_TOP_N = 30


@frozen
class RerankOutcome(Generic[T]):
    """Items in their final order, whether the reranker decided it, and why not when it failed.

    :param items: every input item once; the reranked head first, then the rest in fused order.
    :param reranked: True when the reranker's scores ordered the head.
    :param note: set when the reranker failed (for ``RecallResult.notes``), else None.
    :param scores: the reranker's score of each item, aligned with ``items`` (None for items it
        did not score; all None when ``reranked`` is False).
    """

    items: tuple[T, ...]
    reranked: bool
    note: str | None = None
    scores: tuple[float | None, ...] = ()


def rerank_items(
    query: str, items: Sequence[T], reranker: Reranker | None, *, top_n: int = DEFAULT_TOP_N,
    text_of: Callable[[T], str] = attrgetter("text"),
) -> RerankOutcome[T]:
    """Reorder the first ``top_n`` of ``items`` (best first, as fused) by ``reranker``'s scores.

    Higher scores go first; equal scores keep their fused order (the sort is stable), so
    ``-inf`` for a text the provider left unscored puts it after the scored ones. Items beyond
    ``top_n`` keep their fused order after the head. When the reranker raises anything (a
    :class:`hlmem.domain.errors.ProviderError` from the HTTP adapter, or any error from a plugin),
    or returns the wrong number of scores or a NaN, the fused order is kept and ``note`` says so;
    this function does not raise for a failing reranker.

    :param query: the recall query, sent to the reranker as is.
    :param items: fused items, best first.
    :param reranker: the reranker, or None when reranking is off (nothing is called).
    :param top_n: how many of the first items to send (1 or more).
    :param text_of: the text the reranker judges for an item (default: its ``text`` attribute).
    :raises ValidationError: when ``top_n`` is not a whole number >= 1.
    """
    if isinstance(top_n, bool) or not isinstance(top_n, int) or top_n < 1:
        raise ValidationError(f"rerank top_n must be a whole number >= 1, not {top_n!r}", field="top_n")
    items = tuple(items)
    kept = RerankOutcome(items, reranked=False, note=None, scores=(None,) * len(items))
    if reranker is None or not items:
        return kept
    head, tail = items[:top_n], items[top_n:]
    texts = [text_of(item) for item in head]
    try:
        raw = reranker.rerank(query, texts)
    except Exception as exc:  # noqa: BLE001 — any reranker failure, ours or a plugin's, costs only the order
        return _fallback(kept, type(exc).__name__)
    scores = _checked(raw, len(head))
    if isinstance(scores, str):
        return _fallback(kept, scores)
    order = sorted(range(len(head)), key=lambda i: -scores[i])
    return RerankOutcome(
        tuple(head[i] for i in order) + tail, reranked=True, note=None,
        scores=tuple(scores[i] for i in order) + (None,) * len(tail),
    )


def _checked(raw: object, count: int) -> list[float] | str:
    """``raw`` as floats when it is ``count`` real numbers, none NaN; otherwise what is wrong with it."""
    try:
        values = list(raw)  # type: ignore[call-overload]
    except Exception:  # noqa: BLE001 — a plugin's odd return value is a failed rerank, not a crash
        return "bad scores: not a list"
    if len(values) != count:
        return f"bad scores: {len(values)} for {count} texts"
    if any(isinstance(v, bool) or not isinstance(v, numbers.Real) for v in values):
        return "bad scores: not all numbers"
    floats = [float(v) for v in values]
    return "bad scores: NaN" if any(f != f for f in floats) else floats


def _fallback(kept: RerankOutcome[T], why: str) -> RerankOutcome[T]:
    return RerankOutcome(kept.items, reranked=False, note=f"rerank failed ({why}): fused order kept",
                         scores=kept.scores)
