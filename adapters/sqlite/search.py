"""Search over the SQLite store: full text (pre-segmented FTS5), vectors (in-memory index), visibility."""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from datetime import datetime
from itertools import islice

import apsw
import numpy as np

from hlmem.adapters.text.fts_query import build_match
from hlmem.adapters.text.segment import index_text, search_terms, segment_for_index
from hlmem.adapters.vectors.index import VectorIndex
from hlmem.application.ports import Candidate
from hlmem.domain.errors import ModelMismatch
from hlmem.domain.time import to_micros

#: How many more FTS hits to fetch than asked, to make up for other namespaces' hits.
FTS_OVERFETCH = 4
#: Vectors read from the table per step when loading the in-memory index.
_LOAD_CHUNK = 8_192
#: Loads of at least this many new rows size the index once and calibrate it once (VectorIndex.bulk).
_BULK_ROWS = 4_096
#: Most documents bm25 may rank for one query. FTS5 scores every match of an OR query, so very
#: common terms (say "user" in 80% of rows) would make recall linear in the store; the rarest
#: terms are kept until their document counts reach this budget (they carry the most weight
#: in bm25 anyway; vectors still see the whole query).
FTS_DOC_BUDGET = 2_000
#: Joins a matching ``items_fts`` row to its item (``_matches``).
ITEMS_JOIN = "JOIN items i ON i.item_key = f.rowid"


def index_item(con: apsw.Connection, item_id: str, kind: str, namespace: str, text: str,
               vector: bytes | None) -> int:
    """Add one searchable item (text and optional vector) and return its key."""
    con.execute("INSERT INTO items (item_id, kind, namespace) VALUES (?,?,?)", (item_id, kind, namespace))
    key = con.last_insert_rowid()
    body = index_text(text)
    if body:
        con.execute("INSERT INTO items_fts (rowid, body) VALUES (?, ?)", (key, body))
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
    con.executemany("INSERT INTO items_fts (rowid, body) VALUES (?, ?)", [kb for kb in segmented.values() if kb[1]])
    con.executemany("INSERT INTO vectors (item_key, vec) VALUES (?, ?)",
                    [(k, vec) for k, _i, _k, _n, _t, vec in keyed if vec is not None])
    return segmented


def drop_items(con: apsw.Connection, item_ids: Sequence[str]) -> int:
    """Remove items from full text and vectors (forget, archive); return how many were indexed."""
    dropped = 0
    for start in range(0, len(item_ids), 500):
        chunk = list(item_ids[start:start + 500])
        marks = ",".join("?" * len(chunk))
        keys = [(k,) for (k,) in con.execute(f"SELECT item_key FROM items WHERE item_id IN ({marks})", chunk)]
        if not keys:
            continue
        con.executemany("DELETE FROM items_fts WHERE rowid = ?", keys)
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


#: Fills kept in ``vector_fills``; a connection whose vector index lags further behind loads anew.
FILL_LOG_KEEP = 50_000


def fill_vectors(con: apsw.Connection, vectors: Sequence[tuple[str, bytes]]) -> int:
    """Store each ``(item_id, vector)`` whose item is indexed and has no vector yet, logging its key
    in ``vector_fills`` (so every connection's vector index loads it); returns how many it stored."""
    stored = 0
    for item_id, vec in vectors:
        row = con.execute("SELECT i.item_key FROM items i WHERE i.item_id = ? AND NOT EXISTS "
                          "(SELECT 1 FROM vectors v WHERE v.item_key = i.item_key)", (item_id,)).fetchone()
        if row is None:
            continue
        con.execute("INSERT INTO vectors (item_key, vec) VALUES (?, ?)", (row[0], vec))
        con.execute("INSERT INTO vector_fills (item_key) VALUES (?)", (row[0],))
        stored += 1
    if stored:
        con.execute("DELETE FROM vector_fills WHERE seq <= (SELECT max(seq) FROM vector_fills) - ?", (FILL_LOG_KEEP,))
    return stored


def vector_epoch(con: apsw.Connection) -> int:
    """How many times vectors were deleted or replaced in this store: a vector cache built under
    another epoch is rebuilt, while one built under this epoch only loads what was added since."""
    row = con.execute("SELECT value FROM meta WHERE key = 'vector_epoch'").fetchone()
    return int(row[0]) if row else 0


def bump_vector_epoch(con: apsw.Connection) -> None:
    """Record a deletion or replacement of vectors (inside the writing transaction)."""
    con.execute("INSERT INTO meta (key, value) VALUES ('vector_epoch', '1') "
                "ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1")


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


