"""Looking at a store file without changing it: a read-only connection, a private copy, its bytes.

``hlmem doctor`` and ``hlmem ops report`` never open the store the way commands do (that
migrates it and may finish a pending erasure, ADR 0024): they read it on a read-only connection,
and whatever must write (SQLite's full-text check, a replay) runs on a copy made with SQLite's
online backup API in a temporary directory, which is removed afterwards.
"""

from __future__ import annotations

import os
from pathlib import Path

import apsw

from hlmem.adapters.sqlite.connection import open_connection

#: The files one store is made of: the database, its write-ahead log and the WAL index.
SUFFIXES = ("", "-wal", "-shm")


def open_readonly(path: str | os.PathLike[str]) -> apsw.Connection:
    """A read-only connection to the existing store at ``path`` (the caller checks it exists).

    :raises StorageError: it is not a database, or cannot be opened.
    """
    return open_connection(path, readonly=True)


def copy_to(con: apsw.Connection, dest: Path) -> Path:
    """Copy the database behind ``con`` (one consistent snapshot, WAL included) to the new file
    ``dest`` and return it. Only ``dest`` is written."""
    target = apsw.Connection(str(dest))
    try:
        with target.backup("main", con, "main") as job:
            job.step(-1)  # all pages in one step: the source is held for one read, then let go
    finally:
        target.close()
    return dest


def file_bytes(path: str | os.PathLike[str]) -> dict[str, int]:
    """Bytes of the store's files: ``db``, ``wal``, ``shm`` (0 for a file that does not exist)."""
    out = {}
    for suffix, key in zip(SUFFIXES, ("db", "wal", "shm")):
        try:
            out[key] = os.stat(f"{path}{suffix}").st_size
        except FileNotFoundError:
            out[key] = 0
    return out


def dir_bytes(path: str | os.PathLike[str]) -> tuple[int, int]:
    """(files, bytes) of the regular files directly in ``path`` (a backups directory)."""
    files = total = 0
    for entry in os.scandir(path):
        if entry.is_file(follow_symlinks=False):
            files += 1
            total += entry.stat(follow_symlinks=False).st_size
    return files, total


def existing_dir(path: str | os.PathLike[str]) -> Path:
    """The nearest existing directory at or above ``path``'s folder (where the store is, or would be)."""
    here = Path(path).expanduser().absolute().parent
    while not here.exists() and here != here.parent:
        here = here.parent
    return here
