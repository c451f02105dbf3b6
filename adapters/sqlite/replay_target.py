"""Where a replay rebuilds a store: a new file the caller names, or a temporary one."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.domain.errors import ValidationError


@contextmanager
def replay_target(into: str | os.PathLike[str] | None = None) -> Iterator[SQLiteStorage]:
    """A fresh SQLite store for a replay, closed on exit.

    :param into: where to keep the rebuilt store (a new file, written with ``synchronous=NORMAL``);
        None: a temporary file (``synchronous=OFF``: it is thrown away), removed on exit.
    :raises ValidationError: ``into`` exists (a replay builds a fresh store).
    """
    with tempfile.TemporaryDirectory(prefix="hlmem-replay-") as tmp:
        path = Path(into) if into else Path(tmp) / "rebuilt.db"
        if path.exists():
            raise ValidationError(f"{path} exists; replay builds a fresh store", field="into")
        target = SQLiteStorage(path, synchronous="OFF" if not into else "NORMAL")
        try:
            yield target
        finally:
            target.close()
