"""Temporary files of backups, restores and replays: held while in use, found and removed once stale.

A backup writes ``.NAME.backup-XXXXXXXX.tmp`` beside its target, a restore
``.NAME.restore-XXXXXXXX.tmp`` beside the store, ``replay --into NAME`` builds
``.NAME.rebuild-XXXXXXXX.tmp`` beside the store it will name, and SQLite may put a ``-journal``
(``-wal``, ``-shm``) beside any of them. A process killed mid-copy (SIGKILL, a power cut) leaves
them, full size — each a copy of the store's text, which a later ``forget`` must not leave behind
(the store's forget removes the provably stale ones beside it: docs/forgetting.md).

Each temporary has a lock file, ``….tmp.lock``, made *before* the temporary and removed *after*
it, on which its process holds an exclusive ``flock`` the whole time: the kernel drops that lock
when the process ends, however it ends. So a lock file nobody holds proves its temporary stale,
and :func:`remove_stale` (run by every backup, restore and ``replay --into`` before it starts,
and by a forget once it commits) removes exactly those. ``flock`` is not SQLite's lock (those are POSIX record locks on the database files), so
the two never meet; the lock file is a file of its own so that closing it cannot drop SQLite's.

A temporary without a lock file was made by an hlmem from before this scheme (or is the
remnant of one): nothing proves it stale, so it is removed only when none of its files has
changed for :data:`UNPROVEN_AFTER`. ``hlmem doctor`` reports every leftover (:func:`find_leftovers`)
without touching it. Without ``fcntl`` (Windows) nothing is locked and nothing is removed.
"""

from __future__ import annotations

import os
import re
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from attrs import frozen

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

#: A temporary (or one of its parts) by name: ``.NAME.PURPOSE-TOKEN.tmp[PART]``.
PATTERN = re.compile(r"^\.(?P<name>.+)\.(?P<purpose>backup|restore|rebuild)-(?P<token>[0-9a-f]{8})\.tmp"
                     r"(?P<part>-journal|-wal|-shm|\.lock)?$")
#: What SQLite may leave beside a database file.
SQLITE_PARTS = ("", "-journal", "-wal", "-shm")
#: A temporary without a lock file is removed when none of its files changed for this long.
UNPROVEN_AFTER = 24 * 3600.0
#: A lock file without its temporary this young may be a backup that is just starting.
STARTING = 60.0

STALE = "stale"
IN_USE = "in-use"
UNPROVEN = "unproven"


@frozen
class Leftover:
    """A temporary of a backup, restore or replay that is still on disk, with its parts.

    ``state``: :data:`STALE` (its lock is free: no process holds it), :data:`IN_USE` (a running
    backup, restore or replay holds it), :data:`UNPROVEN` (no lock file and changed within
    :data:`UNPROVEN_AFTER`, or no ``flock`` on this system).
    """

    path: Path
    purpose: str
    files: tuple[Path, ...]
    size: int
    age_seconds: float
    state: str


def temp_beside(path: Path, purpose: str) -> Path:
    """A fresh temporary name in ``path``'s directory (so the final rename is atomic)."""
    return path.with_name(f".{path.name}.{purpose}-{secrets.token_hex(4)}.tmp")


def lock_of(tmp: Path) -> Path:
    """The lock file of a temporary."""
    return Path(f"{tmp}.lock")


def remove_files(path: Path) -> None:
    """Remove a temporary database and whatever SQLite left beside it."""
    for suffix in SQLITE_PARTS:
        Path(f"{path}{suffix}").unlink(missing_ok=True)


