"""``SQLiteStorage``: the Storage port on one SQLite file (APSW, WAL), events and projections in one transaction.

This module opens the file and owns the shared state (connection, lock, caches), the transaction
and the close; each storage role is a mix-in in its own module, over that state (ADR 0056):
:mod:`.store_log` (EventLog, StoreIdentity), :mod:`.store_claims` (ClaimReader, DerivedReader),
:mod:`.store_search` (SearchIndex), :mod:`.store_forget` (ForgetQueries, Erasure) and
:mod:`.store_activity` (ActivityLog). The embedding cache and the tombstone ledger are objects of
their own on the store's ``Db`` (:mod:`.embedding_cache`, :mod:`.tombstones`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from datetime import datetime
from pathlib import Path

import apsw

from hlmem.adapters.sqlite import context, fts_compact, integrity, search
from hlmem.adapters.sqlite.activity import SQLiteActivity
from hlmem.adapters.sqlite.connection import MMAP_SIZE, open_connection, optimize_on_close
from hlmem.adapters.sqlite.db import Db
from hlmem.adapters.sqlite.db import translated as _translated
from hlmem.adapters.sqlite.embedding_cache import SQLiteEmbeddingCache
from hlmem.adapters.sqlite.experience import SQLiteExperience
from hlmem.adapters.sqlite.relations import SQLiteRelations
from hlmem.adapters.sqlite.migrations import migrate
from hlmem.adapters.sqlite.packet_log import SQLitePacketLog
from hlmem.adapters.sqlite.projector import Projector
from hlmem.adapters.sqlite.read_only import read_only_reason, refusal
from hlmem.adapters.sqlite.store_activity import SQLiteActivityLog
from hlmem.adapters.sqlite.store_claims import SQLiteClaims
from hlmem.adapters.sqlite.store_forget import SQLiteForgetting
from hlmem.adapters.sqlite.store_log import SQLiteLog
from hlmem.adapters.sqlite.store_search import SQLiteSearch
from hlmem.adapters.sqlite.tombstones import SQLiteTombstoneLedger
from hlmem.domain.errors import StorageError
from hlmem.domain.time import UTC

__all__ = ["CLOSE_FLUSH_WAIT_MS", "SQLiteEmbeddingCache", "SQLiteStorage"]


#: How long closing waits for another writer to write this connection's buffered access telemetry,
#: in milliseconds: a reader's close must not wait the whole busy timeout (ADR 0024).
CLOSE_FLUSH_WAIT_MS = 2_000


class SQLiteStorage(SQLiteLog, SQLiteClaims, SQLiteSearch, SQLiteForgetting, SQLiteActivityLog):
    """One SQLite file holding the log, its projections, the search index and the embedding cache.

    One instance serves one thread at a time (a lock guards it); other processes may open the
    same file: writers serialise on SQLite's lock (``BEGIN IMMEDIATE``) and wait for it up to the
    busy timeout, readers never wait (WAL). Lock-free work is done before a write transaction
    (:meth:`prepare_index`), so the lock is held for SQL only (ADR 0024).
    """

    # Declared on the class so the plugin registry sees the whole Storage port before an instance exists.
    embedding_cache: SQLiteEmbeddingCache
    tombstones: SQLiteTombstoneLedger

    def __init__(self, path: str | Path, *, synchronous: str = "FULL") -> None:
        self.path = str(path)
        with _translated(f"opening {self.path}"):
            self._con = open_connection(self.path, synchronous=synchronous)
            migrate(self._con, datetime.now(UTC).isoformat())
        #: The connection, its lock and transaction depth, shared with the feature modules.
        self.db = Db(self._con, undone=self._undone, ending=self._ending)
        if self._con.readonly("main"):
            # Read-only here (a read-only mount, a file or folder this user cannot write): reads
            # work, every write is refused before it starts (adapters/sqlite/read_only.py).
            self.db.read_only = refusal(self.path, read_only_reason(self.path) or "SQLite opened it read-only")
        self._lock = self.db.lock
        self._projector = Projector(self._con)
        self._vectors = search.VectorCache()
        self._doc_freq = search.DocFrequencies()
        self._derived_freq = search.DocFrequencies("derived_vocab")
        self._context_freq = search.DocFrequencies(context.VOCAB)
        self._speakers: tuple[tuple, frozenset[str]] | None = None
        self._model: tuple[str, int] | None = None
        self._data_version = -1
        #: Whether the transaction in progress indexed text (then it ends with a merge step, ADR 0088).
        self._fts_written = False
        self.embedding_cache = SQLiteEmbeddingCache(self.db)
        self.tombstones = SQLiteTombstoneLedger(self.db)
        #: The experience channel's projection (ADR 0045), written in each append's transaction.
        self.experience = SQLiteExperience(self.db)
        #: Relations between people and things (ADR 0081), written in each append's transaction.
        self.relations = SQLiteRelations(self.db)
        self._activity = SQLiteActivity(self.db)
        #: Context packets served and the history they stood in for (ADR 0061), buffered like accesses.
        self.packet_log = SQLitePacketLog(self.db)
        self._finish_pending_erasure()

    # -- transactions ---------------------------------------------------------------------------

    def transaction(self) -> AbstractContextManager[None]:
        """A write transaction (``BEGIN IMMEDIATE``); nested calls join the outer one (:class:`Db`)."""
        return self.db.transaction()

    @property
    def _depth(self) -> int:
        return self.db.depth

    def _undone(self) -> None:
        # A rolled-back write (or a failed commit): what the caches took from it is not true, and
        # the vectors embedded for it go too (a write refused as forgotten content leaves none).
        self.embedding_cache.drop_pending()
        self._fts_written = False
        self._projector.reset()
        self.experience.reset()
        self.relations.reset()
        self._vectors.invalidate()
        self._model = None

    def _ending(self) -> None:
        # Inside the transaction, before COMMIT: vectors embedded for this write join it (ADR 0064).
        self.embedding_cache.write_pending()
        if self._fts_written:  # an append indexed text: keep the indexes in few segments (ADR 0088)
            self._fts_written = False
            fts_compact.compact(self._con)
        self._projector.reset()
        self.experience.reset()
        self.relations.reset()

    @contextmanager
    def streaming(self) -> Iterator[None]:
        """For a long job that goes through the store once (an import): its reads go through
        SQLite's bounded page cache instead of the memory map, whose pages would stay counted in
        the process's resident memory up to the store's size (2 GiB of map). Restored after."""
        with self._lock:
            self._con.pragma("mmap_size", 0)
        try:
            yield
        finally:
            with self._lock:
                self._con.pragma("mmap_size", MMAP_SIZE)

    @property
    def connection(self) -> apsw.Connection:
        """The raw connection (adapter-internal use: backup, benchmarks)."""
        return self._con

    def close(self) -> None:
        """Write pending access and packet telemetry, optimise query statistics (if this connection
        wrote) and close the file. Neither waits long for another process's write lock (ADR 0024)."""
        with self._lock:
            self._activity.flush(busy_ms=CLOSE_FLUSH_WAIT_MS)
            self.packet_log.flush(busy_ms=CLOSE_FLUSH_WAIT_MS)
            with suppress(StorageError):  # vectors no write took along: a cache may lose them
                self.embedding_cache.flush(wait_ms=CLOSE_FLUSH_WAIT_MS)
            began = time.perf_counter()
            if optimize_on_close(self._con):
                self.db.note_statement(began, "adapters.sqlite.connection:optimize_on_close")
            self._con.close()

    def check_integrity(self, *, full: bool = True) -> str:
        """The file's health check: ``integrity_check`` (``quick_check`` unless ``full``) and the
        full-text indexes' own checks (:mod:`hlmem.adapters.sqlite.integrity`); returns what it checked.

        :raises StorageCorrupt: a damaged page, b-tree, index or full-text index.
        """
        pragma = "integrity_check" if full else "quick_check"
        with self._lock:
            integrity.check_integrity(self._con, self.path, full=full, fts=self.db.read_only is None)
        if self.db.read_only is not None:
            return f"the file's {pragma} (the full-text indexes' checks write, so a read-only store skips them)"
        return f"the file's {pragma} and its full-text indexes' checks"

