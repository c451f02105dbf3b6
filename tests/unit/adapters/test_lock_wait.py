"""How a writer waits for SQLite's write lock (ADR 0064), on a scripted connection and a fake clock.

Each ``BEGIN IMMEDIATE`` attempt either gets the lock or is busy for one step; during a busy step
another writer may commit (``data_version`` moves). The writer keeps waiting while others make
progress and gives up only after ``STALL_MS`` without any commit it could see.
"""

from __future__ import annotations

from types import SimpleNamespace

import apsw
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from hlmem.adapters.sqlite import db as db_module
from hlmem.adapters.sqlite.db import Db
from hlmem.domain.errors import StorageError

STEP_S = 1.0
#: Busy steps without a seen commit after which the writer gives up.
STALL_STEPS = 5


class ScriptedConnection:
    """``BEGIN IMMEDIATE`` follows a script of busy steps (True: another writer committed during
    it), then succeeds; every busy step moves the fake clock by one step."""

    def __init__(self, script: list[bool], clock: list[float]) -> None:
        self.script = list(script)
        self.clock = clock
        self.version = 1
        self.begins = 0
        self.timeouts: list[int] = []
        self.filename = "scripted.db"
        self.in_transaction = False

    def set_busy_timeout(self, ms: int) -> None:
        self.timeouts.append(ms)

    def pragma(self, name: str) -> int:
        assert name == "data_version"
        return self.version

    def execute(self, sql: str):
        if sql == "BEGIN IMMEDIATE":
            self.begins += 1
            if self.script:
                committed = self.script.pop(0)
                self.clock[0] += STEP_S
                self.version += committed
                raise apsw.BusyError("database is locked")
            self.in_transaction = True
        elif sql in ("COMMIT", "ROLLBACK"):
            self.in_transaction = False
        return SimpleNamespace(fetchone=lambda: None)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [1000.0]
    fake = SimpleNamespace(monotonic=lambda: now[0], perf_counter=lambda: now[0], time=lambda: now[0])
    monkeypatch.setattr(db_module, "time", fake)
    monkeypatch.setattr(db_module, "BUSY_STEP_MS", int(STEP_S * 1000))
    monkeypatch.setattr(db_module, "STALL_MS", int(STALL_STEPS * STEP_S * 1000))
    return now


def expected_failure(script: list[bool]) -> int | None:
    """The attempt (1-based) at which the writer must give up, or None: it gets the lock.

    A commit is seen by comparing ``data_version`` with the previous busy attempt's, so one
    during the first busy step is not seen (there is nothing to compare with yet)."""
    since = 0
    for attempt, committed in enumerate(script, start=1):
        since = 0 if committed and attempt > 1 else since + 1
        if since >= STALL_STEPS:
            return attempt
    return None


@given(st.lists(st.booleans(), max_size=40))
@example([False] * STALL_STEPS)  # nobody commits: give up after exactly the stall
@example([False, True] * 20)  # a busy store that moves: wait as long as it takes
@example([True] * 3 + [False] * (STALL_STEPS - 1) + [True])  # progress just in time
def test_a_writer_waits_while_others_commit_and_gives_up_only_when_the_store_is_stuck(
        script: list[bool]) -> None:
    now = [1000.0]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(db_module, "time", SimpleNamespace(monotonic=lambda: now[0], perf_counter=lambda: now[0],
                                                      time=lambda: now[0]))
        mp.setattr(db_module, "BUSY_STEP_MS", int(STEP_S * 1000))
        mp.setattr(db_module, "STALL_MS", int(STALL_STEPS * STEP_S * 1000))
        con = ScriptedConnection(script, now)
        db = Db(con)  # type: ignore[arg-type]
        db.on_timing = None
        failing = expected_failure(script)
        if failing is None:
            with db.transaction():
                assert con.in_transaction
            assert con.begins == len(script) + 1
        else:
            with pytest.raises(StorageError, match="the store is stuck") as info, db.transaction():
                pass
            assert con.begins == failing
            assert "nothing was written" in str(info.value)
        # Each attempt waits one step in SQLite's busy handler; the connection's timeout is put back.
        assert con.timeouts[0] == int(STEP_S * 1000) and con.timeouts[-1] == db_module.BUSY_TIMEOUT_MS
        assert db.depth == 0


def test_a_bounded_wait_tries_once_and_says_busy(clock: list[float]) -> None:
    con = ScriptedConnection([True, True, True], clock)
    db = Db(con)  # type: ignore[arg-type]
    db.on_timing = None
    with pytest.raises(StorageError, match="the store is busy") as info, db.transaction(wait_ms=250):
        pass
    assert "stuck" not in str(info.value)
    assert con.begins == 1 and con.timeouts == [250, db_module.BUSY_TIMEOUT_MS]


def test_a_writer_that_gives_up_is_timed_as_busy(clock: list[float]) -> None:
    con = ScriptedConnection([False] * STALL_STEPS, clock)
    db = Db(con)  # type: ignore[arg-type]
    seen = []
    db.on_timing = seen.append
    with pytest.raises(StorageError), db.transaction():
        pass
    (timing,) = seen
    assert timing.outcome == "busy" and timing.hold_ms == 0.0 and timing.commit_ms == 0.0
    assert timing.wait_ms == pytest.approx(STALL_STEPS * STEP_S * 1000)
    assert timing.site.endswith("test_a_writer_that_gives_up_is_timed_as_busy")


def test_a_look_at_data_version_that_fails_counts_as_no_news(clock: list[float]) -> None:
    class Recovering(ScriptedConnection):
        def pragma(self, name: str) -> int:
            raise apsw.BusyError("database is locked (recovering the WAL index)")

    con = Recovering([True] * (STALL_STEPS + 3), clock)
    db = Db(con)  # type: ignore[arg-type]
    db.on_timing = None
    with pytest.raises(StorageError, match="the store is stuck"), db.transaction():
        pass
    assert con.begins == STALL_STEPS  # commits it could not see do not keep it waiting
