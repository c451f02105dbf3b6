"""``SQLiteEmbeddingCache``: the EmbeddingCache port on the store's ``embedding_cache`` table.

New vectors do not take the write lock of their own (ADR 0064): a write embeds its texts just
before its transaction, and the vectors are written inside that transaction, when it ends
(the store's ``ending`` hook calls :meth:`SQLiteEmbeddingCache.write_pending`). Until then they
are served from memory. A ``put_many`` made inside a write transaction writes at once; one that
no write follows is written at close, or when :data:`PENDING_LIMIT` vectors wait. A write that
rolls back drops them (a write refused because its text was forgotten must not leave its vector).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from hlmem.adapters.sqlite.db import Db
from hlmem.adapters.sqlite.db import translated as _translated
from hlmem.domain.errors import StorageError

#: Vectors kept in memory before they are written in a transaction of their own (a re-embedding
#: of a whole store embeds far more than any one write indexes).
PENDING_LIMIT = 1_024

_INSERT = "INSERT OR IGNORE INTO embedding_cache (model, content_hash, vec) VALUES (?,?,?)"


class SQLiteEmbeddingCache:
    """The ``EmbeddingCache`` port on the store's ``embedding_cache`` table."""

    def __init__(self, db: Db) -> None:
        self._db = db
        #: Vectors not written yet, by (model, content hash); guarded by the connection's lock.
        self._pending: dict[tuple[str, str], bytes] = {}

    def get_many(self, model_id: str, hashes: Sequence[str]) -> dict[str, bytes]:
        con = self._db.con
        out: dict[str, bytes] = {}
        with self._db.lock, _translated("reading the embedding cache"):
            wanted = list(dict.fromkeys(hashes))
            for start in range(0, len(wanted), 500):
                chunk = wanted[start:start + 500]
                marks = ",".join("?" * len(chunk))
                out.update(con.execute(
                    f"SELECT content_hash, vec FROM embedding_cache WHERE model = ? AND content_hash IN ({marks})",
                    (model_id, *chunk),
                ).fetchall())
            if self._pending:  # a key already held keeps its vector: the written row wins over a pending one
                out.update((h, v) for h in wanted if h not in out and (v := self._pending.get((model_id, h))) is not None)
        return out

    def put_many(self, model_id: str, items: Sequence[tuple[str, bytes]]) -> None:
        """Keep ``items``; written with the next write transaction of this store (at once inside one)."""
        if not items or self._db.read_only is not None:
            return  # a read-only store (adapters/sqlite/read_only.py) keeps no new vectors; it still reads
        with self._db.lock:
            if self._db.depth:
                with _translated("writing the embedding cache"):
                    self._db.con.executemany(_INSERT, [(model_id, h, v) for h, v in items])
                return
            for h, v in items:
                self._pending.setdefault((model_id, h), v)
            full = len(self._pending) >= PENDING_LIMIT
        if full:
            self.flush()

    def write_pending(self) -> int:
        """Inside a write transaction (the store's ``ending`` hook): write the vectors kept in
        memory. If the transaction then rolls back they are gone, as a cache may lose entries."""
        with self._db.lock:
            taken, self._pending = self._pending, {}
            if taken:
                with _translated("writing the embedding cache"):
                    self._db.con.executemany(_INSERT, [(m, h, v) for (m, h), v in taken.items()])
        return len(taken)

    def flush(self, *, wait_ms: int | None = None) -> int:
        """Write the vectors kept in memory in a transaction of their own; returns how many.

        :param wait_ms: wait at most this long for another writer (None: as every writer waits);
            when it runs out the vectors are dropped (a cache), not raised.
        """
        with self._db.lock:
            if not self._pending:
                return 0
            n = len(self._pending)
            try:
                with self._db.transaction(wait_ms=wait_ms):
                    pass  # the transaction's end writes them (write_pending)
            except StorageError:
                if wait_ms is None:
                    raise
                self._pending.clear()
                return 0
        return n

    def drop_pending(self) -> None:
        """Drop every vector not written yet (the write they were embedded for was rolled back)."""
        with self._db.lock:
            self._pending.clear()

    def discard(self, hashes: Iterable[str]) -> int:
        """Drop kept (not yet written) vectors of these hashes, for every model (a forget erases
        their texts); returns how many."""
        wanted = set(hashes)
        with self._db.lock:
            gone = [k for k in self._pending if k[1] in wanted]
            for key in gone:
                del self._pending[key]
        return len(gone)
