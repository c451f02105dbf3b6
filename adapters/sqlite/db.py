"""``Db``: one open SQLite connection, the lock that guards it and its transaction depth.

What the store's feature modules (jobs, tombstones, access telemetry, the embedding cache) share
with :class:`~hlmem.adapters.sqlite.store.SQLiteStorage`: they take a ``Db``, never the store, so
none of them imports the store back (ADR 0030). The store owns its caches; it hears about a
transaction's end through the two hooks, and a feature module's write joins the store's open
transaction because both use this one object.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

import apsw

from hlmem.adapters.sqlite import lock_timing
from hlmem.adapters.sqlite.connection import BUSY_TIMEOUT_MS
from hlmem.adapters.sqlite.errors import storage_error
from hlmem.adapters.sqlite.lock_timing import LockTiming
from hlmem.domain.errors import HlmemError, StorageError, StoreReadOnly

#: How long one attempt at the write lock waits (SQLite's busy handler) before the writer looks
#: whether anyone else committed meanwhile, in milliseconds (ADR 0064).
BUSY_STEP_MS = 2_000
#: A writer gives up only when no other connection committed for this long while it waited: the
#: store is stuck (a process stopped inside a transaction), not busy.
STALL_MS = BUSY_TIMEOUT_MS


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
    :param ending: called at the end of a successful outer transaction, inside it, before its
        ``COMMIT`` (what it writes commits with the transaction; if it fails, all is rolled back).
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
        #: Called with a :class:`~.lock_timing.LockTiming` after each outermost write transaction
        #: (None: not timed). ``HLMEM_LOCK_TRACE=FILE`` sets a writer to that file.
        self.on_timing: Callable[[LockTiming], None] | None = lock_timing.from_environment()

    def _begin(self, wait_ms: int | None) -> None:
        """``BEGIN IMMEDIATE``, waiting for the write lock as long as other writers make progress.

        Each attempt waits up to :data:`BUSY_STEP_MS` in SQLite's busy handler; between attempts
        ``data_version`` tells whether another connection committed meanwhile. The writer gives up
        only after :data:`STALL_MS` in which nobody committed: then the lock's holder is stuck.
        With ``wait_ms``: one attempt waiting at most that long (telemetry that must not wait).
        """
        con = self.con
        if wait_ms is not None:
            con.set_busy_timeout(wait_ms)
            try:
                with translated("beginning a transaction", con):
                    con.execute("BEGIN IMMEDIATE")
            finally:
                con.set_busy_timeout(BUSY_TIMEOUT_MS)
            return
        seen: int | None = None  # read only once the lock was busy: a free lock costs nothing more
        progress = time.monotonic()
        con.set_busy_timeout(min(BUSY_STEP_MS, STALL_MS))
        try:
            while True:
                try:
                    con.execute("BEGIN IMMEDIATE")
                    return
                except apsw.BusyError as exc:
                    now = time.monotonic()
                    try:
                        version = con.pragma("data_version")
                    except apsw.Error:  # the file is being recovered: no news of progress this time
                        version = seen
                    if seen is not None and version != seen:
                        progress = now  # someone committed since the last look: the store moves, keep waiting
                    seen = version
                    if (now - progress) * 1000 >= STALL_MS:
                        raise StorageError(
                            f"beginning a transaction: the store is stuck: another process has held its write "
                            f"lock for over {STALL_MS // 1000} s without committing (a process stopped inside a "
                            f"transaction?); nothing was written ({exc})") from exc
                except apsw.Error as exc:
                    raise storage_error(exc, "beginning a transaction", con=con) from exc
        finally:
            con.set_busy_timeout(BUSY_TIMEOUT_MS)

    def _timed(self, started: float, asked: float, granted: float, outcome: str, committing: float = 0.0) -> None:
        """Report one transaction: asked for the lock at ``asked``, got it at ``granted``, began
        its ``COMMIT`` at ``committing`` (``time.perf_counter`` values; 0: no commit)."""
        trace = self.on_timing
        if trace is None:
            return
        end = time.perf_counter()
        trace(LockTiming(started=started, wait_ms=round((granted - asked) * 1000, 3),
                         hold_ms=round((end - granted) * 1000, 3) if outcome != "busy" else 0.0,
                         commit_ms=round((end - committing) * 1000, 3) if committing else 0.0,
                         outcome=outcome, site=lock_timing.site(), pid=os.getpid(),
                         path=self.con.filename or ""))

    def note_statement(self, began: float, site: str) -> None:
        """Report a write made by one statement outside :meth:`transaction` (``PRAGMA optimize``
        at close, which never waits for the lock), begun at ``began`` (``time.perf_counter``)."""
        trace = self.on_timing
        if trace is None:
            return
        hold = round((time.perf_counter() - began) * 1000, 3)
        trace(LockTiming(started=time.time() - hold / 1000, wait_ms=0.0, hold_ms=hold, commit_ms=hold,
                         outcome="commit", site=site, pid=os.getpid(), path=self.con.filename or ""))

    @contextmanager
    def transaction(self, *, wait_ms: int | None = None) -> Iterator[None]:
        """A write transaction (``BEGIN IMMEDIATE``); nested calls join the outer one.

        Only SQL belongs inside: every other writer of the file waits while it is open (ADR 0064).

        :param wait_ms: wait at most this long for another process's write lock, then fail with
            :class:`StorageError` (None: wait while other writers make progress, :meth:`_begin`).
            Ignored by a nested call, which already holds the lock.
        """
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
            timed = self.on_timing is not None
            started, asked = (time.time(), time.perf_counter()) if timed else (0.0, 0.0)
            try:
                self._begin(wait_ms)
            except StorageError:
                if timed:
                    self._timed(started, asked, time.perf_counter(), "busy")
                raise
            granted = time.perf_counter() if timed else 0.0
            self.depth = 1
            try:
                with translated("writing", self.con):
                    yield
                    self._ending()  # may write too (the embedding cache's pending rows): still inside
            except BaseException:
                self.depth = 0
                self._undone()
                try:
                    with translated("rolling back", self.con):
                        self.con.execute("ROLLBACK")
                finally:
                    if timed:
                        self._timed(started, asked, granted, "rollback")
                raise
            self.depth = 0
            committing = time.perf_counter() if timed else 0.0
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
                if timed:
                    self._timed(started, asked, granted, "rollback")
                raise
            if timed:
                self._timed(started, asked, granted, "commit", committing)

    def meta(self, key: str) -> str | None:
        """A value from the store's metadata table."""
        with self.lock, translated("reading metadata"):
            row = self.con.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
            return row[0] if row else None
