"""``Db``: one open SQLite connection, the lock that guards it and its transaction depth.

What the store's feature modules (jobs, tombstones, access telemetry, the embedding cache) share
with :class:`~hlmem.adapters.sqlite.store.SQLiteStorage`: they take a ``Db``, never the store, so
none of them imports the store back (ADR 0030). The store owns its caches; it hears about a
transaction's end through the two hooks, and a feature module's write joins the store's open
transaction because both use this one object.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

import apsw

from hlmem.adapters.sqlite.connection import BUSY_TIMEOUT_MS
from hlmem.adapters.sqlite.errors import storage_error
from hlmem.domain.errors import HlmemError, StorageError, StoreReadOnly


@contextmanager
def translated(what: str, con: apsw.Connection | None = None) -> Iterator[None]:
    """Turn APSW errors into the hlmem tree at the adapter boundary (a damaged page or text read
    back is ``StorageCorrupt``, a full disk ``StorageFull``: :mod:`hlmem.adapters.sqlite.errors`);
    ``con`` names the file and gives the errno of an I/O error."""
    try:
        yield
    except HlmemError:
        raise
    except apsw.BusyError as exc:
        # Another process held the write lock for the whole busy timeout: say so, not just "locked".
        raise StorageError(f"{what}: the store is busy: another process held its write lock for over "
                           f"{BUSY_TIMEOUT_MS // 1000} s ({exc})") from exc
    except (apsw.Error, UnicodeDecodeError) as exc:
        raise storage_error(exc, what, con=con) from exc
    except UnicodeEncodeError as exc:
        raise StorageError(f"{what}: text is not valid Unicode ({exc.reason})") from exc


def _nothing() -> None:
    return None


class Db:
    """A connection used by one thread at a time (``lock``), with nested write transactions.

    :param undone: called whenever a transaction or a nested block is rolled back, or a commit
        fails: what was cached from its writes is no longer true.
    :param ending: called before a successful outer transaction commits.
    """

    def __init__(self, con: apsw.Connection, *, undone: Callable[[], None] = _nothing,
                 ending: Callable[[], None] = _nothing) -> None:
        self.con = con
        self.lock = threading.RLock()
        #: 0 outside a write transaction, else how many ``transaction()`` blocks are open.
        self.depth = 0
        #: Why the store cannot be written here, when it cannot (a write is refused at once, saying
        #: so: adapters/sqlite/read_only.py); None for a writable store.
        self.read_only: StoreReadOnly | None = None
        self._undone = undone
        self._ending = ending

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """A write transaction (``BEGIN IMMEDIATE``); nested calls join the outer one."""
        if self.read_only is not None:
            raise self.read_only
        with self.lock:
            if self.depth:
                # Nested: a savepoint, so a failing inner block (say one append) is undone as a
                # whole even when the caller catches the error and the outer transaction goes on.
                self.depth += 1
                try:
                    with translated("writing", self.con), self.con:
                        yield
                except BaseException:
                    self._undone()
                    raise
                finally:
                    self.depth -= 1
                return
            with translated("beginning a transaction", self.con):
                self.con.execute("BEGIN IMMEDIATE")
            self.depth = 1
            try:
                with translated("writing", self.con):
                    yield
            except BaseException:
                self.depth = 0
                self._undone()
                with translated("rolling back", self.con):
                    self.con.execute("ROLLBACK")
                raise
            self.depth = 0
            self._ending()
            try:
                with translated("committing", self.con):
                    self.con.execute("COMMIT")
            except StorageError:
                # A commit that failed (a full disk) may leave the transaction open: end it, so the
                # connection can write again once there is room.
                self._undone()
                if self.con.in_transaction:
                    with suppress(apsw.Error):
                        self.con.execute("ROLLBACK")
                raise

    def meta(self, key: str) -> str | None:
        """A value from the store's metadata table."""
        with self.lock, translated("reading metadata"):
            row = self.con.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
            return row[0] if row else None
