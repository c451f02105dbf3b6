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
