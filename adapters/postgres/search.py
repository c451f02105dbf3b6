"""Full text and vectors on PostgreSQL: hlmem's tokens in posting lists read from their heads, pgvector HNSW with exact rescoring.

Full text: an item's search text is segmented by jieba (``segment_for_index``) and split by the
unicode61 rules hlmem's other stores use (no PostgreSQL parser or dictionary: they split ``3.11.7``,
URLs and diacritics differently from SQLite's FTS5, and the stores must agree). The tokens are kept
with the item, and as posting lists in impact order with exact document frequencies and namespace
totals (:mod:`hlmem.adapters.postgres.postings`). A query reads the heads of its terms' lists and
stops once nothing unread can reach the best ``limit`` (:mod:`hlmem.adapters.text.bm25_topk`,
ADR 0051): the same BM25 (k1 1.2, b 0.75, a term matched as a phrase) as the in-memory store, with
the same floats and ties, so the three stores rank alike, at a cost that follows the list heads
rather than the store's size.

Vectors: ``vectors.vec`` (pgvector) with an HNSW index (cosine) over ``vec::vector(dim)``, made
when the model is bound. A namespace with at most :data:`EXACT_BELOW` vectors is scanned exactly
by the server (inner product, the best :data:`FIRST_STAGE` per asked-for result, at least 200,
rescored here with numpy as the in-memory store scores); a larger one takes as many approximate
neighbours from the index, rescored exactly, and falls back to the exact scan when filtering left
fewer than asked for. Vectors travel in pgvector's binary form.
"""

from __future__ import annotations

import functools
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from hlmem.adapters.postgres.db import translated
from hlmem.adapters.text.bm25_topk import Posting, count_phrase, idf, score_of, top_k
from hlmem.adapters.text.fts_query import unicode61_tokens
from hlmem.adapters.text.segment import search_terms, segment_for_index, stems_of
from hlmem.application.ports import Candidate
from hlmem.domain.errors import ModelMismatch

if TYPE_CHECKING:  # psycopg is imported only when a PostgreSQL store is opened (hlmem[postgres])
    import psycopg

#: Exact vector scan up to this many vectors in a namespace; above it, HNSW then exact rescoring.
EXACT_BELOW = 20_000
#: How many approximate neighbours the first stage takes per asked-for result (at least 200).
FIRST_STAGE = 8
#: A token longer than this is cut in the index and in queries alike (a btree entry must stay small).
LEXEME_CHARS = 200

#: Items whose claim or observation is not forgotten. The index holds no other (a forget drops its
#: items in the forget's transaction), so searches read ``items`` alone; listings keep the check.
SEARCHABLE = ("LEFT JOIN claims c ON c.claim_id = i.item_id LEFT JOIN observations o ON o.event_id = i.item_id "
              "WHERE coalesce(c.status, '') <> 'forgotten' AND coalesce(o.forgotten, false) = false")


def _clean(token: str) -> str:
    token = token.replace("\x00", "")
    return token.encode("utf-8", "replace").decode("utf-8")[:LEXEME_CHARS]


def tokens_of(text: str) -> list[str]:
    """The unicode61 tokens of ``text``'s jieba segmentation, then the stems of its English words
    (what BM25 counts; adapters/text/segment.index_text)."""
    plain = _plain_tokens(text)
    return plain + stems_of(plain)


def _plain_tokens(text: str) -> list[str]:
    return [_clean(p) for raw in segment_for_index(text).split() for p in unicode61_tokens(raw) if _clean(p)]


@functools.lru_cache(maxsize=65_536)
def _expansion(token: str) -> tuple[str, ...]:
    """What ``token`` becomes as a query term: a Chinese word, its search-mode expansion
    (``居住地`` -> ``居住 住地 居住地``); most tokens, themselves."""
    return tuple(_plain_tokens(token))


def phrase_keys(tokens: Sequence[str]) -> Counter:
    """The word expansions occurring in ``tokens``, with how often: every occurrence of a phrase
    that is some token's expansion ends at that token, so checking each position finds them all
    (however they came about), and a phrase's list holds every item where it occurs."""
    found: Counter = Counter()
    for j, token in enumerate(tokens):
        parts = _expansion(token)
        n = len(parts)
        if n > 1 and j + 1 >= n and parts[-1] == token and tuple(tokens[j + 1 - n:j + 1]) == parts:
            found[" ".join(parts)] += 1
    return found


