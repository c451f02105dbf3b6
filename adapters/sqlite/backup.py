"""Online backup of a SQLite store, and the checks that make a backup file trustworthy (ADR 0016).

A backup is one self-contained SQLite file: a page-by-page copy (SQLite's online backup API)
of a consistent snapshot of the store, taken while writes go on, plus a record of what it is
(``backup_*`` rows in its ``meta`` table: id, log position, time, hlmem version, log digest;
the store's ``store_id`` comes with the copy). It is verified before it is renamed into place.
Restoring one is :mod:`hlmem.adapters.sqlite.restore`.
"""

from __future__ import annotations

import errno
import hashlib
import importlib.metadata
import os
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import apsw
from attrs import frozen

from hlmem.adapters.sqlite.connection import open_connection
from hlmem.adapters.sqlite.errors import storage_error
from hlmem.adapters.sqlite.integrity import check_integrity
from hlmem.adapters.sqlite.migrations import MIGRATIONS
from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.adapters.sqlite.temp_files import Leftover, held_temp, remove_files, remove_stale, temp_beside
from hlmem.application.ports import Clock, IdGenerator
from hlmem.domain.errors import (
    BackupRejected,
    HlmemError,
    StorageError,
    StorageFull,
    UnsupportedOperation,
    ValidationError,
)
from hlmem.domain.time import format_timestamp, parse_timestamp

#: Pages copied per backup step (4 KiB pages: 16 MiB). The snapshot is held across steps, so the
#: step size only bounds how long the source connection is busy at a time.
PAGES_PER_STEP = 4096
#: The ``meta`` keys a backup records about itself (a restore removes them from the live copy).
BACKUP_KEYS = ("backup_id", "backup_position", "backup_created_at", "backup_hlmem_version", "backup_log_digest")


@frozen
class BackupInfo:
    """What a backup file holds: its id, the store it copies, and the log position it ends at.

    ``size_bytes`` and ``seconds`` describe the file and how long making it (or reading it) took.
    """

    backup_id: str
    store_id: str
    position: int
    created_at: datetime
    hlmem_version: str
    path: str
    size_bytes: int = 0
    seconds: float = 0.0
    #: Temporaries of interrupted backups and restores this backup found stale and removed.
    removed: tuple[Leftover, ...] = ()


def hlmem_version() -> str:
    """The installed hlmem's version ("unknown" when run from an uninstalled tree)."""
    try:
        return importlib.metadata.version("hlmem")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


# -- backup -----------------------------------------------------------------------------------------


def backup(storage: Any, dest: str | os.PathLike[str], *, clock: Clock, ids: IdGenerator, overwrite: bool = False,
           pages_per_step: int = PAGES_PER_STEP, progress: Callable[[int, int], None] | None = None) -> BackupInfo:
    """Copy ``storage`` to ``dest`` while writes go on; return what the backup holds.

    The copy is a snapshot at one log position: a read transaction is held on a connection of
    its own for the whole copy (WAL lets writers continue meanwhile; without it, SQLite would
    restart the copy after every outside write). It is written to a temporary file beside
    ``dest``, recorded, verified (``integrity_check`` and the full-text index's own check) and
    only then renamed to ``dest``. A ``dest`` that is a directory gets a file named after the
    store and the time.

    :param progress: called after each step with (pages copied, pages in the snapshot).
    :raises UnsupportedOperation: for a store that is not a SQLite file.
    :raises ValidationError: ``dest`` exists (without ``overwrite``) or is the store itself.
    :raises StorageError: the copy failed or did not verify (nothing is left at ``dest``).
    """
    if not isinstance(storage, SQLiteStorage) or storage.path == ":memory:":
        raise UnsupportedOperation("backup needs a SQLite store file; an in-process (:memory:) store has none")
    started = time.perf_counter()
    created_at = clock.now()
    backup_id = ids.new("bk")
    source = Path(storage.path)
    target = Path(dest)
    if target.is_dir():
        stamp = format_timestamp(created_at).replace("-", "").replace(":", "")[:15]
        target = target / f"{source.stem}-{stamp}Z-{backup_id[-6:].lower()}.db"
    if target.exists() and target.resolve() == source.resolve():
        raise ValidationError(f"{target} is the store itself; back it up somewhere else", field="path")
    if target.is_symlink():
        # The rename would replace the link, not write where it points: say so rather than guess.
        raise ValidationError(f"{target} is a symbolic link (to {os.readlink(target)}); a backup is not written "
                              "through a link: give the real file's path, or remove the link", field="path")
    if target.exists() and not overwrite:
        raise ValidationError(f"{target} exists; choose a new file (or overwrite it)", field="path")
    target.parent.mkdir(parents=True, exist_ok=True)
    # What earlier backups and restores killed mid-copy left, full size (issue 33 item 6).
    removed = remove_stale(target.parent)
    if source.parent.resolve() != target.parent.resolve():
        removed += remove_stale(source.parent)
    with held_temp(target, "backup") as tmp:
        store_id, position = _write_backup(source, tmp, target, backup_id=backup_id, created_at=created_at,
                                           pages_per_step=pages_per_step, progress=progress)
    return BackupInfo(backup_id, store_id, position, created_at, hlmem_version(), str(target), target.stat().st_size,
                      time.perf_counter() - started, tuple(removed))


