"""Where a replay rebuilds a PostgreSQL store: the empty database a ``postgresql://`` URL names.

The database must exist (``createdb``; hlmem makes its tables) and hold no events: a replay builds
a fresh store. Which store a replay target is (a URL or a file) is chosen in adapters/replay_targets.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from hlmem.adapters.postgres.db import redacted_url
from hlmem.adapters.postgres.store import PostgresStorage
from hlmem.domain.errors import ValidationError


@contextmanager
def replay_target(into: str) -> Iterator[PostgresStorage]:
    """A fresh PostgreSQL store for a replay, closed on exit.

    :raises ValidationError: the database already holds events.
    """
    target = PostgresStorage(str(into))
    try:
        if target.last_position():
            raise ValidationError(f"{redacted_url(str(into))} already holds events; replay builds a fresh store "
                                  "(create an empty database)", field="into")
        yield target
    finally:
        target.close()
