"""Search over the SQLite store: full text (pre-segmented FTS5), visibility; the vectors' table and
in-memory index are in :mod:`hlmem.adapters.sqlite.vector_table` (re-exported here)."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from datetime import datetime

import apsw

from hlmem.adapters.sqlite.vector_table import (  # noqa: F401 - the store's modules read them here
    FILL_LOG_KEEP, VectorCache, bind_vector_model, bump_vector_epoch, fill_vectors, vector_epoch, vector_model)
from hlmem.adapters.text.fts_query import build_match
from hlmem.adapters.text.segment import index_text, search_terms, segment_for_index
from hlmem.application.ports import Candidate
from hlmem.domain.time import to_micros

#: How many more FTS hits to fetch than asked, to make up for other namespaces' hits.
FTS_OVERFETCH = 4
#: Most documents bm25 may rank for one query. FTS5 scores every match of an OR query, so very
#: common terms (say "user" in 80% of rows) would make recall linear in the store; the rarest
#: terms are kept until their document counts reach this budget (they carry the most weight
#: in bm25 anyway; vectors still see the whole query).
FTS_DOC_BUDGET = 2_000
#: Joins a matching ``items_fts`` row to its item (``_matches``).
ITEMS_JOIN = "JOIN items i ON i.item_key = f.rowid"


#: The full-text table of derived items (kind ``derived``, migration 0023): apart from
#: ``items_fts``, so that they never change the bm25 statistics of claims and events (ADR 0084).
DERIVED_FTS = "derived_fts"


def fts_of(kind: str) -> str:
    """The full-text table of an item of ``kind``."""
    return DERIVED_FTS if kind == "derived" else "items_fts"


def index_item(con: apsw.Connection, item_id: str, kind: str, namespace: str, text: str,
               vector: bytes | None) -> int:
    """Add one searchable item (text and optional vector) and return its key."""
    con.execute("INSERT INTO items (item_id, kind, namespace) VALUES (?,?,?)", (item_id, kind, namespace))
    key = con.last_insert_rowid()
    body = index_text(text)
    if body:
        con.execute(f"INSERT INTO {fts_of(kind)} (rowid, body) VALUES (?, ?)", (key, body))
    if vector is not None:
        con.execute("INSERT INTO vectors (item_key, vec) VALUES (?, ?)", (key, vector))
    return key


#: unicode61 tokens by term: the same for every index and connection (one tokenizer configuration).
_TOKENS: dict[str, list[str]] = {}


class DocFrequencies:
    """Document counts of FTS tokens (from ``items_vocab``), cached until the store changes.

    ``fts5vocab`` counts a token's documents by walking its whole doclist, which costs more
    than the search itself for common tokens; queries share most tokens (names, predicate
    labels), so the counts are kept until this connection writes anything or another
    connection commits (``total_changes`` / ``data_version``).
    """

    #: Tokens remembered at most; the cache starts over beyond this.
    MAX_TOKENS = 50_000

    def __init__(self, vocab: str = "items_vocab") -> None:
        #: The ``fts5vocab`` table of the full-text index counted (``items_vocab``, ``context_vocab``).
        self.vocab = vocab
        self._counts: dict[str, int] = {}
        self._state: tuple[int, int] | None = None
        #: The part of the last search's rows that were the namespace's own (sizes the next fetch).
        self.share: dict[str, float] = {}
        self._tokenizer = None
        self._con: apsw.Connection | None = None

    def invalidate(self) -> None:
        """Forget every count."""
        self._counts.clear()
        self._state = None

    def _tokens(self, con: apsw.Connection, term: str) -> list[str]:
        if self._tokenizer is None or self._con is not con:
            # The tokenizer SQLite itself uses (a Python imitation drifts on Greek final sigma and the like).
            self._tokenizer = con.fts5_tokenizer("unicode61", ["remove_diacritics", "2"])
            self._con = con
            self.invalidate()
        tokens = _TOKENS.get(term)
        if tokens is None:
            tokens = [tok[2] for tok in self._tokenizer(term.encode("utf-8"), apsw.FTS5_TOKENIZE_QUERY, None)]
            if len(_TOKENS) >= self.MAX_TOKENS:
                _TOKENS.clear()
            _TOKENS[term] = tokens
        return tokens

    def of_terms(self, con: apsw.Connection, terms: Sequence[str]) -> dict[str, int]:
        """Estimated documents per term: a phrase occurs in no more documents than its rarest token."""
        parts = {t: self._tokens(con, t) for t in terms}
        state = (con.pragma("data_version"), con.total_changes())
        if state != self._state or len(self._counts) > self.MAX_TOKENS:
            self._counts.clear()
            self._state = state
        missing = sorted({p for ps in parts.values() for p in ps} - self._counts.keys())
        if missing:
            self._counts.update(dict.fromkeys(missing, 0))
            marks = ",".join("?" * len(missing))
            self._counts.update(con.execute(f"SELECT term, doc FROM {self.vocab} WHERE term IN ({marks})", missing))
        return {t: min((self._counts[p] for p in ps), default=0) for t, ps in parts.items()}


def select_terms(df: Mapping[str, int], terms: Sequence[str], budget: int = FTS_DOC_BUDGET) -> tuple[list[str], bool]:
    """The query terms worth ranking: those that occur at all, rarest first, within ``budget``.

    :param df: estimated documents per term (:meth:`DocFrequencies.of_terms`).
    :returns: the kept terms and whether the rarest one alone exceeds the budget (then the
        caller takes the newest matches instead of ranking them all).
    """
    ranked = sorted((t for t in terms if df[t] > 0), key=lambda t: df[t])
    kept, total = [], 0
    for term in ranked:
        if kept and total + df[term] > budget:
            break
        kept.append(term)
        total += df[term]
    return kept, bool(kept) and df[kept[0]] > budget


def index_items(con: apsw.Connection,
                items: Sequence[tuple[str, str, str, str, bytes | None]]) -> dict[str, tuple[int, str]]:
    """Add searchable items ``(item_id, kind, namespace, text, vector)`` with one statement per table;
    return each item's key and indexed (segmented) body."""
    if not items:
        return {}
    first = con.execute("SELECT coalesce(max(item_key), 0) + 1 FROM items").fetchone()[0]
    keyed = [(first + i, *item) for i, item in enumerate(items)]
    con.executemany("INSERT INTO items (item_key, item_id, kind, namespace) VALUES (?,?,?,?)",
                    [(k, item_id, kind, ns) for k, item_id, kind, ns, _t, _v in keyed])
    segmented = {item_id: (k, index_text(text)) for k, item_id, _k, _n, text, _v in keyed}
    derived = {item_id for _k, item_id, kind, _n, _t, _v in keyed if kind == "derived"}
    con.executemany("INSERT INTO items_fts (rowid, body) VALUES (?, ?)",
                    [kb for i, kb in segmented.items() if kb[1] and i not in derived])
    if derived:
        con.executemany(f"INSERT INTO {DERIVED_FTS} (rowid, body) VALUES (?, ?)",
                        [kb for i, kb in segmented.items() if kb[1] and i in derived])
    con.executemany("INSERT INTO vectors (item_key, vec) VALUES (?, ?)",
                    [(k, vec) for k, _i, _k, _n, _t, vec in keyed if vec is not None])
    return segmented


