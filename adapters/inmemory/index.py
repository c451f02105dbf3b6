"""The in-memory search index's item and its small BM25 (the FTS5 adapter's ranking, in Python)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
from attrs import frozen

from hlmem.adapters.text.fts_query import unicode61_tokens
from hlmem.adapters.text.segment import search_terms, segment_for_index
from hlmem.application.ports import Candidate


@frozen
class IndexedItem:
    """An indexed claim or event: its index tokens (segmented text) and its vector, if any."""

    item_id: str
    kind: str
    namespace: str
    tokens: tuple[str, ...]
    vector: np.ndarray | None


def bm25(query: str, items: Sequence[IndexedItem], tokens: Mapping[str, tuple[str, ...]], limit: int, *,
         exact: bool) -> list[Candidate]:
    """A small BM25 (k1 1.2, b 0.75) over ``tokens`` by item; each query term is matched as a phrase of
    its unicode61 tokens, like the FTS5 adapter. ``exact`` marks hits holding every term."""
    terms = [tuple(segment_for_index(t).split()) for t in search_terms(query)]
    terms = [t for t in terms if t]
    if not terms or not items or limit <= 0:
        return []
    docs = {i.item_id: [tok for raw in tokens[i.item_id] for tok in _parts(raw)] for i in items}
    avg = sum(len(d) for d in docs.values()) / len(docs) or 1.0
    df = {t: sum(1 for d in docs.values() if _has_phrase(d, t)) for t in terms}
    scored = []
    for position, item in enumerate(items):
        doc = docs[item.item_id]
        score, matched = 0.0, 0
        for term in terms:
            tf = _count_phrase(doc, term)
            if tf:
                matched += 1
                idf = math.log(1 + (len(docs) - df[term] + 0.5) / (df[term] + 0.5))
                score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len(doc) / avg))
        if score > 0:
            scored.append((score, -position, item, exact and matched == len(terms)))
    # Equal scores: the item indexed last first, as the FTS5 adapter's ``rowid DESC`` does, so both
    # adapters hand recall the same order (ties are common: one turn repeated across sessions).
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [Candidate(i.item_id, i.kind, r, s, hit) for r, (s, _, i, hit) in enumerate(scored[:limit], start=1)]


def _parts(token: str) -> list[str]:
    """Split an atom the way unicode61 does."""
    return unicode61_tokens(token)


def _count_phrase(doc: list[str], term: tuple[str, ...]) -> int:
    parts = [p for raw in term for p in _parts(raw)]
    if not parts:
        return 0
    n = len(parts)
    return sum(1 for i in range(len(doc) - n + 1) if doc[i:i + n] == parts)


def _has_phrase(doc: list[str], term: tuple[str, ...]) -> bool:
    return _count_phrase(doc, term) > 0
