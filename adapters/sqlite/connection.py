"""The one factory for SQLite connections: APSW best-practice settings applied per connection.

Nothing here touches APSW's process-global hooks: a library must not change how its host's other
SQLite users behave. Opening never writes (ADR 0024): a reader opens and reads while another
process holds the write lock, as WAL allows; the query planner's statistics are refreshed when a
connection that wrote closes (:func:`optimize_on_close`), never at open.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import apsw
import apsw.bestpractice as bp

from hlmem.adapters.sqlite.errors import storage_error
from hlmem.adapters.sqlite.read_only import open_read_only, read_only_reason, refusal
from hlmem.domain.errors import HlmemError, StorageError
from hlmem.domain.forgetting import mentions

#: How long a writer waits for another process's write lock before giving up, in milliseconds.
#: It covers the longest transaction a real writer holds on a loaded machine (an import batch, a
#: forget cascade, a re-embedding), with room: writers wait in line rather than fail (ADR 0024).
BUSY_TIMEOUT_MS = 60_000
#: Bytes of the store read through a memory map (``PRAGMA mmap_size``; see below).
MMAP_SIZE = 2 * 1024 * 1024 * 1024


def open_connection(path: str | Path, *, synchronous: str = "FULL", readonly: bool = False) -> apsw.Connection:
    """Open ``path`` (created if missing) with WAL, busy timeout, foreign keys, DQS off.

    Nothing here takes the write lock of an existing store (``PRAGMA optimize`` runs at close),
    so opening never waits for another process's write transaction.

    :param synchronous: ``FULL`` (default) makes every commit durable on power loss; ``NORMAL``
        trades the last transactions on power loss for speed (still never corrupts); ``OFF`` is
        only for scratch stores (replay targets) that can be rebuilt.
    :raises StorageError: when the file cannot be opened as a database.
    """
    target = str(path)
    if target != ":memory:":
        try:
            Path(target).parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            reason = read_only_reason(target)
            if reason is None:
                raise StorageError(f"cannot open database {target}: {exc}") from exc
            raise refusal(target, reason, "a new store cannot be made there") from exc
    flags = apsw.SQLITE_OPEN_READONLY if readonly else apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE
    con = None
    try:
        try:
            con = apsw.Connection(target, flags=flags)
            bp.connection_busy_timeout(con, BUSY_TIMEOUT_MS)
            bp.connection_wal(con)
            # The first read makes SQLite open the -wal and -shm: where it cannot, it fails here.
            con.execute("SELECT count(*) FROM sqlite_schema").fetchall()
        except (apsw.ReadOnlyError, apsw.CantOpenError, apsw.IOError) as exc:
            # A read-only mount, or a folder where SQLite cannot make -wal and -shm: read the
            # store as SQLite allows, and say so on the first write (adapters/sqlite/read_only.py).
            reason = read_only_reason(target) if target != ":memory:" else None
            if reason is None:
                raise
            if con is not None:
                con.close()
                con = None
            if not Path(target).exists():
                raise refusal(target, reason, "a new store cannot be made there") from exc
            con = open_read_only(target, reason)
        bp.connection_busy_timeout(con, BUSY_TIMEOUT_MS)
        bp.connection_enable_foreign_keys(con)
        bp.connection_dqs(con)
        bp.connection_recursive_triggers(con)
        if synchronous not in ("FULL", "NORMAL", "EXTRA", "OFF"):
            raise StorageError(f"synchronous must be FULL, NORMAL, EXTRA or OFF, not {synchronous!r}")
        if not con.readonly("main"):
            con.pragma("synchronous", synchronous)
        # Freed pages are zeroed, so erased text does not linger in the file (lifecycle issue).
        con.pragma("secure_delete", "ON")
        # Forget plans find the events that mention a name with the domain's own rule.
        con.create_scalar_function("hlmem_mentions", _mentions, 2, deterministic=True)
        con.pragma("temp_store", "MEMORY")
        con.pragma("cache_size", -32_000)
        # Reads of the whole file go through the map (up to 2 GiB), not a read() per page: at 100k
        # claims (535 MB) full text and claim loads took ~25% less than with 256 MiB (docs/benchmarks/retrieval.md).
        con.pragma("mmap_size", MMAP_SIZE)
    except (apsw.Error, HlmemError) as exc:
        if isinstance(exc, HlmemError):
            if con is not None:
                con.close()
            raise
        # A damaged file says "corrupt", a full disk "no space left on <path>" (adapters/sqlite/errors.py).
        error = storage_error(exc, "opening it", path=target, con=con)
        if con is not None:
            con.close()
        if type(error) is StorageError:
            error = StorageError(f"cannot open database {target}: {exc}")
        raise error from exc
    return con


def optimize_on_close(con: apsw.Connection) -> bool:
    """Refresh the query planner's statistics before ``con`` closes, if it wrote; never wait.

    SQLite's advice for short-lived connections is one ``PRAGMA optimize`` just before closing:
    it analyses only what this connection's queries would have planned better with. It may write
    (``sqlite_stat1``), so a connection that only read skips it (a reader never takes the write
    lock), and it runs with no busy timeout: when another process holds the write lock, the
    statistics wait for the next writer's close. Returns whether it ran.
    """
    try:
        if con.readonly("main") or not con.total_changes():
            return False
        con.set_busy_timeout(0)
        # The statistics read much of the file: through the page cache, not the map, whose pages
        # would count in the process's resident memory up to the store's size (a large import's
        # close was its peak).
        con.pragma("mmap_size", 0)
        con.pragma("optimize")
    except apsw.Error:
        return False
    return True


def _mentions(text: str | None, name: str | None) -> bool:
    return bool(text) and bool(name) and mentions(str(text), str(name))


def open_migrated(path: str | Path, what: str) -> apsw.Connection:
    """A new connection of its own to the store file at ``path``, created and migrated if needed
    (the operational ledgers: LLM calls, budget).

    :param what: names the opener in the error (``"the budget ledger"``).
    :raises StorageError: when the file cannot be opened or migrated.
    """
    from datetime import datetime

    from hlmem.adapters.sqlite.migrations import migrate
    from hlmem.domain.time import UTC

    try:
        con = open_connection(path)
        migrate(con, datetime.now(UTC).isoformat())
    except apsw.Error as exc:
        raise StorageError(f"cannot open {what} in {path}: {exc}") from exc
    return con


class OwnConnection:
    """A ledger's connection of its own: given, or opened by ``opener`` at first use (ADR 0074).

    After :meth:`close` it is gone for good: using it raises :class:`StorageError` rather than
    quietly opening the file again.
    """

    def __init__(self, con: apsw.Connection | None, opener: Callable[[], apsw.Connection] | None, what: str) -> None:
        if con is None and opener is None:
            raise ValueError("give a connection or an opener")
        self._con = con
        self._opener = opener
        self._what = what
        self._closed = False
        self._lock = threading.Lock()

    def get(self) -> apsw.Connection:
        """The connection, opened now if it was not yet."""
        if self._con is None:
            with self._lock:
                if self._closed:
                    raise StorageError(f"{self._what} is closed")
                if self._con is None:
                    self._con = self._opener()  # type: ignore[misc]
        return self._con

    @property
    def opened(self) -> bool:
        return self._con is not None

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._con is not None:
                self._con.close()