def drop_items(con: apsw.Connection, item_ids: Sequence[str]) -> int:
    """Remove items from full text and vectors (forget, archive); return how many were indexed."""
    dropped = 0
    for start in range(0, len(item_ids), 500):
        chunk = list(item_ids[start:start + 500])
        marks = ",".join("?" * len(chunk))
        found = con.execute(f"SELECT item_key, kind FROM items WHERE item_id IN ({marks})", chunk).fetchall()
        keys = [(k,) for k, _kind in found]
        if not keys:
            continue
        con.executemany("DELETE FROM items_fts WHERE rowid = ?", [(k,) for k, kind in found if kind != "derived"])
        con.executemany(f"DELETE FROM {DERIVED_FTS} WHERE rowid = ?", [(k,) for k, kind in found if kind == "derived"])
        # The context index's pairs holding these items (context.py rebuilds the pairs around them).
        con.executemany("DELETE FROM context_fts WHERE rowid IN "
                        "(SELECT pair_key FROM context_pairs WHERE first_key = ?1 OR second_key = ?1)", keys)
        con.executemany("DELETE FROM context_pairs WHERE first_key = ?1 OR second_key = ?1", keys)
        con.executemany("DELETE FROM vectors WHERE item_key = ?", keys)
        con.executemany("DELETE FROM items WHERE item_key = ?", keys)
        dropped += len(keys)
    if dropped:
        bump_vector_epoch(con)
    return dropped


