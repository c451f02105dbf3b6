"""The search index of :class:`~hlmem.adapters.sqlite.store.SQLiteStorage` (SearchIndex): a mix-in.

Full text, context pairs and vectors are queried through :mod:`.search` and :mod:`.context`; the
store keeps the caches they read (document frequencies, the vector cache, the bound model), and
another connection's commit is noticed through ``data_version``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime

import apsw

from hlmem.adapters.serialization import prepare_encoders
from hlmem.adapters.sqlite import context, search
from hlmem.adapters.sqlite.db import translated as _translated
from hlmem.adapters.text import segment
from hlmem.adapters.vectors.fit import ensure_dim
from hlmem.application.ports import Candidate
from hlmem.domain.derived import INDEX_MARK
from hlmem.domain.errors import StorageError


class SQLiteSearch:
    """SearchIndex over the store's connection, its caches and ``transaction()``."""

    # Set by SQLiteStorage.__init__.
    _con: apsw.Connection
    _lock: threading.RLock
    _vectors: search.VectorCache
    _doc_freq: search.DocFrequencies
    _derived_freq: search.DocFrequencies
    _context_freq: search.DocFrequencies
    _speakers: tuple[tuple, frozenset[str]] | None
    _model: tuple[str, int] | None
    _data_version: int

    def prepare_index(self, texts: Sequence[str]) -> None:
        """Do now, before a write transaction, what its indexing would otherwise do under the lock:
        load the segmenter and the English stemmer, segment and stem ``texts``, and build the
        payload encoders of the event types (ADR 0024, 0064).

        Loading jieba's dictionary takes 1-3.5 s on a loaded machine, importing the stemmer
        60-80 ms, the encoders 10-50 ms: done inside ``BEGIN IMMEDIATE`` they held every other
        writer back that long, in every new CLI process. Segmentations and stems are cached, so
        the transaction's own indexing finds them ready. A hint: skipping it changes no result.
        """
        segment.prepare(texts)
        segment.english_stem("loading")  # the stemmer: a context row's day words are stemmed too
        for text in texts:
            segment.index_text(text)
        prepare_encoders()

    def text_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]:
        with self._lock, _translated("full-text search"):
            if namespace.endswith(INDEX_MARK):  # derived items: their own table (ADR 0084)
                return search.text_candidates(self._con, namespace, query, limit, self._derived_freq,
                                              fts=search.DERIVED_FTS)
            return search.text_candidates(self._con, namespace, query, limit, self._doc_freq)

    def sessions_of(self, event_ids: Sequence[str]) -> dict[str, str]:
        with self._lock, _translated("reading sessions"):
            return search.sessions_of(self._con, event_ids)

    def speakers(self, namespace: str) -> frozenset[str]:
        with self._lock, _translated("reading speakers"):
            state = (self._con.pragma("data_version"), self._con.total_changes(), namespace)
            if self._speakers is None or self._speakers[0] != state:
                self._speakers = (state, search.speakers(self._con, namespace))
            return self._speakers[1]

    def context_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]:
        with self._lock, _translated("context search"):
            return context.candidates(self._con, namespace, query, limit, self._context_freq)

    def vector_candidates(self, namespace: str, vector: bytes, limit: int) -> list[Candidate]:
        search = self.vector_search(namespace, limit)
        return [] if search is None else search(vector)

    def vector_search(self, namespace: str, limit: int) -> Callable[[bytes], list[Candidate]] | None:
        # New vectors are loaded now, under the connection's lock; the search itself reads memory
        # under the cache's own lock, so it can run while another thread uses the connection.
        with self._lock, _translated("vector search"):
            model = self.vector_model()
            if model is None:
                return None
            self._vectors.refresh(self._con, model[1])
        dim = model[1]

        def search(vector: bytes) -> list[Candidate]:
            with _translated("vector search"):
                found = self._vectors.search(namespace, vector, dim, limit)
            if found is None:  # a write dropped the index since: load it again
                return self.vector_candidates(namespace, vector, limit)
            return found

        return search

    def visible(self, ids: Sequence[str], valid_at: datetime, known_at: datetime) -> set[str]:
        with self._lock, _translated("filtering by time"):
            return search.visible(self._con, ids, valid_at, known_at)

    def _check_external_writes(self) -> None:
        """Refresh caches when another connection committed since we last looked (data_version):
        the vector cache then loads only what was added, unless vectors were deleted."""
        version = self._con.pragma("data_version")
        if version != self._data_version:
            self._data_version = version
            self._model = None
            self._vectors.stale()

    def vector_model(self) -> tuple[str, int] | None:
        # Cached: it changes only on bind or reembed (here, or by another connection, which
        # data_version reveals).
        with self._lock:
            self._check_external_writes()
        if self._model is None:
            with self._lock, _translated("reading metadata"):
                self._model = search.vector_model(self._con)
        return self._model

    def bind_vector_model(self, model_id: str, dim: int) -> None:
        current = self.vector_model()
        if current == (model_id, dim):
            return  # bound already (every write after the first): no transaction, no lock
        # Only a first binding writes; a mismatch is refused without waiting for the write lock.
        with (self.transaction() if current is None else self._lock), _translated("writing metadata"):
            search.bind_vector_model(self._con, model_id, dim)
            self._model = search.vector_model(self._con)

    def items(self) -> Iterator[tuple[str, str]]:
        with self._lock, _translated("listing items"):
            rows = self._con.execute(
                "SELECT i.item_id, i.kind FROM items i "
                "LEFT JOIN claims c ON c.claim_id = i.item_id LEFT JOIN observations o ON o.event_id = i.item_id "
                "WHERE coalesce(c.status, '') != 'forgotten' AND coalesce(o.forgotten, 0) = 0 ORDER BY i.item_key"
            ).fetchall()
        yield from ((r[0], r[1]) for r in rows)

    def fill_vectors(self, vectors: Sequence[tuple[str, bytes]]) -> int:
        model = self.vector_model()
        if model is None:
            raise StorageError("no embedding model is bound to this store: nothing to fill vectors for")
        for _, vec in vectors:
            ensure_dim(vec, model[1])
        with self.transaction(), _translated("filling vectors"):
            return search.fill_vectors(self._con, vectors)

    def replace_vectors(self, model_id: str, dim: int, vectors: Sequence[tuple[str, bytes]]) -> int:
        for _, vec in vectors:
            ensure_dim(vec, dim)
        with self.transaction(), _translated("replacing vectors"):
            self._con.execute("DELETE FROM vectors")
            search.bump_vector_epoch(self._con)
            self._con.executemany(
                "INSERT INTO vectors (item_key, vec) SELECT item_key, ? FROM items WHERE item_id = ?",
                [(vec, item_id) for item_id, vec in vectors],
            )
            self._con.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('vector_model', ?), ('vector_dim', ?)",
                              (model_id, str(dim)))
        self._model = None
        self._vectors.invalidate()
        return self._con.execute("SELECT count(*) FROM vectors").fetchone()[0]
