"""What every storage contract suite shares (tests/contract/, ADR 0028).

A role's suite (``EventLogContract``, ``ClaimsContract``, …) derives from :class:`StoreContract`,
which gives it the ``store`` fixture (a fresh store from ``make_store``, closed after the test)
and the write services its cases set data up with. Each adapter is one mix-in that supplies
``make_store`` (and ``make_queue``, ``memory_path`` for suites that need them), and each suite is
subclassed once per adapter: ``class TestSQLiteClaims(SQLiteStore, ClaimsContract)``. A new
adapter (PostgreSQL) adds a mix-in and passes the suites one role at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from hlmem.adapters.clock import FixedClock
from hlmem.adapters.embedders.hashing import HashEmbedder
from hlmem.adapters.ids import SequentialIds
from hlmem.adapters.inmemory.store import InMemoryStorage
from hlmem.adapters.inmemory.jobs import InMemoryJobQueue
from hlmem.adapters.sqlite.jobs import SQLiteJobQueue
from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.application.ports import JobQueue, Storage
from hlmem.application.writes import WriteService
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

UTC = timezone.utc
T0 = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
DAY = timedelta(days=1)


class StoreContract:
    """Base of every storage role's suite. Subclasses mix in an adapter that supplies ``make_store``."""

    def make_store(self, tmp_path: Path) -> Storage:
        raise NotImplementedError

    def make_queue(self, store: Any, new_id: Callable[[str], str]) -> JobQueue:
        raise NotImplementedError

    def memory_path(self, tmp_path: Path) -> str:
        """Where a ``Memory`` facade on this adapter keeps its store."""
        raise NotImplementedError

    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[Any]:
        store = self.make_store(tmp_path)
        yield store
        store.close()

    @pytest.fixture
    def clock(self) -> FixedClock:
        return FixedClock(T0)

    @pytest.fixture
    def writes(self, store: Storage, clock: FixedClock) -> WriteService:
        return WriteService(store, clock, SequentialIds(), DEFAULT_REGISTRY)

    @pytest.fixture
    def vector_writes(self, store: Storage, clock: FixedClock) -> WriteService:
        return WriteService(store, clock, SequentialIds(), DEFAULT_REGISTRY, HashEmbedder(dim=64))


class InMemoryStore:
    """The in-memory adapter (``adapters/inmemory/``)."""

    def make_store(self, tmp_path: Path) -> InMemoryStorage:
        return InMemoryStorage()

    def make_queue(self, store: Any, new_id: Callable[[str], str]) -> JobQueue:
        return InMemoryJobQueue(store, new_id)

    def memory_path(self, tmp_path: Path) -> str:
        return ":memory:"


class SQLiteStore:
    """The SQLite adapter (``adapters/sqlite/``). ``synchronous`` is the store's durability
    setting: suites that reopen nothing after a crash may turn it ``OFF`` for speed."""

    synchronous = "FULL"

    def make_store(self, tmp_path: Path) -> SQLiteStorage:
        tmp_path.mkdir(parents=True, exist_ok=True)
        return SQLiteStorage(tmp_path / "store.db", synchronous=self.synchronous)

    def make_queue(self, store: Any, new_id: Callable[[str], str]) -> JobQueue:
        return SQLiteJobQueue(store.db, new_id)

    def memory_path(self, tmp_path: Path) -> str:
        return str(tmp_path / "m.db")


class PostgresStore:
    """The PostgreSQL adapter (``adapters/postgres/``) on a fresh database per test, cloned from the
    session server's template (tests/support/postgres.py; skipped only without psycopg and a server).
    Another ``tmp_path`` (a second store in one test) gets a database of its own, as another file would."""

    @pytest.fixture(autouse=True)
    def _postgres_database(self, postgres_url: str, postgres_admin_url: str, tmp_path: Path) -> Iterator[None]:
        from support.postgres import drop_database, new_database

        self.postgres_url = postgres_url
        self._databases = {str(tmp_path): postgres_url}
        self._new_database = lambda: new_database(postgres_admin_url)
        made: list[str] = []
        self._made = made
        yield
        for name in made:
            drop_database(postgres_admin_url, name)

    def database_for(self, tmp_path: Path) -> str:
        key = str(tmp_path)
        if key not in self._databases:
            url, name = self._new_database()
            self._made.append(name)
            self._databases[key] = url
        return self._databases[key]

    def make_store(self, tmp_path: Path) -> Any:
        from hlmem.adapters.postgres.store import PostgresStorage

        return PostgresStorage(self.database_for(tmp_path))

    def make_queue(self, store: Any, new_id: Callable[[str], str]) -> JobQueue:
        from hlmem.adapters.postgres.jobs import PostgresJobQueue

        return PostgresJobQueue(store.db, new_id)

    def memory_path(self, tmp_path: Path) -> str:
        return self.database_for(tmp_path)