class VectorCache:
    """The store's vectors held in a :class:`VectorIndex`, refreshed incrementally from the table.

    Two locks keep a search off the connection: :meth:`refresh` reads the table and needs the
    store's connection lock (held by the caller), :meth:`search` only scans memory. The cache's own
    lock guards the index in both, always taken after the connection lock, never before it, so a
    vector search can run in one thread while another thread uses the connection (ADR 0022).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._index: VectorIndex | None = None
        self._loaded_key = 0
        self._kinds: dict[str, str] = {}
        self._changes: int | None = None
        self._epoch: int | None = None
        self._fill_seq = 0

    def invalidate(self) -> None:
        """Drop everything (after deletions or a rebuild)."""
        with self._lock:
            self._index = None
            self._loaded_key = 0
            self._kinds.clear()
            self._changes = None
            self._epoch = None
            self._fill_seq = 0

    def stale(self) -> None:
        """Another connection committed: look at the table again at the next :meth:`refresh`,
        which loads only what was added unless vectors were deleted meanwhile (``vector_epoch``)."""
        with self._lock:
            self._changes = None

    def refresh(self, con: apsw.Connection, dim: int) -> None:
        """Load the vectors written since the last look; the caller holds the connection's lock."""
        with self._lock:
            # Nothing written on this connection since the last look, and no other connection
            # committed (the store calls :meth:`stale` then): no new vectors.
            changes = con.total_changes()
            if self._index is None or changes != self._changes:
                with con:  # one snapshot: the vectors added, and those the worker filled in below them
                    epoch = vector_epoch(con)
                    newest_fill, oldest_fill = con.execute(
                        "SELECT coalesce(max(seq), 0), coalesce(min(seq), 0) FROM vector_fills").fetchone()
                    if self._index is not None and (epoch != self._epoch or oldest_fill > self._fill_seq + 1):
                        # Vectors were deleted or replaced (by any connection), or fills this index
                        # has not seen left the log: start over.
                        self._index, self._loaded_key, self._epoch = None, 0, None
                        self._kinds.clear()
                    if self._index is not None and newest_fill > self._fill_seq and self._loaded_key:
                        self._load_filled(con, self._fill_seq, self._loaded_key)
                    self._load_new(con, dim)
                self._changes, self._epoch, self._fill_seq = changes, epoch, newest_fill

    def search(self, namespace: str, vector: bytes, dim: int, limit: int) -> list[Candidate] | None:
        """Nearest items to ``vector`` within ``namespace``, best first, from memory alone.

        :returns: None when the index was dropped since the last :meth:`refresh` (refresh again).
        """
        query = np.frombuffer(vector, dtype=np.float32)
        if query.shape != (dim,):
            raise ModelMismatch(f"query vector has {query.size} dimensions; the store's model has {dim}")
        with self._lock:
            index = self._index
            if index is None:
                return None
            if len(index) == 0 or limit <= 0:
                return []
            hits = index.search(query, limit, group=namespace)
            kinds = self._kinds
            return [Candidate(item_id, kinds.get(item_id, "claim"), rank, float(score))
                    for rank, (item_id, score) in enumerate(hits, start=1)]

    def _load_new(self, con: apsw.Connection, dim: int) -> None:
        if self._index is None:
            self._index = VectorIndex(dim)
        index = self._index
        newest = con.execute("SELECT coalesce(max(item_key), 0) FROM vectors").fetchone()[0]
        if newest <= self._loaded_key:
            return
        # Items without a vector are rare, so the new items bound the new vectors closely.
        expected = con.execute("SELECT count(*) FROM items WHERE item_key > ?", (self._loaded_key,)).fetchone()[0]
        # CROSS JOIN keeps vectors as the outer loop, already in key order: a plain JOIN lets the
        # planner walk items and sort every vector in a temporary b-tree first.
        rows = con.execute(
            "SELECT v.item_key, i.item_id, i.kind, i.namespace, v.vec FROM vectors v "
            "CROSS JOIN items i ON i.item_key = v.item_key WHERE v.item_key > ? ORDER BY v.item_key",
            (self._loaded_key,),
        )
        # An eighth more room than the load needs: the next adds (this connection's or, now that
        # another's commit extends the cache, theirs) do not copy every array at once (0.3 s at 100k).
        loading = index.bulk(expected + expected // 8) if expected >= _BULK_ROWS else nullcontext()
        with loading:
            # In chunks: the float32 rows go straight into the index, never the whole table at once.
            while chunk := list(islice(rows, _LOAD_CHUNK)):
                self._load(index, chunk, dim)
                self._loaded_key = chunk[-1][0]

    def _load_filled(self, con: apsw.Connection, after: int, below: int) -> None:
        """Vectors the worker stored for items at or below the loaded key, logged after fill ``after``
        (ADR 0080); those above the loaded key come with :meth:`_load_new`."""
        assert self._index is not None
        rows = con.execute(
            "SELECT v.item_key, i.item_id, i.kind, i.namespace, v.vec FROM vector_fills f "
            "CROSS JOIN vectors v ON v.item_key = f.item_key CROSS JOIN items i ON i.item_key = f.item_key "
            "WHERE f.seq > ? AND f.item_key <= ? ORDER BY f.seq", (after, below)).fetchall()
        if rows:
            self._load(self._index, rows, self._index.dim)

    def _load(self, index: VectorIndex, chunk: list[tuple], dim: int) -> None:
        matrix = np.frombuffer(b"".join(r[4] for r in chunk), dtype=np.float32).reshape(len(chunk), dim)
        namespaces = [r[3] for r in chunk]
        first = namespaces[0]
        if namespaces.count(first) == len(namespaces):
            index.add([r[1] for r in chunk], matrix, group=first)
        else:
            for ns in dict.fromkeys(namespaces):
                picked = [i for i, n in enumerate(namespaces) if n == ns]
                index.add([chunk[i][1] for i in picked], matrix[picked], group=ns)
        self._kinds.update((r[1], r[2]) for r in chunk)


def vector_model(con: apsw.Connection) -> tuple[str, int] | None:
    """The (model id, dimension) bound to this store, if any."""
    rows = dict(con.execute("SELECT key, value FROM meta WHERE key IN ('vector_model', 'vector_dim')"))
    if "vector_model" not in rows:
        return None
    return rows["vector_model"], int(rows["vector_dim"])


def bind_vector_model(con: apsw.Connection, model_id: str, dim: int) -> None:
    """Record the store's embedding model, or refuse another one."""
    current = vector_model(con)
    if current is None:
        with con:
            con.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('vector_model', ?), ('vector_dim', ?)",
                        (model_id, str(dim)))
        return
    if current != (model_id, dim):
        raise ModelMismatch(
            f"this store's vectors were made by {current[0]} ({current[1]}-d), not {model_id} ({dim}-d); "
            "run `hlmem reembed` to switch models, or choose the store's model with HLMEM_EMBEDDER"
        )


