"""SQLite errors in the hlmem tree: a damaged file, a full disk, and the rest (one translation).

Every SQLite adapter (the store, the connection factory, backup, restore) turns APSW's errors
into hlmem's through :func:`storage_error`, so a corrupt page reads "corrupt" and a full disk
"no space left on <path>" wherever it is met — not "database disk image is malformed", "disk
I/O error" or, from the backup API, "not an error".
"""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import apsw

from hlmem.domain.errors import HlmemError, StorageCorrupt, StorageError, StorageFull

#: What a user can do about a damaged store (docs/backup.md).
CORRUPT_ADVICE = "restore a backup (hlmem restore PATH; docs/backup.md)"


def storage_error(exc: BaseException, what: str, *, path: str | os.PathLike[str] | None = None,
                  con: apsw.Connection | None = None) -> HlmemError:
    """The hlmem error for ``exc``, met while doing ``what`` on the file at ``path``.

    - ``SQLITE_CORRUPT``, ``SQLITE_NOTADB`` and text that is not UTF-8 (SQLite stores what it
      was given; hlmem only ever gives it valid UTF-8) are :class:`StorageCorrupt`;
    - ``SQLITE_FULL``, and an I/O error whose errno (``con.system_errno``) is ``ENOSPC``, are
      :class:`StorageFull` ("no space left on <path>");
    - ``SQLITE_READONLY`` is :class:`StoreReadOnly`, saying why the store is read-only here and
      what to do (:mod:`hlmem.adapters.sqlite.read_only`);
    - any other APSW error is a :class:`StorageError` with SQLite's message.

    :param con: the connection the error came from, for its errno (None: the free space of the
        file system is asked instead).
    """
    if isinstance(exc, HlmemError):
        return exc
    where = str(path) if path is not None else (con.filename if con is not None and con.filename else None)
    shown = where or "the store"
    if isinstance(exc, (apsw.CorruptError, apsw.NotADBError, UnicodeDecodeError)):
        detail = f"text that is not UTF-8 ({exc.reason})" if isinstance(exc, UnicodeDecodeError) else str(exc)
        return StorageCorrupt(f"{shown} is corrupt ({what}: {detail}); {CORRUPT_ADVICE}", path=where)
    if isinstance(exc, apsw.ReadOnlyError):
        from hlmem.adapters.sqlite.read_only import read_only_reason, refusal

        reason = (read_only_reason(where) if where and where != ":memory:" else None) or "SQLite opened it read-only"
        return refusal(shown, reason, what)
    if isinstance(exc, apsw.FullError) or (isinstance(exc, apsw.IOError) and _out_of_space(con, where)):
        return StorageFull(f"no space left on {shown} ({what}); free space on its file system and try again",
                           path=where)
    return StorageError(f"{what}: {exc}")


def _out_of_space(con: apsw.Connection | None, where: str | None) -> bool:
    """Whether an I/O error was the file system running out of space."""
    if con is not None:
        try:
            return con.system_errno == errno.ENOSPC
        except apsw.Error:
            pass
    if where is None:
        return False
    try:
        # No connection to ask (it could not be made): a file system with no byte free is the cause.
        return shutil.disk_usage(Path(where).parent).free == 0
    except OSError:
        return False


def damage_or_full(exc: BaseException, path: str | os.PathLike[str] | None = None) -> HlmemError | None:
    """:class:`StorageCorrupt` or :class:`StorageFull` for an APSW error that escaped an adapter
    untranslated (the CLI's last line of defence asks this before calling it an internal error);
    None for anything else (a UnicodeDecodeError outside SQLite is not damage to the store)."""
    if not isinstance(exc, apsw.Error):
        return None
    error = storage_error(exc, "reading or writing the store", path=path)
    return error if isinstance(error, (StorageCorrupt, StorageFull)) else None
