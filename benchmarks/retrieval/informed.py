"""Informed baselines: BM25, dense and RRF given the side information hlmem gets (issue 16).

hlmem's store receives each document's session, speaker, turn order and date, and its recall
uses them. A fair comparison gives the baselines the same: these rankers see

- ``bm25_i`` / ``dense_i``: each document as ``"[YYYY-MM-DD] speaker: text"`` (the date and the
  speaker written into the text);
- ``rrf_i``: RRF of those two;
- ``rrf_ctx``: RRF of ``bm25_i``, ``dense_i`` and the same two over consecutive-turn windows
  (the document with the turn before and after it in its session), then a fixed-weight
  aggregation: each candidate gains ``SESSION_WEIGHT`` x the best fused score in its session,
  and ``SPEAKER_BONUS`` (in RRF units) when the query names its speaker.

The weights are fixed by hand, once, and never tuned on any split: the informed baselines are
what a careful engineer would build in an afternoon, not a second hlmem.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .baselines import RRF_K, BM25Index, DenseIndex
from .data import Doc

#: Methods this module adds, in table order.
INFORMED = ("bm25_i", "dense_i", "rrf_i", "rrf_ctx")
#: Share of the best fused score of a candidate's session it gains (session evidence).
SESSION_WEIGHT = 0.3
#: What a document gains when the query names its speaker: a fifth of a first-rank RRF vote.
SPEAKER_BONUS = 0.2 / (RRF_K + 1)
#: Speakers that are roles, not names a query would use.
_ROLES = frozenset({"user", "assistant", "system", "用户", "助手"})


def decorated(doc: Doc) -> str:
    """``"[date] speaker: text"`` (no date part without a date; the speaker once, even when the
    text already starts with it)."""
    text = doc.text
    if doc.speaker and not text.startswith(f"{doc.speaker}:"):
        text = f"{doc.speaker}: {text}"
    return f"[{doc.occurred_at:%Y-%m-%d}] {text}" if doc.occurred_at is not None else text


def windows(docs: Sequence[Doc]) -> list[str]:
    """Each document's decorated text between its session's previous and next turn (haystack
    order is turn order)."""
    texts = [decorated(d) for d in docs]
    out = []
    for i, doc in enumerate(docs):
        parts = [texts[i]]
        if i > 0 and docs[i - 1].session == doc.session:
            parts.insert(0, texts[i - 1])
        if i + 1 < len(docs) and docs[i + 1].session == doc.session:
            parts.append(texts[i + 1])
        out.append("\n".join(parts))
    return out


def fused_scores(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> dict[str, float]:
    """RRF scores of every id in ``rankings``."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return scores


def _order(scores: dict[str, float], first_seen: Sequence[str]) -> list[str]:
    seen = {item: i for i, item in enumerate(dict.fromkeys(first_seen))}
    return sorted(scores, key=lambda item: (-scores[item], seen.get(item, len(seen))))


def aggregate(scores: dict[str, float], docs: dict[str, Doc], query: str) -> dict[str, float]:
    """Session evidence and the named-speaker bonus, with the fixed weights above."""
    best: dict[str, float] = {}
    for item, score in scores.items():
        session = docs[item].session
        best[session] = max(best.get(session, 0.0), score)
    folded = query.casefold()
    out = {}
    for item, score in scores.items():
        doc = docs[item]
        named = bool(doc.speaker) and doc.speaker.casefold() not in _ROLES and doc.speaker.casefold() in folded
        out[item] = score + SESSION_WEIGHT * best[doc.session] + (SPEAKER_BONUS if named else 0.0)
    return out


class InformedRankers:
    """The informed baselines over one haystack; vectors come from the caller's embedder."""

    def __init__(self, docs: Sequence[Doc], bm25_library: str, embed: object | None) -> None:
        ids = [d.id for d in docs]
        self._docs = {d.id: d for d in docs}
        own, around = [decorated(d) for d in docs], windows(docs)
        self._bm25 = BM25Index(ids, own, bm25_library)
        self._bm25_window = BM25Index(ids, around, bm25_library)
        self._dense = self._dense_window = None
        if embed is not None:
            self._dense = DenseIndex(ids, embed.passages(own))  # type: ignore[attr-defined]
            self._dense_window = DenseIndex(ids, embed.passages(around))  # type: ignore[attr-defined]

    def rank(self, query: str, query_vector: np.ndarray | None, pool: int) -> dict[str, list[str]]:
        """Every informed method's ranking of ``query`` (the dense ones only with a vector)."""
        lexical = self._bm25.rank(query, pool)
        out = {"bm25_i": lexical}
        lexical_window = self._bm25_window.rank(query, pool)
        if self._dense is None or self._dense_window is None or query_vector is None:
            scores = aggregate(fused_scores([lexical, lexical_window]), self._docs, query)
            out["rrf_ctx"] = _order(scores, lexical + lexical_window)
            return out
        semantic = self._dense.rank(query_vector, pool)
        semantic_window = self._dense_window.rank(query_vector, pool)
        out["dense_i"] = semantic
        out["rrf_i"] = _order(fused_scores([lexical, semantic]), lexical + semantic)
        every = [lexical, semantic, lexical_window, semantic_window]
        scores = aggregate(fused_scores(every), self._docs, query)
        out["rrf_ctx"] = _order(scores, [i for r in every for i in r])
        return out
