"""``SideConnection``: a connection of its own to the store's database, opened at first use (ADR 0074).

The budget ledger and the LLM-call ledger commit on their own, outside any store transaction
(a provider call is accounted even when the work it served rolls back), so they do not share the
store's connection; a process that never calls a provider never opens one.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from hlmem.adapters.postgres.db import connect
from hlmem.domain.errors import StorageError

if TYPE_CHECKING:
    import psycopg

__all__ = ["SideConnection"]


class SideConnection:
    """An autocommit connection used by one thread at a time; gone for good after :meth:`close`."""

    def __init__(self, url: str, what: str) -> None:
        self._url = url
        self._what = what
        self._con: psycopg.Connection | None = None
        self._closed = False
        self._lock = threading.RLock()

    @contextmanager
    def use(self) -> Iterator[psycopg.Connection]:
        """The connection under the lock, opened now if it was not yet.

        :raises StorageError: after :meth:`close`, or when the database cannot be reached.
        """
        with self._lock:
            if self._closed:
                raise StorageError(f"{self._what} is closed")
            if self._con is None:
                self._con = connect(self._url)
            yield self._con

    @property
    def opened(self) -> bool:
        return self._con is not None

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._con is not None:
                self._con.close()
                self._con = None
