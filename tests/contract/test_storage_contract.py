"""The whole Storage port: every role in one object, as the services use it together (ADR 0028).

Each role has its own suite (tests/contract/test_*_contract.py); this one checks the composition.
"""

from __future__ import annotations

from hlmem.adapters.clock import FixedClock
from hlmem.application.ports import Storage
from hlmem.application.recall import RecallService
from hlmem.application.writes import WriteService
from hlmem.domain.commands import AssertClaim

from support.stores import DAY, T0, InMemoryStore, SQLiteStore, StoreContract
from support.stores import PostgresStore


class StorageContract(StoreContract):
    """Cases every adapter, as a whole Storage, must pass."""

    def test_satisfies_the_protocol(self, store: Storage) -> None:
        assert isinstance(store, Storage)

    def test_recall_end_to_end(self, store: Storage, writes: WriteService, clock: FixedClock) -> None:
        a = writes.remember(AssertClaim(subject="user", predicate="theme", value="dark")).id
        clock.advance(DAY)
        b = writes.remember(AssertClaim(subject="user", predicate="theme", value="light")).id
        recall = RecallService(store, clock)
        assert [i.id for i in recall.recall("theme").items] == [b]
        assert [i.id for i in recall.recall("theme", valid_at=T0, known_at=T0).items] == [a]


class TestInMemoryStorage(InMemoryStore, StorageContract):
    pass


class TestSQLiteStorage(SQLiteStore, StorageContract):
    pass


# --- PostgreSQL (adapters/postgres/, issue 18): the same suite on a fresh database per test ----------


class TestPostgresStorage(PostgresStore, StorageContract):
    pass