@contextmanager
def held_temp(beside: Path, purpose: str) -> Iterator[Path]:
    """A temporary name beside ``beside`` whose lock is held until the block ends; the temporary
    and SQLite's files beside it are removed then (a temporary renamed into place is gone already),
    the lock file last."""
    tmp = temp_beside(beside, purpose)
    fd = None
    if fcntl is not None:
        fd = os.open(lock_of(tmp), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield tmp
    finally:
        try:
            remove_files(tmp)
        finally:
            if fd is not None:
                lock_of(tmp).unlink(missing_ok=True)
                os.close(fd)


def _probe(lock: Path, exclusive: bool) -> tuple[str, int | None]:
    """:data:`IN_USE` when a live process holds ``lock``, :data:`STALE` when none does (with
    ``exclusive``, also an open fd on which this process now holds it: close it when done), or
    :data:`UNPROVEN` when it cannot be opened (another user's)."""
    try:
        fd = os.open(lock, os.O_RDONLY)
    except FileNotFoundError:
        return STALE, None  # removed meanwhile: its process finished
    except OSError:
        return UNPROVEN, None
    try:
        fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return IN_USE, None
    if exclusive:
        return STALE, fd
    os.close(fd)
    return STALE, None


def _groups(folder: Path) -> dict[Path, list[Path]]:
    groups: dict[Path, list[Path]] = {}
    try:
        names = os.listdir(folder)
    except OSError:
        return groups
    for name in names:
        found = PATTERN.match(name)
        if found:
            part = found["part"] or ""
            groups.setdefault(folder / name[:len(name) - len(part)], []).append(folder / name)
    return groups


def _describe(tmp: Path, files: list[Path], now: float, *, exclusive: bool) -> tuple[Leftover, int | None]:
    stats = {}
    for f in files:
        try:
            stats[f] = f.stat()
        except FileNotFoundError:
            continue
    size = sum(s.st_size for f, s in stats.items())
    newest = max((s.st_mtime for s in stats.values()), default=now)
    age = max(0.0, now - newest)
    purpose = PATTERN.match(tmp.name)["purpose"]
    lock = lock_of(tmp)
    fd = None
    if fcntl is None:
        state = UNPROVEN
    elif lock in stats:
        state, fd = _probe(lock, exclusive)
        if state == STALE and tmp not in stats and age < STARTING:
            state = IN_USE  # a lock file alone, just made: a backup that is starting
        if state != STALE and fd is not None:
            os.close(fd)
            fd = None
    else:
        state = STALE if age >= UNPROVEN_AFTER else UNPROVEN
    return Leftover(tmp, purpose, tuple(sorted(stats)), size, age, state), fd


def find_leftovers(folder: Path) -> list[Leftover]:
    """Every temporary of a backup, restore or replay in ``folder``, with its state; changes nothing."""
    now = time.time()
    return [_describe(tmp, files, now, exclusive=False)[0] for tmp, files in sorted(_groups(Path(folder)).items())]


def remove_stale(folder: Path) -> list[Leftover]:
    """Remove the stale temporaries in ``folder`` (their lock free, or unlocked and old); return them.

    Each is removed while this process holds its lock, the lock file last, so a process that
    meanwhile looks sees it in use, never half gone.
    """
    now = time.time()
    removed = []
    for tmp, files in sorted(_groups(Path(folder)).items()):
        leftover, fd = _describe(tmp, files, now, exclusive=True)
        if leftover.state != STALE:
            continue
        try:
            for f in leftover.files:
                if f != lock_of(tmp):
                    f.unlink(missing_ok=True)
            lock_of(tmp).unlink(missing_ok=True)
        except OSError:
            continue  # not ours to remove (permissions): the doctor goes on reporting it
        finally:
            if fd is not None:
                os.close(fd)
        removed.append(leftover)
    return removed


def stale_note(removed: list[Leftover]) -> str:
    """One line saying what :func:`remove_stale` removed."""
    size = sum(x.size for x in removed)
    names = ", ".join(x.path.name for x in removed[:3]) + (", …" if len(removed) > 3 else "")
    return (f"removed {len(removed)} stale temporar{'y' if len(removed) == 1 else 'ies'} of an interrupted backup, "
            f"restore or replay ({size / 2**20:.1f} MiB): {names}")