def list_key(term: Sequence[str]) -> str | None:
    """The posting list a query term reads: a token's own; a phrase's if it is its last token's
    expansion (:func:`phrase_keys` lists those); else ``None`` (found through its rarest token)."""
    if len(term) == 1:
        return term[0]
    if term and _expansion(term[-1]) == tuple(term):
        return " ".join(term)
    return None


def index_rows(entries: Sequence[tuple[str, str, str, str]]) -> list[tuple]:
    """``(item_id, kind, namespace, text)`` as ``items`` rows (without the key)."""
    out = []
    for item_id, kind, namespace, text in entries:
        toks = tokens_of(text)
        out.append((item_id, kind, namespace, " ".join(toks), len(toks), toks))
    return out


def _terms(query: str) -> list[list[str]]:
    terms = [tuple(segment_for_index(t).split()) for t in search_terms(query)]
    return [[_clean(p) for raw in t for p in unicode61_tokens(raw) if _clean(p)] for t in terms if t]


def bm25(terms: list[list[str]], docs: list[tuple[int, str, str, list[str]]], n_docs: int, total: int,
         limit: int, *, exact: bool) -> list[Candidate]:
    """The in-memory store's BM25 over candidate ``docs`` ``(key, id, kind, tokens)`` (every item
    holding some term), with the namespace's ``n_docs`` and token ``total``. Ties: the item indexed
    last first. The exhaustive scorer: :func:`text_candidates` finds the same by pruning."""
    if not terms or not docs or limit <= 0 or n_docs == 0:
        return []
    avg = total / n_docs or 1.0
    tfs = {key: [count_phrase(doc, t) for t in terms] for key, _i, _k, doc in docs}
    idfs = [idf(n_docs, f) if (f := sum(1 for d in tfs.values() if d[j])) else 0.0 for j in range(len(terms))]
    scored = []
    for key, item_id, kind, doc in docs:
        score, matched = score_of(tfs[key], idfs, len(doc), avg)
        if score > 0:
            scored.append((score, -key, item_id, kind, exact and matched == len(terms)))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [Candidate(i, k, r, s, hit) for r, (s, _, i, k, hit) in enumerate(scored[:limit], start=1)]


def _int_array(values: Sequence[int]) -> str:
    """Integers as an array literal: thousands of them are sent in one string, not element by element."""
    return "{" + ",".join(map(str, values)) + "}"


def _self_overlapping(parts: Sequence[str]) -> bool:
    """Whether two occurrences of the phrase can overlap (``a a`` in ``a a a``)."""
    return any(list(parts[:k]) == list(parts[-k:]) for k in range(1, len(parts)))


