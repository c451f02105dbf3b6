"""The three baselines, run on the same documents and vectors as hlmem: BM25, dense (cosine) and RRF of the two.

- BM25: ``rank-bm25``'s ``BM25Okapi`` (k1 = 1.5, b = 0.75, idf floor 0.25 x mean idf; or ``bm25s``,
  Lucene variant, with ``--bm25 bm25s``) over hlmem's own tokens: documents cut by
  ``segment_for_index`` (jieba search mode for Han runs, lower-cased words elsewhere), queries by
  ``query_terms`` (the same cut, Chinese and English stop words dropped). Only documents sharing a
  term with the query are ranked.
- dense: cosine similarity of the embedder's L2-normalised query and passage vectors, every
  document ranked.
- RRF: ``sum 1 / (60 + rank)`` over the two rankings above (Cormack et al. 2009), ties by BM25 order.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hlmem.adapters.text.segment import query_terms, segment_for_index

#: The RRF constant, as in hlmem's RecallService and the literature.
RRF_K = 60


def doc_tokens(text: str) -> list[str]:
    """A document's BM25 tokens: hlmem's index segmentation, split on spaces."""
    return segment_for_index(text).split()


class BM25Index:
    """BM25 over one haystack's documents (ids kept in document order).

    :param library: ``rank-bm25`` (default; it reproduces the issue's reference figures within
        0.01) or ``bm25s``.
    """

    def __init__(self, ids: Sequence[str], texts: Sequence[str], library: str = "rank-bm25") -> None:
        self.ids = list(ids)
        tokens = [doc_tokens(t) or ["\u2205"] for t in texts]  # an empty document would break both libraries
        if not self.ids:
            self._scores = None
        elif library == "rank-bm25":
            from rank_bm25 import BM25Okapi  # optional extra ``bench``

            self._scores = BM25Okapi(tokens).get_scores
        elif library == "bm25s":
            import bm25s  # optional extra ``bench``

            index = bm25s.BM25()
            index.index(tokens, show_progress=False)
            self._scores = index.get_scores
        else:
            raise ValueError(f"unknown BM25 library {library!r}")

    def rank(self, query: str, limit: int) -> list[str]:
        """Ids of the documents sharing a term with ``query``, best first, at most ``limit``."""
        terms = query_terms(query)
        if not terms or self._scores is None:
            return []
        scores = np.asarray(self._scores(terms), dtype=float)
        order = np.argsort(-scores, kind="stable")[:limit]
        return [self.ids[i] for i in order if scores[i] > 0]


class DenseIndex:
    """Exact cosine search over L2-normalised passage vectors."""

    def __init__(self, ids: Sequence[str], vectors: np.ndarray) -> None:
        self.ids = list(ids)
        self._matrix = np.ascontiguousarray(vectors, dtype=np.float32)

    def rank(self, query_vector: np.ndarray, limit: int) -> list[str]:
        """Ids of the ``limit`` documents nearest ``query_vector``, best first."""
        if not self.ids:
            return []
        scores = self._matrix @ np.asarray(query_vector, dtype=np.float32)
        limit = min(limit, len(self.ids))
        top = np.argpartition(-scores, limit - 1)[:limit]
        top = top[np.lexsort((top, -scores[top]))]
        return [self.ids[i] for i in top]


def rrf(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> list[str]:
    """Reciprocal-rank fusion of ranked id lists; ties keep the order of first appearance."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    order = {item: i for i, item in enumerate(dict.fromkeys(i for r in rankings for i in r))}
    return sorted(scores, key=lambda item: (-scores[item], order[item]))
