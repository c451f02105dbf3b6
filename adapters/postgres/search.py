"""Full text and vectors on PostgreSQL: hlmem's tokens in a GIN-indexed ``tsvector``, pgvector HNSW with exact rescoring.

Full text: an item's search text is segmented by jieba (``segment_for_index``) and split by the
unicode61 rules hlmem's other stores use; those tokens are stored as a ``tsvector`` built with
``array_to_tsvector`` (no PostgreSQL parser or dictionary: the ``'simple'`` configuration's parser
splits ``3.11.7``, URLs and diacritics differently from SQLite's FTS5, and the stores must agree).
The GIN index finds every item holding all tokens of some query term; the candidates are then
scored with the same BM25 (k1 1.2, b 0.75, a term matched as a phrase) as the in-memory store,
over the namespace's statistics, so the three stores rank alike.

Vectors: ``vectors.vec`` (pgvector) with an HNSW index (cosine) over ``vec::vector(dim)``, made
when the model is bound. A namespace with at most :data:`EXACT_BELOW` vectors is scanned exactly
by the server (inner product, the best :data:`FIRST_STAGE` per asked-for result, at least 200,
rescored here with numpy as the in-memory store scores); a larger one takes as many approximate
neighbours from the index, rescored exactly, and falls back to the exact scan when filtering left
fewer than asked for. Vectors travel in pgvector's binary form.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from hlmem.adapters.postgres.db import translated
from hlmem.adapters.text.fts_query import unicode61_tokens
from hlmem.adapters.text.segment import query_terms, segment_for_index
from hlmem.application.ports import Candidate
from hlmem.domain.errors import ModelMismatch, StorageError

if TYPE_CHECKING:  # psycopg is imported only when a PostgreSQL store is opened (hlmem[postgres])
    import psycopg

#: Exact vector scan up to this many vectors in a namespace; above it, HNSW then exact rescoring.
EXACT_BELOW = 20_000
#: How many approximate neighbours the first stage takes per asked-for result (at least 200).
FIRST_STAGE = 8
#: A lexeme longer than this is cut in the tsvector and in queries alike (PostgreSQL's limit is 2 KiB).
LEXEME_CHARS = 200

SEARCHABLE = ("LEFT JOIN claims c ON c.claim_id = i.item_id LEFT JOIN observations o ON o.event_id = i.item_id "
              "WHERE coalesce(c.status, '') <> 'forgotten' AND coalesce(o.forgotten, false) = false")


def _clean(token: str) -> str:
    token = token.replace("\x00", "")
    return token.encode("utf-8", "replace").decode("utf-8")[:LEXEME_CHARS]


def tokens_of(text: str) -> list[str]:
    """The unicode61 tokens of ``text``'s jieba segmentation (what BM25 counts)."""
    return [_clean(p) for raw in segment_for_index(text).split() for p in unicode61_tokens(raw) if _clean(p)]


def index_rows(entries: Sequence[tuple[str, str, str, str]]) -> list[tuple]:
    """``(item_id, kind, namespace, text)`` as ``items`` rows (without the key)."""
    out = []
    for item_id, kind, namespace, text in entries:
        toks = tokens_of(text)
        out.append((item_id, kind, namespace, " ".join(toks), len(toks), toks))
    return out


def _lexeme(token: str) -> str:
    return "'" + token.replace("\\", "\\\\").replace("'", "''") + "'"


def _terms(query: str) -> list[list[str]]:
    terms = [tuple(segment_for_index(t).split()) for t in query_terms(query)]
    return [[_clean(p) for raw in t for p in unicode61_tokens(raw) if _clean(p)] for t in terms if t]


def _count_phrase(doc: list[str], parts: list[str]) -> int:
    if not parts:
        return 0
    n = len(parts)
    return sum(1 for i in range(len(doc) - n + 1) if doc[i:i + n] == parts)


class TextStats:
    """Per namespace: (item count, token total) of searchable items, kept until the log moves."""

    def __init__(self) -> None:
        self._cache: dict[str, tuple[int, int, int]] = {}

    def get(self, con: psycopg.Connection, namespace: str, position: int) -> tuple[int, int]:
        found = self._cache.get(namespace)
        if found is None or found[0] != position:
            n, total = con.execute(f"SELECT count(*), coalesce(sum(i.ntok), 0) FROM items i {SEARCHABLE} "
                                   "AND i.namespace = %s", (namespace,)).fetchone()
            found = (position, int(n), int(total))
            self._cache[namespace] = found
        return found[1], found[2]

    def clear(self) -> None:
        self._cache.clear()


def bm25(terms: list[list[str]], docs: list[tuple[int, str, str, list[str]]], n_docs: int, total: int,
         limit: int, *, exact: bool) -> list[Candidate]:
    """The in-memory store's BM25 over candidate ``docs`` ``(key, id, kind, tokens)``, with the
    namespace's ``n_docs`` and token ``total``. Ties: the item indexed last first."""
    counted = [(key, item_id, kind, len(doc), [_count_phrase(doc, t) for t in terms])
               for key, item_id, kind, doc in docs]
    return bm25_counted(len(terms), counted, n_docs, total, limit, exact=exact)