def _matches(con: apsw.Connection, match: str, namespace: str, limit: int, newest: bool,
             fts: str = "items_fts", join: str = ITEMS_JOIN, share: dict[str, float] | None = None) -> list[tuple]:
    """Up to ``limit`` ``(item_id, kind, bm25)`` hits of one MATCH expression within ``namespace``.

    ``newest`` takes the newest matches without ranking them all (bm25 reported as 0). ``join``
    maps a matching row to its items (one, or several: the context index's pairs); an item
    matched by several rows counts once, at its best. Rows of other namespaces are fetched and
    dropped: ``share`` (namespace -> the part of rows that were its own last time) sizes the first
    fetch, up to :data:`FTS_OVERFETCH` times ``limit``; a store of one namespace fetches ``limit``.
    """
    # rowid breaks bm25 ties, so that the hits do not depend on how many rows were fetched.
    order = "rowid DESC" if newest else "rank, rowid DESC"
    own = share.get(namespace) if share is not None else None
    if own == 1.0:
        fetch = limit
    elif own:
        fetch = limit * min(FTS_OVERFETCH, math.ceil(1.25 / own))
    else:
        fetch = limit * FTS_OVERFETCH
    while True:
        rows = con.execute(
            "SELECT i.item_id, i.kind, i.namespace, f.rank FROM "
            f"(SELECT rowid, {'0 AS rank' if newest else 'rank'} FROM {fts} WHERE {fts} MATCH ? "
            f"ORDER BY {order} LIMIT ?) AS f {join} ORDER BY f.rank, f.rowid DESC, i.item_key",
            (match, fetch),
        ).fetchall()
        best: dict[str, tuple] = {}  # rows come best first: an item keeps its first (best) row
        for item_id, kind, ns, score in rows:
            if ns == namespace and item_id not in best:
                best[item_id] = (item_id, kind, score)
        if share is not None and rows:
            share[namespace] = sum(1 for r in rows if r[2] == namespace) / len(rows)
        hits = list(best.values())
        if len(hits) >= limit or len(rows) < fetch:
            return hits[:limit]
        fetch *= 4


def text_candidates(con: apsw.Connection, namespace: str, query: str, limit: int,
                    frequencies: DocFrequencies | None = None, *, fts: str = "items_fts",
                    join: str = ITEMS_JOIN) -> list[Candidate]:
    """FTS5 hits for the query's terms, best first, within one namespace.

    First the items holding every query term that occurs in the index (AND), then the items
    holding any of the rarest terms within :data:`FTS_DOC_BUDGET` (OR, bm25). The AND pass
    finds "Tom Davis's marital status" among a thousand "Tom …" items, which the budget alone
    would cut down to the rarest term; it is cheap since an AND matches no more items than its
    rarest term. Ranking it by bm25 costs a pass over every term's documents, common ones
    included, so it is ranked only when all its terms' documents fit the budget too; beyond
    that its items (which all hold every term) come newest first.

    :param fts: the full-text table searched (``items_fts``; ``context_fts`` for the context
        ranking), with ``frequencies`` counting that table's vocabulary, and ``join`` (SQL joining
        its matching rows ``f`` to ``items i``) saying which items a row stands for.
    """
    if limit <= 0:
        return []
    # Each term as the index segments it (a phrase of its tokens): jieba may cut a word alone
    # ("主 上") unlike inside the query ("主上中" -> 主上 · 中); the in-memory adapter does the same.
    terms = list(_search_terms(query))
    frequencies = frequencies or DocFrequencies()
    df = frequencies.of_terms(con, terms)
    share = frequencies.share
    occurring = [t for t in terms if df[t] > 0]
    kept, overflow = select_terms(df, occurring, FTS_DOC_BUDGET)
    hits: list[tuple] = []
    if len(occurring) > 1:
        every = build_match(sorted(occurring, key=lambda t: df[t]), "and")  # rarest first: FTS5 skips more
        if every is not None:
            hits = _matches(con, every, namespace, limit, sum(df[t] for t in occurring) > FTS_DOC_BUDGET, fts,
                            join, share)
    # Hits of the AND pass (or of a one-term query) hold every query term when every term occurs.
    exact = len(hits) if len(occurring) > 1 else limit
    exact = exact if occurring and len(occurring) == len(terms) else 0
    if len(hits) < limit:
        match = build_match(kept)
        if match is not None:
            seen = {h[0] for h in hits}
            more = _matches(con, match, namespace, limit + len(hits), overflow, fts, join, share)
            hits += [h for h in more if h[0] not in seen][:limit - len(hits)]
    return [Candidate(item_id, kind, rank, -float(score), rank <= exact)
            for rank, (item_id, kind, score) in enumerate(hits, start=1)]


