"""The Transactional role's contract (``transaction()``: atomic, re-entrant, rolled back on error), once per adapter."""

from __future__ import annotations

import pytest

from hlmem.application.ports import Storage, Transactional
from hlmem.application.writes import WriteService
from hlmem.domain.commands import AssertClaim, RecordObservation
from hlmem.domain.errors import ConcurrencyConflict

from support.store_events import obs_event, snapshot
from support.stores import InMemoryStore, SQLiteStore, StoreContract
from support.stores import PostgresStore


class TransactionContract(StoreContract):
    """Cases every adapter's write transaction must pass."""

    def test_satisfies_the_role(self, store: Storage) -> None:
        assert isinstance(store, Transactional)

    def test_transaction_rolls_back_on_exception(self, store: Storage, writes: WriteService) -> None:
        writes.remember(AssertClaim(subject="user", predicate="theme", value="dark"))
        before = snapshot(store)
        with pytest.raises(RuntimeError), store.transaction():
            writes.record(RecordObservation(text="dark theme note"))
            writes.remember(AssertClaim(subject="user", predicate="theme", value="light"))
            assert store.last_position() > before["last"]  # reads inside see their own writes
            raise RuntimeError("boom")
        assert snapshot(store) == before
        writes.remember(AssertClaim(subject="user", predicate="theme", value="light"))  # still usable
        assert store.counts()["claims"] == 2

    def test_nested_transactions_join_the_outer_one(self, store: Storage) -> None:
        with pytest.raises(KeyError), store.transaction():
            with store.transaction():
                store.append([obs_event(1)])
            assert store.last_position() == 1
            raise KeyError("outer fails after the inner block finished")
        assert store.last_position() == 0
        assert store.get_observations(["ev_raw1"]) == {}

    def test_write_batch_is_atomic(self, store: Storage, writes: WriteService) -> None:
        before = snapshot(store)
        with pytest.raises(ConcurrencyConflict):
            writes.write_batch([(RecordObservation(text="one"), None),
                                (RecordObservation(text="two", event_id="ev_dup"), None),
                                (RecordObservation(text="three", event_id="ev_dup"), None)])
        assert snapshot(store) == before

    def test_rollback_undoes_bind_vector_model(self, store: Storage) -> None:
        with pytest.raises(RuntimeError), store.transaction():
            store.bind_vector_model("model-a", 4)
            raise RuntimeError("boom")
        assert store.vector_model() is None
        store.bind_vector_model("model-b", 8)  # the rolled-back binding does not block another model
        assert store.vector_model() == ("model-b", 8)


class TestInMemoryTransaction(InMemoryStore, TransactionContract):
    pass


class TestSQLiteTransaction(SQLiteStore, TransactionContract):
    pass


# --- PostgreSQL (adapters/postgres/, issue 18): the same suite on a fresh database per test ----------


class TestPostgresTransaction(PostgresStore, TransactionContract):
    pass
