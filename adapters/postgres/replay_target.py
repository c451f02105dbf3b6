"""Where a replay rebuilds a store: a PostgreSQL database named by a ``postgresql://`` URL, else SQLite's target.

``hlmem replay --into postgresql://…`` rebuilds a PostgreSQL store from any store's log (SQLite's
included); ``hlmem --db postgresql://… replay --into new.db`` goes back. The database must exist
(``createdb``; hlmem makes its tables) and hold no events: a replay builds a fresh store.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hlmem.adapters.sqlite.replay_target import replay_target as sqlite_replay_target
from hlmem.domain.errors import ValidationError


@contextmanager
def replay_target(into: str | os.PathLike[str] | None = None) -> Iterator[Any]:
    """A fresh store for a replay, closed on exit: PostgreSQL for a URL, else a new SQLite file.

    :raises ValidationError: the PostgreSQL database already holds events.
    """
    # psycopg is imported only for a PostgreSQL target: SQLite replays work without the extra.
    if into is None or not str(into).startswith(("postgresql://", "postgres://")):
        with sqlite_replay_target(into) as target:
            yield target
        return
    from hlmem.adapters.postgres.db import redacted_url
    from hlmem.adapters.postgres.store import PostgresStorage

    target = PostgresStorage(str(into))
    try:
        if target.last_position():
            raise ValidationError(f"{redacted_url(str(into))} already holds events; replay builds a fresh store "
                                  "(create an empty database)", field="into")
        yield target
    finally:
        target.close()
