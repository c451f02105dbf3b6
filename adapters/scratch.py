"""Scratch maps for long jobs (the ``ScratchMap`` port): in memory while small, on disk once large.

An import keeps the file-local ids of the lines it has read (``"id": "o1"`` → the event id it
will get); a file of millions of such lines would hold them all. :class:`SpillingMap` keeps the
first :data:`IN_MEMORY` keys in a ``dict`` and, past that, moves them into a SQLite table in a
private temporary file (``TMPDIR``), so memory stays bounded whatever the file's size. Lookups
check the ``dict`` first; the file is removed by ``close()`` (and at exit, by the OS's temporary
folder otherwise).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import apsw

#: Keys kept in memory before the map moves them to its file.
IN_MEMORY = 50_000


class SpillingMap:
    """A ``ScratchMap``: a ``dict`` up to ``limit`` keys, then a SQLite file for all of them."""

    def __init__(self, limit: int = IN_MEMORY) -> None:
        self._limit = limit
        self._memory: dict[str, str] = {}
        self._folder: Path | None = None
        self._con: apsw.Connection | None = None
        self._on_disk = 0

    def _spill(self) -> None:
        if self._con is None:
            self._folder = Path(tempfile.mkdtemp(prefix="hlmem-scratch-"))
            self._con = apsw.Connection(str(self._folder / "scratch.db"))
            for statement in ("PRAGMA journal_mode=OFF", "PRAGMA synchronous=OFF",
                              "CREATE TABLE m (k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID"):
                self._con.execute(statement).fetchall()
        with self._con:
            self._con.executemany("INSERT OR REPLACE INTO m (k, v) VALUES (?, ?)", self._memory.items())
        self._on_disk = self._con.execute("SELECT count(*) FROM m").fetchone()[0]
        self._memory.clear()

    def _disk(self, key: str) -> str | None:
        if self._con is None:
            return None
        row = self._con.execute("SELECT v FROM m WHERE k = ?", (key,)).fetchone()
        return row[0] if row else None

    def __setitem__(self, key: str, value: str) -> None:
        self._memory[key] = value
        if len(self._memory) >= self._limit:
            self._spill()

    def __getitem__(self, key: str) -> str:
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return found

    def get(self, key: str, default: str | None = None) -> str | None:
        if key in self._memory:
            return self._memory[key]
        found = self._disk(key)
        return default if found is None else found

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __len__(self) -> int:
        return len(self._memory) + self._on_disk - sum(1 for k in self._memory if self._disk(k) is not None)

    def __iter__(self) -> Iterator[str]:
        seen = set(self._memory)
        yield from self._memory
        if self._con is not None:
            for (key,) in self._con.execute("SELECT k FROM m ORDER BY k"):
                if key not in seen:
                    yield key

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None
        self._memory.clear()
        self._on_disk = 0

    def __del__(self) -> None:  # a job that raised still removes its file
        try:
            self.close()
        except Exception:  # noqa: BLE001 - at interpreter exit the modules may be gone
            pass
