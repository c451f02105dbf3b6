"""The WorkerHeartbeats port's contract, written once and run against both adapters (ADR 0035)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hlmem.adapters.inmemory.heartbeat import InMemoryHeartbeats
from hlmem.adapters.sqlite.heartbeat import SQLiteHeartbeats
from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.application.ports import WORKER_STATES, WorkerBeat, WorkerHeartbeats
from hlmem.domain.errors import ValidationError

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)


def beat(owner: str = "h:1:a", *, at: datetime = T0, state: str = "running", jobs: int = 0,
         error: str | None = None) -> WorkerBeat:
    return WorkerBeat(owner=owner, pid=1, host="h", started_at=T0, last_beat=at, state=state, jobs_done=jobs,
                      last_error=error)


class HeartbeatContract:
    """The cases every adapter must pass; subclasses supply ``make`` (a fresh, empty port)."""

    def make(self, tmp_path: Path) -> tuple[WorkerHeartbeats, Any]:
        raise NotImplementedError

    @pytest.fixture
    def port(self, tmp_path: Path) -> Iterator[WorkerHeartbeats]:
        made, closer = self.make(tmp_path)
        yield made
        if closer is not None:
            closer()

    def test_satisfies_the_protocol(self, port: WorkerHeartbeats) -> None:
        assert isinstance(port, WorkerHeartbeats)

    def test_empty_at_first(self, port: WorkerHeartbeats) -> None:
        assert port.beats() == []

    def test_a_beat_round_trips(self, port: WorkerHeartbeats) -> None:
        b = beat(jobs=7, error="ProviderTimeout: slow")
        port.beat(b)
        assert port.beats() == [b]

    def test_a_new_beat_replaces_the_owner_row(self, port: WorkerHeartbeats) -> None:
        port.beat(beat(at=T0, state="running", jobs=1))
        port.beat(beat(at=T0 + timedelta(seconds=5), state="stopped", jobs=3))
        assert [(b.state, b.jobs_done, b.last_beat) for b in port.beats()] == [("stopped", 3, T0 + timedelta(seconds=5))]

    def test_the_same_beat_twice_is_one_row(self, port: WorkerHeartbeats) -> None:
        port.beat(beat())
        port.beat(beat())
        assert len(port.beats()) == 1

    def test_newest_first_ties_by_owner(self, port: WorkerHeartbeats) -> None:
        port.beat(beat("b", at=T0))
        port.beat(beat("a", at=T0))
        port.beat(beat("c", at=T0 + timedelta(minutes=1)))
        assert [b.owner for b in port.beats()] == ["c", "a", "b"]

    def test_a_bad_state_is_refused_and_nothing_is_stored(self, port: WorkerHeartbeats) -> None:
        with pytest.raises(ValidationError, match="worker state must be one of running, idle, stopped"):
            port.beat(beat(state="sleeping"))
        assert port.beats() == []


class TestInMemoryHeartbeats(HeartbeatContract):
    def make(self, tmp_path: Path) -> tuple[WorkerHeartbeats, Any]:
        return InMemoryHeartbeats(), None


class TestSQLiteHeartbeats(HeartbeatContract):
    def make(self, tmp_path: Path) -> tuple[WorkerHeartbeats, Any]:
        store = SQLiteStorage(tmp_path / "s.db")
        return SQLiteHeartbeats(store.db), store.close

    def test_survives_reopening(self, tmp_path: Path) -> None:
        store = SQLiteStorage(tmp_path / "r.db")
        SQLiteHeartbeats(store.db).beat(beat(state="idle"))
        store.close()
        again = SQLiteStorage(tmp_path / "r.db")
        try:
            assert [b.state for b in SQLiteHeartbeats(again.db).beats()] == ["idle"]
        finally:
            again.close()

    def test_joins_an_open_transaction(self, tmp_path: Path) -> None:
        store = SQLiteStorage(tmp_path / "t.db")
        port = SQLiteHeartbeats(store.db)
        try:
            with pytest.raises(RuntimeError), store.transaction():
                port.beat(beat())
                raise RuntimeError("undo")
            assert port.beats() == []
        finally:
            store.close()


class TestPostgresHeartbeats(HeartbeatContract):
    """The store's ``worker_heartbeats`` in PostgreSQL (layout 5, ADR 0074): every worker of the store."""

    @pytest.fixture(autouse=True)
    def _postgres_database(self, postgres_url: str) -> None:
        self.postgres_url = postgres_url

    def make(self, tmp_path: Path) -> tuple[WorkerHeartbeats, Any]:
        from hlmem.adapters.postgres.backend import open_backend

        backend = open_backend(self.postgres_url)
        return backend.heartbeats, backend.close

    def test_another_process_of_the_store_sees_the_beat(self) -> None:
        from hlmem.adapters.postgres.backend import open_backend

        first, second = open_backend(self.postgres_url), open_backend(self.postgres_url)
        try:
            first.heartbeats.beat(beat("w1", state="idle", jobs=2))
            assert [(b.owner, b.state, b.jobs_done) for b in second.heartbeats.beats()] == [("w1", "idle", 2)]
        finally:
            first.close()
            second.close()

    def test_joins_an_open_transaction(self) -> None:
        from hlmem.adapters.postgres.backend import open_backend

        backend = open_backend(self.postgres_url)
        try:
            with pytest.raises(RuntimeError), backend.store.transaction():
                backend.heartbeats.beat(beat())
                raise RuntimeError("undo")
            assert backend.heartbeats.beats() == []
        finally:
            backend.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 600), st.sampled_from(WORKER_STATES),
                          st.integers(0, 50), st.none() | st.text(max_size=20)), max_size=12))
def test_the_two_adapters_agree_on_any_sequence_of_beats(tmp_path: Path, seq: list[tuple]) -> None:
    store = SQLiteStorage(tmp_path / f"agree-{uuid.uuid4().hex}.db")
    try:
        sqlite, memory = SQLiteHeartbeats(store.db), InMemoryHeartbeats()
        for owner, seconds, state, jobs, error in seq:
            b = beat(owner, at=T0 + timedelta(seconds=seconds), state=state, jobs=jobs, error=error)
            sqlite.beat(b)
            memory.beat(b)
        assert sqlite.beats() == memory.beats()
    finally:
        store.close()