def bm25_counted(n_terms: int, docs: list[tuple[int, str, str, int, list[int]]], n_docs: int, total: int,
                 limit: int, *, exact: bool) -> list[Candidate]:
    """:func:`bm25` over ``(key, id, kind, token count, [tf of each term])``: the same arithmetic in
    the same order, so both give equal floats."""
    if not n_terms or not docs or limit <= 0 or n_docs == 0:
        return []
    avg = total / n_docs or 1.0
    df = [sum(1 for d in docs if d[4][j] > 0) for j in range(n_terms)]
    scored = []
    for key, item_id, kind, length, tfs in docs:
        score, matched = 0.0, 0
        for tf, f in zip(tfs, df):
            if tf:
                matched += 1
                idf = math.log(1 + (n_docs - f + 0.5) / (f + 0.5))
                score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / avg))
        if score > 0:
            scored.append((score, -key, item_id, kind, exact and matched == n_terms))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [Candidate(i, k, r, s, hit) for r, (s, _, i, k, hit) in enumerate(scored[:limit], start=1)]


def _pattern(parts: list[str]) -> str:
    """A phrase as it appears in an item's padded tokens (each token between its own two spaces)."""
    return "".join(f" {p} " for p in parts)


def _self_overlapping(parts: list[str]) -> bool:
    """Whether two occurrences of the phrase can overlap (``a a`` in ``a a a``): then a substring
    count would miss some, and the phrase is counted on the token list instead."""
    return any(parts[:k] == parts[-k:] for k in range(1, len(parts)))


#: An item's tokens with each token between its own two spaces: a phrase's occurrences are then the
#: non-overlapping occurrences of its pattern, which ``replace`` counts on the server.
_PADDED = "CROSS JOIN LATERAL (SELECT ' ' || replace(i.tokens, ' ', '  ') || ' ' AS d) p"


def text_candidates(con: psycopg.Connection, stats: TextStats, position: int, namespace: str, query: str,
                    limit: int) -> list[Candidate]:
    terms = _terms(query)
    usable = [t for t in terms if t]
    if not usable or limit <= 0:
        return []
    tsquery = " | ".join("(" + " & ".join(_lexeme(p) for p in t) + ")" for t in usable)
    # Term frequencies are counted by the server, so only small rows travel (an item's tokens only
    # when some term is a self-overlapping phrase).
    on_server = [j for j, t in enumerate(terms) if t and not _self_overlapping(t)]
    counts = "".join(", (length(p.d) - length(replace(p.d, %s, ''))) / length(%s)" for _ in on_server)
    params: list = [x for j in on_server for x in (_pattern(terms[j]), _pattern(terms[j]))]
    here = [j for j, t in enumerate(terms) if t and j not in set(on_server)]
    rows = con.execute(f"SELECT i.item_key, i.item_id, i.kind, i.ntok{', i.tokens' if here else ''}{counts} "
                       f"FROM items i {_PADDED} {SEARCHABLE} "
                       "AND i.namespace = %s AND i.tsv @@ %s::tsquery", (*params, namespace, tsquery)).fetchall()
    first = 5 if here else 4
    docs = []
    for r in rows:
        tfs = [0] * len(terms)
        for n, j in enumerate(on_server):
            tfs[j] = r[first + n]
        if here:
            doc = r[4].split(" ") if r[4] else []
            for j in here:
                tfs[j] = _count_phrase(doc, terms[j])
        docs.append((r[0], r[1], r[2], r[3], tfs))
    n_docs, total = stats.get(con, namespace, position)
    return bm25_counted(len(terms), docs, n_docs, total, limit, exact=True)


# -- vectors ---------------------------------------------------------------------------------------

def vector_model(con: psycopg.Connection) -> tuple[str, int] | None:
    rows = dict(con.execute("SELECT key, value FROM meta WHERE key IN ('vector_model', 'vector_dim')").fetchall())
    if "vector_model" not in rows:
        return None
    return rows["vector_model"], int(rows["vector_dim"])


def ensure_dim(vector: bytes, dim: int) -> None:
    if len(vector) != dim * 4:
        raise StorageError(f"vector of {len(vector)} bytes does not fit the store's {dim}-d float32 vectors")


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
                rows = con.execute(
                    f"SELECT v.item_key, i.item_id, i.kind, v.vec FROM (SELECT item_key, vec FROM vectors "
                    f"ORDER BY vec::vector({dim}) <=> %s::vector({dim}) LIMIT %s) v "
                    f"JOIN items i ON i.item_key = v.item_key {SEARCHABLE} AND i.namespace = %s",
                    (literal(vector), pool, namespace), binary=True).fetchall()
            if len(rows) >= limit:
                return _rank(rows, query, limit)
        # Exact: the server scans every searchable vector of the namespace (inner product, no index:
        # the HNSW index is on another expression and operator), keeps the best ``pool`` (ties by
        # key, as ``_rank`` breaks them), and only those travel, in binary, to be rescored here.
        rows = con.execute(f"SELECT v.item_key, i.item_id, i.kind, v.vec FROM vectors v "
                           f"JOIN items i ON i.item_key = v.item_key {SEARCHABLE} AND v.namespace = %s "
                           "ORDER BY v.vec <#> %s::vector, v.item_key LIMIT %s",
                           (namespace, literal(vector), pool), binary=True).fetchall()
        return _rank(rows, query, limit)


def _rank(rows: list[tuple], query: np.ndarray, limit: int) -> list[Candidate]:
    """Exact cosine (dot product of unit vectors, as the other stores score) over ``rows``."""
    if not rows:
        return []
    rows = sorted(rows, key=lambda r: r[0])
    matrix = np.stack([np.asarray(r[3].to_numpy() if hasattr(r[3], "to_numpy") else r[3], dtype=np.float32) for r in rows])
    scores = matrix @ query
    order = np.argsort(-scores, kind="stable")[:limit]
    return [Candidate(rows[j][1], rows[j][2], r, float(scores[j])) for r, j in enumerate(order, start=1)]