def _write_backup(source: Path, tmp: Path, target: Path, *, backup_id: str, created_at: datetime,
                  pages_per_step: int, progress: Callable[[int, int], None] | None) -> tuple[str, int]:
    """Copy, record and verify the snapshot in ``tmp``, then rename it to ``target``."""
    try:
        store_id, position = _copy_snapshot(source, tmp, pages_per_step, progress)
        version = hlmem_version()
        con = apsw.Connection(str(tmp))
        try:
            with con:
                con.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [
                    ("backup_id", backup_id), ("backup_position", str(position)),
                    ("backup_created_at", format_timestamp(created_at)), ("backup_hlmem_version", version),
                    ("backup_log_digest", log_digest(con))])
            make_self_contained(con)
            # The copy is the store's pages: damage found in it is the store's.
            verify(con, tmp, name=f"{source} (its backup copy)")
        finally:
            con.close()
        fsync(tmp)
        os.replace(tmp, target)
        fsync_dir(target.parent)
    except apsw.Error as exc:
        # A full destination says "no space left on <target>", not SQLite's "not an error".
        error = storage_error(exc, "backup", path=target)
        if type(error) is StorageError:
            error = StorageError(f"backup to {target} failed: {exc}")
        raise error from exc
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise StorageFull(f"no space left on {target} (backup); free space on its file system and try again",
                              path=str(target)) from exc
        raise
    return store_id, position


