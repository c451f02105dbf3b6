"""The store's vectors: the ``vectors`` table, the model bound to it, the fills the worker logs
(ADR 0080) and the in-memory index each connection keeps in step with them (ADR 0022)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from contextlib import nullcontext
from itertools import islice

import apsw
import numpy as np

from hlmem.adapters.vectors.index import VectorIndex
from hlmem.application.ports import Candidate
from hlmem.domain.errors import ModelMismatch

#: Loads of at least this many new rows size the index once and calibrate it once (VectorIndex.bulk).
_BULK_ROWS = 4_096
#: Vectors read from the table per step when loading the in-memory index.
_LOAD_CHUNK = 8_192
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