class _Postings:
    """:class:`~hlmem.adapters.text.bm25_topk.PostingSource` over one namespace's tables.

    Never as prepared statements: a generic plan does not know how long a token's list is, and
    for a common token picked a plan a thousand times slower (seen: 30 s for 5,000 look-ups).
    """

    def __init__(self, con: psycopg.Connection, namespace: str) -> None:
        self._con = con
        self._namespace = namespace

    def statistics(self, tokens: Sequence[str]) -> dict[str, tuple[int, int, int]]:
        rows = self._con.execute("SELECT token, df, tf_max, min_length FROM term_df WHERE namespace = %s "
                                 "AND token = ANY(%s) AND df > 0", (self._namespace, list(tokens)),
                                 prepare=False).fetchall()
        return {token: (int(df), tf_max, min_length) for token, df, tf_max, min_length in rows}

    def postings(self, token: str, after: Posting | None, limit: int) -> tuple[np.ndarray, ...]:
        # The primary key read backwards (tf descending, nntok = -length descending, key descending),
        # the chunk sent as three packed big-endian arrays.
        where = "namespace = %s AND token = %s"
        params: list = [self._namespace, token]
        if after is not None:
            key, tf, length = after
            where += " AND (tf, nntok, item_key) < (%s, %s, %s)"
            params += [tf, -length, key]
        row = self._con.execute(
            "SELECT string_agg(int8send(item_key), ''::bytea), string_agg(int4send(tf), ''::bytea), "
            "string_agg(int4send(-nntok), ''::bytea), string_agg(int8send(sig), ''::bytea) "
            "FROM (SELECT item_key, tf, nntok, sig FROM postings "
            f"WHERE {where} ORDER BY tf DESC, nntok DESC, item_key DESC LIMIT %s) s", (*params, limit),
            prepare=False).fetchone()
        if row[0] is None:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty, empty
        return (np.frombuffer(row[0], dtype=">i8").astype(np.int64), np.frombuffer(row[1], dtype=">i4").astype(np.int64),
                np.frombuffer(row[2], dtype=">i4").astype(np.int64), np.frombuffer(row[3], dtype=">i8").astype(np.int64))

    def holding(self, token: str, keys: Sequence[int], lengths: Sequence[int], tf_max: int) -> dict[int, int]:
        # ``postings_item`` (token, item): the sorted keys are probed in one index scan.
        rows = self._con.execute("SELECT item_key, tf FROM postings WHERE namespace = %s AND token = %s "
                                 "AND item_key = ANY(%s::bigint[])",
                                 (self._namespace, token, _int_array(sorted(keys))), prepare=False).fetchall()
        return dict(rows)

    def phrase_frequencies(self, keys: Sequence[int], parts: Sequence[str]) -> dict[int, int]:
        if not keys:
            return {}
        if _self_overlapping(parts):  # ``a a`` in ``a a a``: a substring count would miss some
            return {key: tf for key, (_i, _k, tokens) in self.documents(keys).items()
                    if (tf := count_phrase(tokens, parts))}
        # Counted on the server: with each token between its own two spaces, the phrase's
        # occurrences are the non-overlapping occurrences of its padded pattern.
        pattern = "".join(f" {p} " for p in parts)
        rows = self._con.execute(
            "SELECT item_key, n FROM (SELECT item_key, (length(d) - length(replace(d, %s, ''))) / length(%s) AS n "
            "FROM (SELECT item_key, ' ' || replace(tokens, ' ', '  ') || ' ' AS d FROM items "
            "WHERE item_key = ANY(%s::bigint[])) s) c WHERE n > 0", (pattern, pattern, _int_array(keys)),
            prepare=False).fetchall()
        return dict(rows)

    def documents(self, keys: Sequence[int]) -> dict[int, tuple[str, str, list[str]]]:
        rows = self._con.execute("SELECT item_key, item_id, kind, tokens FROM items WHERE item_key = ANY(%s::bigint[])",
                                 (_int_array(keys),), prepare=False).fetchall()
        return {key: (item_id, kind, tokens.split(" ") if tokens else []) for key, item_id, kind, tokens in rows}


def text_candidates(con: psycopg.Connection, namespace: str, query: str, limit: int) -> list[Candidate]:
    """The namespace's best ``limit`` items by BM25, read from the heads of the posting lists
    (:func:`~hlmem.adapters.text.bm25_topk.top_k`); the caller gives one snapshot (a transaction)."""
    terms = _terms(query)
    if not any(terms) or limit <= 0:
        return []
    found = con.execute("SELECT docs, tokens FROM text_totals WHERE namespace = %s", (namespace,)).fetchone()
    if found is None:
        return []
    return top_k(terms, int(found[0]), int(found[1]), limit, _Postings(con, namespace),
                 keys=[list_key(t) if t else None for t in terms])


# -- vectors ---------------------------------------------------------------------------------------

def vector_model(con: psycopg.Connection) -> tuple[str, int] | None:
    rows = dict(con.execute("SELECT key, value FROM meta WHERE key IN ('vector_model', 'vector_dim')").fetchall())
    if "vector_model" not in rows:
        return None
    return rows["vector_model"], int(rows["vector_dim"])


def ensure_hnsw(con: psycopg.Connection, dim: int) -> None:
    """The HNSW index for ``dim``-d vectors (cosine); another dimension's index is dropped."""
    name = f"vectors_hnsw_{dim}"
    for (other,) in con.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'vectors' "
                                "AND indexname LIKE 'vectors_hnsw_%%'").fetchall():
        if other != name:
            con.execute(f"DROP INDEX IF EXISTS {other}")
    con.execute(f"CREATE INDEX IF NOT EXISTS {name} ON vectors USING hnsw ((vec::vector({dim})) vector_cosine_ops)")


def bind_vector_model(con: psycopg.Connection, model_id: str, dim: int) -> None:
    current = vector_model(con)
    if current is None:
        with con.transaction():
            con.execute("INSERT INTO meta (key, value) VALUES ('vector_model', %s), ('vector_dim', %s) "
                        "ON CONFLICT (key) DO NOTHING", (model_id, str(dim)))
            current = vector_model(con)
            if current == (model_id, dim):
                ensure_hnsw(con, dim)
    if current != (model_id, dim):
        raise ModelMismatch(
            f"this store's vectors were made by {current[0]} ({current[1]}-d), not {model_id} ({dim}-d); "
            "run `hlmem reembed` to switch models, or choose the store's model with HLMEM_EMBEDDER")


