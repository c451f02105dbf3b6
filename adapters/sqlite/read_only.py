"""A store that can be read but not written here: why, how to open it anyway, what to tell the user.

A store in WAL mode needs its ``-wal`` and ``-shm`` files beside it, and SQLite makes them on
open. On a read-only mount, or in a folder this OS user may not write, it cannot, and every
command used to fail with SQLite's "unable to open database file" or "attempt to write a
readonly database" (issue 33 item 8). Here:

- :func:`read_only_reason` says, in words, why a path cannot be written (a read-only file
  system, the file, its folder), or None;
- :func:`open_read_only` opens such a store for reading as SQLite allows it: with its ``-shm``
  and ``-wal`` when both exist, else — when no writes wait in a ``-wal`` — as an immutable file
  (read as it is; SQLite then takes no locks, so a writer elsewhere at that moment may show a
  half-written state: run the command again); a ``-wal`` with writes but no ``-shm`` cannot be
  read without writing, and is refused saying so;
- :func:`refusal` is the one message a write gets (``StoreReadOnly``), with what to do.
"""

from __future__ import annotations

import getpass
import os
from pathlib import Path
from urllib.parse import quote

import apsw

from hlmem.domain.errors import StoreReadOnly

#: What to do about a read-only store (the end of every refusal).
ADVICE = ("Make the file and its folder writable for this user (chmod/chown, or mount it read-write), or work "
          "on a copy: `hlmem --db PATH backup COPY.db`, then `--db COPY.db`")


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # a uid with no name (a container)
        return f"uid {os.getuid()}" if hasattr(os, "getuid") else "this user"


def read_only_reason(path: str | os.PathLike[str]) -> str | None:
    """Why this process cannot write the store at ``path`` (or make it, or its ``-wal``/``-shm``
    beside it), in words (every reason that holds); None when it can."""
    target = Path(path)
    folder = target.parent
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return f"it is on a read-only file system ({folder})"
    except (OSError, AttributeError):
        pass
    reasons = []
    if target.exists() and not os.access(target, os.W_OK):
        reasons.append(f"the file is not writable by {_user()}")
    if folder.exists() and not os.access(folder, os.W_OK | os.X_OK):
        reasons.append(f"its folder {folder} is not writable by {_user()}, so SQLite cannot make the store's "
                       "-wal and -shm files there")
    return "; ".join(reasons) or None


def refusal(path: str | os.PathLike[str], reason: str, doing: str | None = None) -> StoreReadOnly:
    """The error a write to a read-only store raises (``doing``: what needed to write)."""
    writing = f"writing does not ({doing})" if doing else "writing does not"
    return StoreReadOnly(f"the store {path} is read-only here: {reason}. Reading works; {writing}. {ADVICE}",
                         path=str(path))


def open_read_only(path: str | os.PathLike[str], reason: str) -> apsw.Connection:
    """A read-only connection to the store at ``path``, which this process cannot write.

    :raises StoreReadOnly: writes wait in its ``-wal`` and there is no ``-shm`` to read them with.
    """
    target = Path(path)
    wal, shm = Path(f"{target}-wal"), Path(f"{target}-shm")
    if wal.exists() and shm.exists():
        return apsw.Connection(str(target), flags=apsw.SQLITE_OPEN_READONLY)
    if not wal.exists() or wal.stat().st_size == 0:
        # No -wal, or an empty one: the file holds everything. Read it as it is, without the
        # -shm SQLite cannot make here.
        return apsw.Connection(f"file:{quote(str(target.resolve()))}?immutable=1",
                               flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    raise StoreReadOnly(f"the store {target} is read-only here ({reason}) and holds writes not yet folded into it "
                        f"({wal}) that SQLite cannot read without making {shm.name}: open it once where it can be "
                        "written (any hlmem command folds them in), or copy the store with its -wal to a writable "
                        "place", path=str(target))
