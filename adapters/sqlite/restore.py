"""Offline restore of a SQLite store from a backup, never bringing back what was forgotten (ADR 0016).

A restore never trusts the backup to be current about forgetting: before the restored store
goes live, the *live* store's tombstone ledger is enforced on it, so what was forgotten after
the backup stays forgotten. The live store is swapped only at the very end, by one rename;
any failure before that leaves it untouched. Restore is offline: nothing may have the live
store open (it checks, and refuses).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import apsw
from attrs import frozen

from hlmem.adapters.sqlite.backup import (
    BACKUP_KEYS,
    BackupInfo,
    fsync,
    fsync_dir,
    make_self_contained,
    read_backup,
    verify,
)
from hlmem.adapters.sqlite.connection import open_connection
from hlmem.adapters.sqlite.errors import storage_error
from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.adapters.sqlite.temp_files import held_temp, remove_stale, stale_note
from hlmem.application.ports import Clock, IdGenerator
from hlmem.domain.errors import BackupRejected, HlmemError, StorageError, ValidationError
from hlmem.domain.events import StoreRestored


@frozen
class RestoreInfo:
    """What a restore did.

    ``reapplied`` streams were forgotten on the restored copy because the live store's ledger
    said so (``tombstones`` ledger rows were carried over); ``ledger_applied`` is False when
    there was no readable live store to take a ledger from; ``restored_id`` is the
    ``StoreRestored`` stream; ``notes`` says, in words, anything a user should know.
    """

    backup: BackupInfo
    live_path: str
    restored_id: str
    position: int
    reapplied: int
    tombstones: int
    ledger_applied: bool
    forced: bool
    previous_store_id: str | None
    notes: tuple[str, ...]
    seconds: float


class TombstoneEnforcer(Protocol):
    """What restore needs of the forget service on the restored copy (``ForgetService``)."""

    def enforce_tombstones(self, tombstones: Sequence[Any], *, actor: str, reason: str) -> int: ...


def restore(live_path: str | os.PathLike[str], backup_path: str | os.PathLike[str], *, clock: Clock,
            ids: IdGenerator, enforcer: Callable[[SQLiteStorage], TombstoneEnforcer], force: bool = False,
            actor: str = "user", reason: str = "", namespace: str = "default") -> RestoreInfo:
    """Replace the store at ``live_path`` with the backup at ``backup_path``.

    Steps: verify the backup (:func:`read_backup`); read the live store's identity and tombstone
    ledger (refusing another store's backup unless ``force``; an empty live store — no events,
    no tombstones — may be replaced by any backup); copy the backup beside the live store;
    enforce the live ledger on the copy (``enforcer(copy).enforce_tombstones``) and carry the
    ledger over; append ``StoreRestored``; fold the WAL in; then swap the files with one rename.
    Any failure before the rename leaves the live store as it was.

    :param enforcer: makes the forget service of a store (the restored copy).
    :raises BackupRejected: the backup is corrupt, not a backup, from a newer hlmem, of another
        store (without ``force``), or the live store is in use or unreadable (without ``force``).
    """
    started = time.perf_counter()
    live, link_note = real_store_path(Path(live_path))
    source = Path(backup_path)
    if live.exists() and source.exists() and live.resolve() == source.resolve():
        raise ValidationError("the backup file is the live store itself", field="path")
    info = read_backup(source)
    notes: list[str] = [link_note] if link_note else []
    tombstones: list[Any] = []
    previous: str | None = None
    ledger_applied = False
    if live.exists():
        _ensure_not_in_use(live)
        previous, has_tombstones, empty, problem = _identify_live(live)
        if problem is None and has_tombstones and (previous == info.store_id or empty or force):
            tombstones, problem = _live_ledger(live)
        if problem is not None:
            if not force:
                raise BackupRejected(f"the live store {live} cannot be read ({problem}); --force replaces it "
                                     "without applying its tombstone ledger", reason="live-unreadable")
            notes.append(f"the live store could not be read ({problem}): no tombstone ledger was applied")
        else:
            ledger_applied = True
            if previous != info.store_id and not empty and not force:
                raise BackupRejected(f"{source} is a backup of store {info.store_id}, not of this store "
                                     f"({previous}); --force restores it anyway", reason="other-store")
            if previous != info.store_id:
                notes.append(f"the backup is of another store ({info.store_id}); the live store was "
                             + ("empty" if empty else f"{previous} (forced)"))
    else:
        notes.append(f"no live store at {live}: there was no tombstone ledger to apply")
    live.parent.mkdir(parents=True, exist_ok=True)
    if removed := remove_stale(live.parent):
        notes.append(stale_note(removed))
    with held_temp(live, "restore") as tmp:
        restored_id, position, reapplied, carried = _prepare(
            source, tmp, info, tombstones, clock=clock, ids=ids, enforcer=enforcer, actor=actor, reason=reason,
            namespace=namespace)
        _swap(tmp, live)
    if tombstones:
        notes.append(f"{len(tombstones)} tombstones of the live store were enforced: {reapplied} streams forgotten "
                     "again")
    return RestoreInfo(info, str(live), restored_id, position, reapplied, carried, ledger_applied, force, previous,
                       tuple(notes), time.perf_counter() - started)


def real_store_path(path: Path) -> tuple[Path, str | None]:
    """The file a store path names, through any symbolic links, and a note when it is a link.

    Restore replaces the store with one rename; renaming over a link would replace the link with
    a plain file and leave the real store as it was, the two paths silently diverging. So the
    rename goes to the file the link points to (which may not exist yet: disaster recovery), and
    the link stays.

    :raises ValidationError: the link does not resolve (a loop).
    """
    real = Path(os.path.realpath(path))
    if real.is_symlink():
        raise ValidationError(f"{path} is a symbolic link that does not resolve (a loop through {real}); "
                              "point it at the store file, or give the store file's own path", field="db")
    if not path.is_symlink():
        return real if path.is_absolute() else path, None
    return real, f"{path} is a symbolic link: restored into the file it points to, {real} (the link stays)"


def _identify_live(live: Path) -> tuple[str | None, bool, bool, str | None]:
    """(store id, whether it has tombstones, whether it is empty, problem) of the live store, read
    on a read-only connection: a refused restore writes nothing to it."""
    try:
        con = open_connection(live, readonly=True)
        try:
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
            if not {"meta", "events"} <= tables:
                return None, False, False, "it is not an hlmem store"
            row = con.execute("SELECT value FROM meta WHERE key = 'store_id'").fetchone()
            has_events = con.execute("SELECT EXISTS (SELECT 1 FROM events)").fetchone()[0]
            has_tombstones = bool("tombstones" in tables and con.execute(
                "SELECT EXISTS (SELECT 1 FROM tombstones)").fetchone()[0])
        finally:
            con.close()
    except (apsw.Error, HlmemError) as exc:
        return None, False, False, str(exc)
    return (row[0] if row else None), has_tombstones, not has_events and not has_tombstones, None


def _live_ledger(live: Path) -> tuple[list[Any], str | None]:
    """The live store's tombstone ledger, through the store's own port (or the problem)."""
    try:
        store = SQLiteStorage(live)
    except HlmemError as exc:
        return [], str(exc)
    try:
        return list(store.tombstones.tombstones()), None
    except HlmemError as exc:
        return [], str(exc)
    finally:
        store.close()


def _prepare(source: Path, tmp: Path, info: BackupInfo, tombstones: list[Any], *, clock: Clock, ids: IdGenerator,
             enforcer: Callable[[SQLiteStorage], TombstoneEnforcer], actor: str, reason: str,
             namespace: str) -> tuple[str, int, int, int]:
    """Build the store that will go live in ``tmp``; return (StoreRestored id, its position,
    streams forgotten again, ledger rows carried over)."""
    try:
        src = open_connection(source, readonly=True)
        dst = apsw.Connection(str(tmp))
        try:
            with dst.backup("main", src, "main") as job:
                job.step(-1)
        finally:
            dst.close()
            src.close()
    except apsw.Error as exc:
        # A full disk beside the live store says "no space left on <copy>", not "not an error".
        error = storage_error(exc, f"copying {source}", path=tmp)
        if type(error) is StorageError:
            error = StorageError(f"copying {source} failed: {exc}")
        raise error from exc
    copy = SQLiteStorage(tmp)  # migrates a backup of an older hlmem
    try:
        if copy.store_id() != info.store_id:
            raise StorageError(f"the copy of {source} changed identity while being copied")
        reapplied = carried = 0
        if tombstones:
            because = f"restore of backup {info.backup_id}: forgotten after the backup was made"
            reapplied = enforcer(copy).enforce_tombstones(tombstones, actor=actor, reason=because)
            ledger = copy.tombstones
            have = {(t.fingerprint, t.kind, t.stream_id) for t in ledger.tombstones()}
            new = [t for t in tombstones if (t.fingerprint, t.kind, t.stream_id) not in have]
            ledger.add(new)
            carried = len(new)
        restored_id = ids.new("rs")
        position = copy.append([StoreRestored(
            event_id=ids.new("lg"), stream_id=restored_id, version=1, recorded_at=clock.now(), namespace=namespace,
            backup_id=info.backup_id, backup_position=info.position, reapplied=reapplied, actor=actor,
            reason=reason)])
        con = copy.connection
        with copy.transaction():
            con.executemany("DELETE FROM meta WHERE key = ?", [(k,) for k in BACKUP_KEYS])
        make_self_contained(con)
        # The backup passed the full check in read_backup; what changed since are SQLite's own
        # writes, so the quick check suffices here.
        verify(con, tmp, full=False)
    finally:
        copy.close()
    return restored_id, position, reapplied, carried


def _ensure_not_in_use(live: Path) -> None:
    """Refuse when any connection (this process or another) has the live store open.

    An idle WAL connection keeps a shared lock on the file; an exclusive lock is granted only
    when there is none.
    """
    try:
        con = apsw.Connection(str(live), flags=apsw.SQLITE_OPEN_READWRITE)
    except apsw.Error:
        return  # not openable at all: the live-store read reports it
    try:
        con.set_busy_timeout(200)
        con.execute("PRAGMA locking_mode=EXCLUSIVE")
        con.execute("BEGIN EXCLUSIVE")
        con.execute("COMMIT")
    except apsw.BusyError:
        raise BackupRejected(f"{live} is open (by this or another process); close every hlmem using it first: "
                             "restore replaces the store offline", reason="in-use") from None
    except apsw.Error:
        pass  # not a database: the live-store read reports it
    finally:
        con.close()


def _swap(tmp: Path, live: Path) -> None:
    """Put ``tmp`` in place of ``live`` with one rename, after dropping the live store's stale
    ``-wal``/``-shm`` (a WAL left beside the new file would be replayed into it)."""
    if live.exists():
        _ensure_not_in_use(live)
        wal = Path(f"{live}-wal")
        if wal.exists() and wal.stat().st_size > 0:
            raise BackupRejected(f"{wal} still holds writes: the live store is in use", reason="in-use")
    for suffix in ("-wal", "-shm"):
        Path(f"{live}{suffix}").unlink(missing_ok=True)
    fsync(tmp)
    os.replace(tmp, live)
    fsync_dir(live.parent)
