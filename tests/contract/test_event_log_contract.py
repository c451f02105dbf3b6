"""The EventLog and StoreIdentity roles' contract, written once and run against every adapter (ADR 0028).

A case that one adapter fails is re-declared in that adapter's class as a strict xfail naming the
bug, so the suite stays green while the bug is open and fails once it is fixed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from attrs import evolve

from hlmem.application.ports import EventLog, IndexEntry, Storage, StoreIdentity
from hlmem.application.writes import WriteService
from hlmem.domain.commands import AssertClaim, RecordObservation
from hlmem.domain.errors import ConcurrencyConflict, HlmemError
from hlmem.domain.events import ClaimRetracted

from support.store_events import claim_event, obs_event, snapshot
from support.stores import T0, InMemoryStore, SQLiteStore, StoreContract
from support.stores import PostgresStore


class EventLogContract(StoreContract):
    """Cases every adapter's event log and store identity must pass."""

    def test_satisfies_the_roles(self, store: Storage) -> None:
        assert isinstance(store, EventLog) and isinstance(store, StoreIdentity)

    def test_store_id_is_made_once_and_differs_between_stores(self, store: Storage, tmp_path: Path) -> None:
        first = store.store_id()
        assert first and store.store_id() == first
        store.append([obs_event(1)])
        assert store.store_id() == first  # writes never change it
        other = self.make_store(tmp_path / "other")
        try:
            assert other.store_id() != first
        finally:
            other.close()

    def test_empty_store(self, store: Storage) -> None:
        assert store.last_position() == 0
        assert list(store.read()) == []
        assert store.stream_version("cl_nothing") == 0
        assert store.counts()["events"] == 0
        assert store.vector_model() is None

    def test_append_and_read_keep_order_and_positions(self, store: Storage) -> None:
        batch = [obs_event(1), obs_event(2), obs_event(3, stream="ev_raw1", version=2)]
        assert store.append(batch[:2]) == 2
        assert store.append(batch[2:]) == 3
        stored = list(store.read())
        assert [s.position for s in stored] == [1, 2, 3]
        assert [s.event for s in stored] == batch
        assert store.last_position() == 3
        assert store.stream_version("ev_raw1") == 2
        assert store.stream_version("ev_raw2") == 1

    def test_read_after_and_limit(self, store: Storage) -> None:
        store.append([obs_event(i) for i in range(1, 8)])
        assert [s.position for s in store.read(after=2, limit=3)] == [3, 4, 5]
        assert [s.position for s in store.read(after=5)] == [6, 7]
        assert list(store.read(after=7)) == []
        assert list(store.read(limit=0)) == []

    def test_empty_append_writes_nothing(self, store: Storage) -> None:
        store.append([obs_event(1)])
        store.append([])
        assert store.last_position() == 1

    @pytest.mark.parametrize("version", [0, 2, 5])
    def test_first_event_of_a_stream_must_be_version_1(self, store: Storage, version: int) -> None:
        with pytest.raises(ConcurrencyConflict):
            store.append([obs_event(1, version=version)])
        assert store.last_position() == 0

    def test_taken_version_conflicts(self, store: Storage) -> None:
        store.append([obs_event(1)])
        with pytest.raises(ConcurrencyConflict):
            store.append([obs_event(2, stream="ev_raw1", version=1)])
        with pytest.raises(ConcurrencyConflict):
            store.append([obs_event(3, stream="ev_raw1", version=3)])  # a gap
        assert [s.event.event_id for s in store.read()] == ["lg_raw1"]

    def test_conflicting_batch_is_all_or_nothing(self, store: Storage, writes: WriteService) -> None:
        writes.record(RecordObservation(text="a dark note"))
        writes.remember(AssertClaim(subject="user", predicate="theme", value="dark"))
        before = snapshot(store)
        claim_id = next(iter(before["claims"]))
        batch = [obs_event(10, text="dark theme note"), claim_event(11, value="深色"),
                 ClaimRetracted(event_id="lg_x", stream_id=claim_id, version=1, recorded_at=T0, namespace="default")]
        with pytest.raises(ConcurrencyConflict):
            store.append(batch, {"ev_raw10": IndexEntry("dark theme note"), "cl_raw11": IndexEntry("深色")})
        assert snapshot(store) == before
        store.append(batch[:2])  # the store is still usable, and those ids were never taken
        assert store.last_position() == before["last"] + 2

    def test_duplicate_event_id_is_refused(self, store: Storage) -> None:
        store.append([obs_event(1), obs_event(2)])
        with pytest.raises(ConcurrencyConflict):
            store.append([evolve(obs_event(3, stream="ev_other"), event_id="lg_raw1")])
        assert store.last_position() == 2

    def test_failed_append_inside_a_transaction_leaves_no_partial_batch(self, store: Storage) -> None:
        store.append([obs_event(1)])
        with store.transaction():
            with pytest.raises(ConcurrencyConflict):
                store.append([obs_event(2), obs_event(3), obs_event(4, stream="ev_raw1", version=1)])
            # The caller handled the conflict; the batch must not have been half-written.
            assert store.last_position() == 1
        assert store.last_position() == 1
        assert store.get_observations(["ev_raw2", "ev_raw3"]) == {}

    def test_unencodable_text_is_stored_faithfully_or_refused_cleanly(self, store: Storage) -> None:
        event = obs_event(1, text="lone \ud800 surrogate")
        try:
            store.append([event])
        except HlmemError:
            assert store.last_position() == 0
        else:
            assert [s.event for s in store.read()] == [event]


class TestInMemoryEventLog(InMemoryStore, EventLogContract):
    pass


class TestSQLiteEventLog(SQLiteStore, EventLogContract):
    pass


# --- PostgreSQL (adapters/postgres/, issue 18): the same suite on a fresh database per test ----------


class TestPostgresEventLog(PostgresStore, EventLogContract):
    pass