def _copy_snapshot(source: Path, tmp: Path, pages_per_step: int,
                   progress: Callable[[int, int], None] | None) -> tuple[str, int]:
    """Copy one snapshot of ``source`` into ``tmp``; return its store id and last log position."""
    src = open_connection(source, readonly=True)
    try:
        # The snapshot: a read transaction held across every step. The position and the pages
        # copied belong to the same instant.
        src.execute("BEGIN")
        position = src.execute("SELECT coalesce(max(position), 0) FROM events").fetchone()[0]
        row = src.execute("SELECT value FROM meta WHERE key = 'store_id'").fetchone()
        if row is None:
            raise StorageError(f"{source} has no store identity; open it once with this hlmem to migrate it")
        dst = apsw.Connection(str(tmp))
        try:
            with dst.backup("main", src, "main") as job:
                steps = 0
                while not job.done:
                    job.step(pages_per_step)
                    steps += 1
                    # A held snapshot never restarts; if SQLite restarts anyway, fail, never spin.
                    if steps > 2 * (job.page_count // max(pages_per_step, 1) + 1) + 10:
                        raise StorageError("the backup kept restarting: the source changed under its snapshot")
                    if progress is not None:
                        progress(job.page_count - job.remaining, job.page_count)
        finally:
            dst.close()
        src.execute("COMMIT")
    finally:
        src.close()
    return row[0], position


def make_self_contained(con: apsw.Connection) -> None:
    """Fold the WAL into the file and leave WAL mode: the backup is one file, nothing beside it."""
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    mode = con.execute("PRAGMA journal_mode=DELETE").fetchone()[0]
    if str(mode).lower() != "delete":
        raise StorageError(f"could not leave WAL mode (journal_mode is {mode})")


def log_digest(con: apsw.Connection) -> str:
    """SHA-256 of the whole log (envelopes and payloads, in order).

    ``integrity_check`` finds broken pages and indexes but not a flipped byte inside a text;
    the log is the one thing a store cannot rebuild, so a backup records this digest of it and
    restore recomputes it.
    """
    digest = hashlib.sha256()
    after = 0
    while rows := con.execute(
            "SELECT e.position, e.event_id, e.stream_id, e.version, e.tag, e.recorded_at, e.namespace, "
            "e.schema_version, coalesce(p.payload, '') FROM events e LEFT JOIN event_payloads p "
            "ON p.position = e.position WHERE e.position > ? ORDER BY e.position LIMIT 5000", (after,)).fetchall():
        for row in rows:
            digest.update("\x1f".join(map(str, row)).encode("utf-8", "surrogatepass"))
            digest.update(b"\x1e")
        after = rows[-1][0]
    return digest.hexdigest()


def verify(con: apsw.Connection, path: Path, *, full: bool = True, name: str | None = None) -> None:
    """The store file's health check (:func:`hlmem.adapters.sqlite.integrity.check_integrity`)."""
    check_integrity(con, path, full=full, name=name)


# -- reading a backup -------------------------------------------------------------------------------


def read_backup(path: str | os.PathLike[str], *, check: bool = True) -> BackupInfo:
    """Verify a backup file and say what it holds; nothing is written to it.

    :param check: run the full ``integrity_check`` (restore always does).
    :raises BackupRejected: ``corrupt`` (not a database, or the check fails), ``not-a-backup``
        (no store identity or no backup record), ``newer-schema`` (migrations this hlmem does
        not know: a newer hlmem made it).
    """
    started = time.perf_counter()
    target = Path(path)
    if not target.is_file():
        raise BackupRejected(f"no backup file at {target}", reason="not-a-backup")
    try:
        con = open_connection(target, readonly=True)
    except HlmemError as exc:
        raise BackupRejected(f"{target} cannot be opened as a database: {exc}", reason="corrupt") from exc
    try:
        try:
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
            if check:
                problems = [r[0] for r in con.execute("PRAGMA integrity_check(20)")]
                if problems != ["ok"]:
                    raise BackupRejected(f"{target} is corrupt: {'; '.join(map(str, problems[:5]))}",
                                         reason="corrupt")
            if not {"meta", "_migrations", "events"} <= tables:
                raise BackupRejected(f"{target} is not an hlmem store", reason="not-a-backup")
            names = [r[0] for r in con.execute("SELECT name FROM _migrations ORDER BY rowid")]
            meta = dict(con.execute("SELECT key, value FROM meta"))
            digest = log_digest(con) if check and "backup_log_digest" in meta else None
        except apsw.Error as exc:
            raise BackupRejected(f"{target} is corrupt or not a database: {exc}", reason="corrupt") from exc
    finally:
        con.close()
    known = {m.name for m in MIGRATIONS}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise BackupRejected(f"{target} was made by a newer hlmem (unknown migrations: {', '.join(unknown)}); "
                             "upgrade hlmem to restore it", reason="newer-schema")
    missing = [k for k in ("store_id", *BACKUP_KEYS) if k not in meta]
    if missing:
        raise BackupRejected(f"{target} is an hlmem store but not a backup made by `hlmem backup` "
                             f"(no {', '.join(missing)})", reason="not-a-backup")
    if digest is not None and digest != meta["backup_log_digest"]:
        raise BackupRejected(f"{target} is corrupt: its log does not match the digest recorded when it was made",
                             reason="corrupt")
    try:
        created_at = parse_timestamp(meta["backup_created_at"], field="backup_created_at")
        position = int(meta["backup_position"])
    except (HlmemError, ValueError) as exc:
        raise BackupRejected(f"{target} has an unreadable backup record: {exc}", reason="corrupt") from exc
    return BackupInfo(meta["backup_id"], meta["store_id"], position, created_at, meta["backup_hlmem_version"],
                      str(target), target.stat().st_size, time.perf_counter() - started)


# -- files ------------------------------------------------------------------------------------------


def fsync(path: Path) -> None:
    """Flush a file to the disk (before it is renamed into place)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(path: Path) -> None:
    """Flush a directory, so a rename in it survives power loss (POSIX only)."""
    if os.name != "posix":
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
