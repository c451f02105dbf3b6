"""The whole Storage port: every role in one object, as the services use it together (ADR 0028).

Each role has its own suite (tests/contract/test_*_contract.py); this one checks the composition:
that the store is every service's storage (the intersections of application/ports/needs.py, the
derived and experience roles included: none is optional, ADR 0076) and that its class passes the
check a storage plugin meets when it is loaded.
"""

from __future__ import annotations

import pytest

from hlmem.adapters.clock import FixedClock
from hlmem.application.ports import (
    ConflictStore,
    DerivedStore,
    ExperienceForgetStore,
    ExperienceStore,
    ForgetStore,
    HasExperience,
    MaintenanceStore,
    RecallStore,
    RelationStore,
    StalenessStore,
    Storage,
    WriteStore,
)
from hlmem.application.recall import RecallService
from hlmem.application.writes import WriteService
from hlmem.domain.commands import AssertClaim
from hlmem.plugins.contract import missing_members

from support.stores import DAY, T0, InMemoryStore, SQLiteStore, StoreContract
from support.stores import PostgresStore


class StorageContract(StoreContract):
    """Cases every adapter, as a whole Storage, must pass."""

    def test_satisfies_the_protocol(self, store: Storage) -> None:
        assert isinstance(store, Storage)

    @pytest.mark.parametrize("need", [WriteStore, ConflictStore, ForgetStore, MaintenanceStore, RecallStore,
                                      DerivedStore, StalenessStore, ExperienceStore, ExperienceForgetStore,
                                      HasExperience, RelationStore])
    def test_is_every_services_storage(self, store: Storage, need: type) -> None:
        assert isinstance(store, need), need.__name__

    def test_its_class_passes_the_storage_plugin_check(self, store: Storage) -> None:
        """What the plugin registry checks before any instance exists (roles set in ``__init__``
        must be annotated on the class): a gap here is a plugin refused at start-up."""
        assert missing_members(type(store), "storage") == []

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