def sessions_of(con: apsw.Connection, event_ids: Sequence[str]) -> dict[str, str]:
    """Each known event's session."""
    out: dict[str, str] = {}
    ids = list(dict.fromkeys(event_ids))
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        marks = ",".join("?" * len(chunk))
        out.update(con.execute(f"SELECT event_id, session_id FROM observations WHERE event_id IN ({marks})", chunk))
    return out


def speakers(con: apsw.Connection, namespace: str) -> frozenset[str]:
    """Roles of the namespace's not forgotten events: a skip scan of ``observations_speakers``, one
    index probe per role (there are few), not a pass over the events."""
    out: list[str] = []
    role = con.execute("SELECT min(role) FROM observations WHERE namespace = ? AND forgotten = 0",
                       (namespace,)).fetchone()[0]
    while role is not None:
        out.append(role)
        role = con.execute("SELECT min(role) FROM observations WHERE namespace = ? AND forgotten = 0 AND role > ?",
                           (namespace, role)).fetchone()[0]
    return frozenset(out)


@functools.lru_cache(maxsize=256)
def _search_terms(query: str) -> tuple[str, ...]:
    """The query's terms as the index segments them (shared by the full-text and context searches)."""
    return tuple(dict.fromkeys(segment_for_index(t) or t for t in search_terms(query)))


def visible(con: apsw.Connection, ids: Sequence[str], valid_at: datetime, known_at: datetime) -> set[str]:
    """Claim ids that held at ``valid_at`` as known at ``known_at``; event ids that had happened by
    ``valid_at`` (occurred_at) and were recorded by ``known_at``."""
    claim_ids = [i for i in ids if i.startswith("cl_")]
    event_ids = [i for i in ids if i.startswith("ev_")]
    t, k = to_micros(valid_at), to_micros(known_at)
    out: set[str] = set()
    if claim_ids:
        marks = ",".join("?" * len(claim_ids))
        out.update(r[0] for r in con.execute(
            f"SELECT DISTINCT c.claim_id FROM claims c JOIN claim_versions v ON v.claim_id = c.claim_id "
            f"WHERE c.claim_id IN ({marks}) AND c.status != 'forgotten' "
            "AND v.recorded_from <= ? AND (v.recorded_to IS NULL OR v.recorded_to > ?) "
            "AND v.valid_from <= ? AND (v.valid_to IS NULL OR v.valid_to > ?)",
            (*claim_ids, k, k, t, t),
        ))
    if event_ids:
        marks = ",".join("?" * len(event_ids))
        out.update(r[0] for r in con.execute(
            f"SELECT event_id FROM observations WHERE event_id IN ({marks}) AND forgotten = 0 AND recorded_at <= ? "
            "AND occurred_at <= ?",
            (*event_ids, k, t),
        ))
    return out