def literal(vector: bytes) -> str:
    """A float32 vector as pgvector's text form (exact: 9 significant digits round-trip float32)."""
    return "[" + ",".join(f"{x:.9g}" for x in np.frombuffer(vector, dtype=np.float32)) + "]"


class VectorSearcher:
    """Vector search on its own connection (recall runs it beside the full-text search, ADR 0022)."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._con: psycopg.Connection | None = None
        self._lock = threading.Lock()

    def _connection(self) -> psycopg.Connection:
        if self._con is None or self._con.closed:
            import psycopg
            from pgvector.psycopg import register_vector

            self._con = psycopg.connect(self._url, autocommit=True)
            register_vector(self._con)
        return self._con

    def close(self) -> None:
        with self._lock:
            if self._con is not None:
                self._con.close()
                self._con = None

    def search_function(self, namespace: str, limit: int, dim: int) -> Callable[[bytes], list[Candidate]]:
        def search(vector: bytes) -> list[Candidate]:
            query = np.frombuffer(vector, dtype=np.float32)
            if query.shape != (dim,):
                raise ModelMismatch(f"query vector has {query.size} dimensions; the store's model has {dim}")
            if limit <= 0:
                return []
            with self._lock, translated("vector search"):
                return self._search(namespace, query, vector, limit, dim)
        return search

    def _search(self, namespace: str, query: np.ndarray, vector: bytes, limit: int, dim: int) -> list[Candidate]:
        con = self._connection()
        pool = max(FIRST_STAGE * limit, 200)
        # How many vectors, counted only up to the threshold (a full count costs a scan at 1M).
        (count,) = con.execute("SELECT count(*) FROM (SELECT 1 FROM vectors WHERE namespace = %s LIMIT %s) s",
                               (namespace, EXACT_BELOW + 1)).fetchone()
        if count > EXACT_BELOW:
            with con.transaction():
                con.execute(f"SET LOCAL hnsw.ef_search = {min(pool, 1000)}")
                # The vectors come as pgvector's send format (a 4-byte header, then big-endian
                # float32s), read straight into numpy rather than one Vector object per row.
                rows = con.execute(
                    f"SELECT v.item_key, i.item_id, i.kind, vector_send(v.vec) FROM (SELECT item_key, vec FROM vectors "
                    f"ORDER BY vec::vector({dim}) <=> %s::vector({dim}) LIMIT %s) v "
                    "JOIN items i ON i.item_key = v.item_key WHERE i.namespace = %s",
                    (literal(vector), pool, namespace), binary=True).fetchall()
            if len(rows) >= limit:
                return _rank(rows, query, limit)
        # Exact: the server scans every searchable vector of the namespace (inner product, no index:
        # the HNSW index is on another expression and operator), keeps the best ``pool`` (ties by
        # key, as ``_rank`` breaks them), and only those travel, in binary, to be rescored here.
        rows = con.execute(f"SELECT v.item_key, i.item_id, i.kind, vector_send(v.vec) FROM vectors v "
                           "JOIN items i ON i.item_key = v.item_key WHERE v.namespace = %s "
                           "ORDER BY v.vec <#> %s::vector, v.item_key LIMIT %s",
                           (namespace, literal(vector), pool), binary=True).fetchall()
        return _rank(rows, query, limit)


def _as_array(vec) -> np.ndarray:
    """A vector from the server: pgvector's send format (bytes) or its Python type."""
    if isinstance(vec, (bytes, bytearray, memoryview)):
        return np.frombuffer(vec, dtype=">f4", offset=4).astype(np.float32)
    return np.asarray(vec.to_numpy() if hasattr(vec, "to_numpy") else vec, dtype=np.float32)


def _rank(rows: list[tuple], query: np.ndarray, limit: int) -> list[Candidate]:
    """Exact cosine (dot product of unit vectors, as the other stores score) over ``rows``."""
    if not rows:
        return []
    rows = sorted(rows, key=lambda r: r[0])
    matrix = np.stack([_as_array(r[3]) for r in rows])
    scores = matrix @ query
    order = np.argsort(-scores, kind="stable")[:limit]
    return [Candidate(rows[j][1], rows[j][2], r, float(scores[j])) for r, j in enumerate(order, start=1)]
