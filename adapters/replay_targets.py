"""Where a replay rebuilds a store, whichever store it reads: a database URL, else a SQLite file.

``hlmem replay --into postgresql://…`` rebuilds a PostgreSQL store from any store's log (SQLite's
included); ``hlmem --db postgresql://… replay --into new.db`` goes back. Every backend's
``replay_target`` is this choice, so neither store's package imports the other's.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["replay_target"]

_URL_SCHEMES = ("postgresql://", "postgres://")


@contextmanager
def replay_target(into: str | os.PathLike[str] | None = None) -> Iterator[Any]:
    """A fresh store for a replay, closed on exit: PostgreSQL for a URL, else a new SQLite file
    (``into``, or a temporary one).

    :raises ValidationError: the target exists (a file) or already holds events (a database).
    """
    # Each store is imported only when chosen: SQLite replays work without psycopg, PostgreSQL's
    # without touching apsw's files.
    if into is not None and str(into).startswith(_URL_SCHEMES):
        from hlmem.adapters.postgres.replay_target import replay_target as chosen
    else:
        from hlmem.adapters.sqlite.replay_target import replay_target as chosen
    with chosen(into) as target:
        yield target
