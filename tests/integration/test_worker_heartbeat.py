"""The worker's heartbeat (ADR 0035): at start, throttled while it works, ``stopped`` when it ends."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from hlmem import Memory
from hlmem.adapters.clock import FixedClock
from hlmem.adapters.inmemory.heartbeat import InMemoryHeartbeats
from hlmem.adapters.sqlite.heartbeat import SQLiteHeartbeats
from hlmem.application.ports import WorkerBeat
from hlmem.application.worker import Worker, WorkerConfig
from hlmem.domain.errors import ConfigurationError

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)


class RecordingHeartbeats(InMemoryHeartbeats):
    """The in-memory adapter, also keeping every beat it was given (in order)."""

    def __init__(self, fail: bool = False) -> None:
        super().__init__()
        self.given: list[WorkerBeat] = []
        self.fail = fail

    def beat(self, beat: WorkerBeat) -> None:
        if self.fail:
            raise OSError("disk on fire")
        self.given.append(beat)
        super().beat(beat)


def make_worker(mem: Memory, clock: FixedClock, beats, *, sleep=None, **config) -> Worker:
    return Worker(mem.jobs, mem._container.pipeline(), clock, owner="host:42:ab", config=WorkerConfig(**config),
                  heartbeats=beats, pid=42, host="host", sleep=sleep)


@pytest.fixture
def mem():
    with Memory(":memory:", embedder="hash", now=T0) as m:
        yield m


def test_run_once_beats_at_start_and_stopped_at_the_end(mem: Memory) -> None:
    for i in range(3):
        mem.add(f"I live in city {i}", session=f"s{i}", process=False)
    clock, beats = FixedClock(T0), RecordingHeartbeats()
    stats = make_worker(mem, clock, beats).run_once()
    assert stats.jobs_succeeded == 3
    # start, then throttled (the clock did not move: no beat per window), then stopped
    assert [b.state for b in beats.given] == ["running", "stopped"]
    last = beats.beats()[0]
    assert (last.owner, last.pid, last.host, last.jobs_done, last.started_at) == ("host:42:ab", 42, "host", 3, T0)


def test_beats_are_throttled_to_the_interval(mem: Memory) -> None:
    clock, beats = FixedClock(T0), RecordingHeartbeats()
    worker = make_worker(mem, clock, beats, heartbeat_interval_seconds=5)
    assert worker.beat("running") is True
    clock.advance(timedelta(seconds=4.9))
    assert worker.beat("idle") is False
    clock.advance(timedelta(seconds=0.1))
    assert worker.beat("idle") is True
    assert worker.beat("stopped", force=True) is True
    assert [(b.state, b.last_beat - T0) for b in beats.given] == [
        ("running", timedelta(0)), ("idle", timedelta(seconds=5)), ("stopped", timedelta(seconds=5))]


def test_run_goes_idle_then_stopped_on_a_clean_exit(mem: Memory) -> None:
    clock, beats = FixedClock(T0), RecordingHeartbeats()
    def sleep(_seconds: float) -> None:
        clock.advance(timedelta(seconds=1))
        worker.stop_event.set()

    worker = make_worker(mem, clock, beats, sleep=sleep, heartbeat_interval_seconds=0)
    worker.run()
    assert [b.state for b in beats.given] == ["running", "idle", "stopped"]
    assert beats.beats()[0].last_error is None


def test_an_error_that_ends_the_loop_is_recorded_with_state_stopped(mem: Memory) -> None:
    clock, beats = FixedClock(T0), RecordingHeartbeats()
    def sleep(_seconds: float) -> None:
        raise KeyboardInterrupt("operator")

    worker = make_worker(mem, clock, beats, sleep=sleep)
    with pytest.raises(KeyboardInterrupt):
        worker.run()
    last = beats.beats()[0]
    assert last.state == "stopped" and "KeyboardInterrupt: operator" in last.last_error


def test_a_failing_heartbeat_store_never_stops_the_work(mem: Memory) -> None:
    mem.add("I live in Hangzhou", session="s1", process=False)
    stats = make_worker(mem, FixedClock(T0), RecordingHeartbeats(fail=True)).run_once()
    assert stats.jobs_succeeded == 1
    assert any(e.startswith("heartbeat: disk on fire") for e in stats.errors)


def test_a_bad_interval_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="heartbeat_interval_seconds"):
        WorkerConfig(heartbeat_interval_seconds=-1)


def test_the_container_wires_the_store_table(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="hash", now=T0) as m:
        m.add("I live in Hangzhou", session="s1", process=False)
        m.run_worker(once=True)
        heartbeats = m._container.heartbeats()
        assert isinstance(heartbeats, SQLiteHeartbeats)
        [row] = heartbeats.beats()
        assert row.state == "stopped" and row.jobs_done == 1 and row.owner == m._container.worker().owner
