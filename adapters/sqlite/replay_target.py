"""Where a replay rebuilds a store: a new file the caller names, or a temporary one.

The rebuild writes a file nobody else has open and nobody reads until it is complete, so it is
written as a bulk load (ADR 0086): no write-ahead log (the rollback journal in memory, so a failed
batch still rolls back), no syncs, a large page cache. A store kept with ``into`` is built under a
temporary name beside it (``.NAME.rebuild-XXXXXXXX.tmp``, with a lock file its process holds, as
a backup's: adapters/sqlite/temp_files.py) and takes its name only once rebuilt, back in WAL mode
and synced: a replay that fails or is stopped leaves nothing at ``into``, and one that is killed
leaves a temporary the doctor reports and the next backup, restore, replay or forget removes.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import apsw

from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.adapters.sqlite.temp_files import held_temp, remove_stale
from hlmem.domain.errors import StorageError, ValidationError

#: Tables whose secondary indexes a rebuild makes once at the end instead of row by row: no
#: statement of the write path (``append``: the projector, relations, experience, search,
#: context) reads them through these indexes; they serve readers (slots, subjects, lifecycle,
#: evidence by event, supersede chains). Unique indexes stay (they are constraints).
DEFERRED_INDEX_TABLES = ("claims", "claim_evidence", "supersede_edges")
#: Page cache of the store being rebuilt, in KiB (``PRAGMA cache_size`` as a negative number):
#: the projection's tables and indexes stay in memory instead of being spilled and read back.
REBUILD_CACHE_KIB = 262_144


@contextmanager
def replay_target(into: str | os.PathLike[str] | None = None) -> Iterator[SQLiteStorage]:
    """A fresh SQLite store for a replay, closed on exit.

    :param into: where to keep the rebuilt store (a new file, in WAL mode like any store, with
        ``synchronous=NORMAL``); None: a temporary file, removed on exit.
    :raises ValidationError: ``into`` exists (a replay builds a fresh store).
    """
    final = Path(into) if into else None
    if final is not None and final.exists():
        raise ValidationError(f"{final} exists; replay builds a fresh store", field="into")
    with contextlib.ExitStack() as stack:
        if final is None:
            path = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="hlmem-replay-"))) / "rebuilt.db"
        else:
            final.parent.mkdir(parents=True, exist_ok=True)
            remove_stale(final.parent)  # what killed replays, backups and restores left there
            path = stack.enter_context(held_temp(final, "rebuild"))
        target = SQLiteStorage(path, synchronous="OFF")
        closed = False
        try:
            deferred = bulk_load(target.connection)
            yield target
            if final is not None:
                finish(target, deferred)
                closed = True
                keep(path, final)
        finally:
            if not closed:
                target.close()


def bulk_load(con: apsw.Connection) -> list[tuple[str, str]]:
    """Settings for writing a fresh, private store that is thrown away unless it is finished;
    returns the indexes dropped meanwhile (name, SQL), which :func:`finish` makes again.

    The rollback journal lives in memory (a failed batch still rolls back; only a crash would
    leave the file damaged, and a crashed rebuild is never used), commits never sync, the page
    cache is large, and the secondary indexes of :data:`DEFERRED_INDEX_TABLES` are dropped
    (made once from the finished table: a sort instead of a b-tree insert per row).
    ``secure_delete`` stays on: pages freed while rebuilding (full-text segments merged) may
    hold text that a later ``forget`` must not leave behind in the file.
    """
    con.pragma("journal_mode", "MEMORY")
    con.pragma("synchronous", "OFF")
    con.pragma("cache_size", -REBUILD_CACHE_KIB)
    marks = ",".join("?" * len(DEFERRED_INDEX_TABLES))
    deferred = [(name, sql) for name, sql in con.execute(
        f"SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ({marks}) "
        "ORDER BY name", DEFERRED_INDEX_TABLES) if not sql.lstrip().upper().startswith("CREATE UNIQUE")]
    with con:
        for name, _sql in deferred:
            con.execute(f'DROP INDEX "{name}"')
    return deferred


def finish(target: SQLiteStorage, deferred: list[tuple[str, str]]) -> None:
    """Make the rebuilt store an ordinary one and close it: its deferred indexes made, WAL
    mode, ``synchronous=NORMAL``."""
    con = target.connection
    with target.db.lock:
        with target.transaction():
            for _name, sql in deferred:
                con.execute(sql)
        if con.pragma("journal_mode", "WAL") != "wal":
            raise StorageError(f"{target.path}: the rebuilt store could not be switched back to WAL mode")
        con.pragma("synchronous", "NORMAL")
    target.close()


def keep(path: Path, final: Path) -> None:
    """Give the closed store at ``path`` the name ``final`` once every page is on disk, never
    over a file that appeared meanwhile."""
    with open(path, "rb+") as f:
        os.fsync(f.fileno())
    try:
        os.link(path, final)  # fails if ``final`` exists: a rename would replace it
    except FileExistsError:
        raise ValidationError(f"{final} appeared during the replay; the rebuilt store is not kept",
                              field="into") from None
    except OSError:
        if final.exists():
            raise ValidationError(f"{final} appeared during the replay; the rebuilt store is not kept",
                                  field="into") from None
        os.replace(path, final)
    with contextlib.suppress(OSError):
        fd = os.open(final.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

