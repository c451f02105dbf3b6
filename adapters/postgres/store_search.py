"""Search of :class:`~hlmem.adapters.postgres.store.PostgresStorage` (SearchIndex): a mix-in over :mod:`.search`.

Full text runs in one snapshot; vectors on the searcher's own connection. Context candidates
(pairs of consecutive turns of a session, ADR 0025) are computed in process memory from the
namespace's not-forgotten observations, as the in-memory store does, and kept until the log moves;
SQLite keeps them as indexed rows instead.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING

from hlmem.adapters.postgres import search, states
from hlmem.adapters.postgres.db import PgDb, translated
from hlmem.adapters.text import segment
from hlmem.adapters.text.bm25_topk import count_phrase
from hlmem.adapters.vectors.fit import ensure_dim
from hlmem.domain.errors import StorageError
from hlmem.application.indexing import context_text
from hlmem.application.ports import Candidate
from hlmem.domain.queries import holds
from hlmem.domain.state import ClaimState, ObservationState

if TYPE_CHECKING:
    import psycopg


class PostgresSearch:
    """Full text, vectors, context pairs and what a hit may show."""

    # Set by PostgresStorage.__init__.
    _con: psycopg.Connection
    _lock: threading.RLock
    db: PgDb
    _searcher: search.VectorSearcher
    _context_cache: tuple | None = None
    transaction: Callable[[], AbstractContextManager[None]]
    get_claims: Callable[[Sequence[str]], dict[str, ClaimState]]
    get_observations: Callable[[Sequence[str]], dict[str, ObservationState]]

    def prepare_index(self, texts: Sequence[str]) -> None:
        segment.prepare(texts)

    def text_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]:
        with self._lock, translated("full-text search"):
            if self.db.depth:  # inside a write transaction: its own view
                return search.text_candidates(self._con, namespace, query, limit)
            # Statistics, lists and items from one snapshot, whatever commits meanwhile.
            with self._con.transaction():
                self._con.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                return search.text_candidates(self._con, namespace, query, limit)

    def vector_candidates(self, namespace: str, vector: bytes, limit: int) -> list[Candidate]:
        found = self.vector_search(namespace, limit)
        return [] if found is None else found(vector)

    def vector_search(self, namespace: str, limit: int) -> Callable[[bytes], list[Candidate]] | None:
        model = self.vector_model()
        if model is None:
            return None
        return self._searcher.search_function(namespace, limit, model[1])

    def visible(self, ids: Sequence[str], valid_at: datetime, known_at: datetime) -> set[str]:
        claims = self.get_claims([i for i in ids if i.startswith("cl_")])
        observations = self.get_observations([i for i in ids if i.startswith("ev_")])
        out = {i for i, c in claims.items() if holds(c, valid_at, known_at)}
        out |= {i for i, o in observations.items()
                if not o.forgotten and o.recorded_at <= known_at and o.occurred_at <= valid_at}
        return out

    def vector_model(self) -> tuple[str, int] | None:
        # Read each time: another process may bind or re-embed (one indexed read of two rows).
        with self._lock, translated("reading metadata"):
            return search.vector_model(self._con)

    def bind_vector_model(self, model_id: str, dim: int) -> None:
        with self._lock, translated("writing metadata"):
            search.bind_vector_model(self._con, model_id, dim)

    def items(self) -> Iterator[tuple[str, str]]:
        with self._lock, translated("listing items"):
            rows = self._con.execute(f"SELECT i.item_id, i.kind FROM items i {search.SEARCHABLE} "
                                     "ORDER BY i.item_key").fetchall()
        yield from ((r[0], r[1]) for r in rows)

    def fill_vectors(self, vectors: Sequence[tuple[str, bytes]]) -> int:
        model = self.vector_model()
        if model is None:
            raise StorageError("no embedding model is bound to this store: nothing to fill vectors for")
        for _, vec in vectors:
            ensure_dim(vec, model[1])
        stored = 0
        with self.transaction(), translated("filling vectors"):
            for item_id, vec in vectors:
                stored += self._con.execute(
                    "INSERT INTO vectors (item_key, namespace, vec) SELECT item_key, namespace, %s::vector "
                    "FROM items WHERE item_id = %s ON CONFLICT DO NOTHING", (search.literal(vec), item_id)).rowcount
        return stored

    def replace_vectors(self, model_id: str, dim: int, vectors: Sequence[tuple[str, bytes]]) -> int:
        for _, vec in vectors:
            ensure_dim(vec, dim)
        with self.transaction(), translated("replacing vectors"):
            # TRUNCATE, not DELETE: the new dimension's index must not meet the old rows' dead versions.
            self._con.execute("TRUNCATE vectors")
            search.ensure_hnsw(self._con, dim)
            with self._con.cursor() as cur:
                cur.executemany("INSERT INTO vectors (item_key, namespace, vec) SELECT item_key, namespace, "
                                "%s::vector FROM items WHERE item_id = %s",
                                [(search.literal(vec), item_id) for item_id, vec in vectors])
            self._con.execute("INSERT INTO meta (key, value) VALUES ('vector_model', %s), ('vector_dim', %s) "
                              "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (model_id, str(dim)))
        with self._lock:
            return self._con.execute("SELECT count(*) FROM vectors").fetchone()[0]

    def _pairs(self, namespace: str) -> tuple[list[tuple[ObservationState, ...]], list[tuple]]:
        position = self._con.execute("SELECT coalesce(max(position), 0) FROM events").fetchone()[0]
        cached = self._context_cache
        if cached is not None and cached[0] == (namespace, position):
            return cached[1], cached[2]
        rows = self._con.execute(
            f"SELECT o.state FROM items i JOIN observations o ON o.event_id = i.item_id "
            "JOIN events e ON e.stream_id = o.event_id AND e.version = 1 "
            "WHERE NOT o.forgotten AND i.namespace = %s AND i.kind = 'event' ORDER BY e.position",
            (namespace,)).fetchall()
        sessions: dict[str, list[ObservationState]] = {}
        for (doc,) in rows:
            obs = states.load_observation(doc)
            sessions.setdefault(obs.session_id, []).append(obs)
        pairs: list[tuple[ObservationState, ...]] = []
        for turns in sessions.values():
            turns.sort(key=lambda o: (o.recorded_at, o.event_id))
            pairs += list(zip(turns, turns[1:])) if len(turns) > 1 else [(turns[0],)]
        docs = [(n, str(n), "pair", search.tokens_of(context_text(*p))) for n, p in enumerate(pairs)]
        self._context_cache = ((namespace, position), pairs, docs)
        return pairs, docs

    def context_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]:
        with self._lock, translated("context search"):
            pairs, docs = self._pairs(namespace)
        terms = search._terms(query)
        matching = [d for d in docs if any(t and count_phrase(d[3], t) for t in terms)]
        total = sum(len(d[3]) for d in docs)
        # Ties among pairs: the later pair first (as the in-memory store ranks them).
        hits = search.bm25(terms, [(n, i, k, toks) for n, i, k, toks in matching], len(docs), total, len(docs),
                           exact=False)
        best: dict[str, Candidate] = {}
        for hit in hits:
            for obs in pairs[int(hit.item_id)]:
                best.setdefault(obs.event_id, hit)
        ranked = sorted(best.items(), key=lambda kv: (kv[1].rank, kv[0]))[:max(limit, 0)]
        return [Candidate(event_id, "event", r, hit.score, False) for r, (event_id, hit) in enumerate(ranked, start=1)]

    def sessions_of(self, event_ids: Sequence[str]) -> dict[str, str]:
        with self._lock, translated("reading sessions"):
            return dict(self._con.execute("SELECT event_id, session_id FROM observations WHERE event_id = ANY(%s)",
                                          (list(dict.fromkeys(event_ids)),)).fetchall())

    def speakers(self, namespace: str) -> frozenset[str]:
        with self._lock, translated("reading speakers"):
            return frozenset(r[0] for r in self._con.execute(
                "SELECT DISTINCT role FROM observations WHERE namespace = %s AND NOT forgotten", (namespace,)))
