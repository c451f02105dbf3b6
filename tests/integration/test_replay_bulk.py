"""Replay as a bulk load (ADR 0086): large transactions, a rebuilt store written without its WAL
and named only when complete, states read per batch, projections compared inside SQLite."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from hlmem.adapters.clock import FixedClock
from hlmem.adapters.ids import SequentialIds
from hlmem.adapters.inmemory.store import InMemoryStorage
from hlmem.adapters.memory_api import Memory
from hlmem.adapters.sqlite import replay_target as sqlite_target
from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.application import replay as replay_module
from hlmem.application.ports import IndexEntry
from hlmem.application.replay import ReplayService
from hlmem.application.writes import WriteService
from hlmem.domain.commands import AssertClaim
from hlmem.domain.errors import ValidationError
from hlmem.domain.events import ObservationRecorded, OriginClass, SessionKind
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)


def populate(store, people: int = 12) -> None:
    """Claims superseded across many small batches (states a later batch must read back), and turns."""
    clock = FixedClock(T0)
    writes = WriteService(store, clock, SequentialIds(1), DEFAULT_REGISTRY)
    for round_ in range(3):
        for p in range(people):
            writes.remember(AssertClaim(subject=f"person {p}", predicate="lives_in", value=f"city {round_}"))
        clock.advance(timedelta(days=1))
    events = [ObservationRecorded(event_id=f"lg_o{i}", stream_id=f"ev_o{i}", version=1, recorded_at=T0,
                                  namespace="default", text=f"turn {i} 我住在上海", role="user", session_id="s",
                                  origin_class=OriginClass.DIRECT_USER, session_kind=SessionKind.INTERACTIVE,
                                  occurred_at=T0) for i in range(5)]
    store.append(events, {e.stream_id: IndexEntry(e.text) for e in events})


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches of 4 events and a commit every 10: every path of the loop runs on a small log."""
    monkeypatch.setattr(replay_module, "BATCH", 4)
    monkeypatch.setattr(replay_module, "COMMIT_EVERY", 10)


@pytest.mark.parametrize("target_kind", ["bulk", "plain", "memory"])
def test_a_replay_in_small_batches_and_commits_rebuilds_the_same_projection(
        tmp_path: Path, small_batches: None, target_kind: str) -> None:
    live = SQLiteStorage(tmp_path / "live.db")
    try:
        populate(live)
        replay = ReplayService(DEFAULT_REGISTRY)
        seen: list[int] = []
        if target_kind == "bulk":
            with sqlite_target.replay_target(None) as target:
                report = replay.replay(live, target, seen.append)
        else:
            target = SQLiteStorage(tmp_path / "plain.db") if target_kind == "plain" else InMemoryStorage()
            try:
                report = replay.replay(live, target, seen.append)
            finally:
                target.close()
        assert report.equal, report.differences
        assert report.events == live.last_position() > 40
        assert seen == sorted(seen) and seen[-1] == live.last_position()
    finally:
        live.close()


def test_replay_into_names_the_store_only_when_complete(tmp_path: Path, small_batches: None) -> None:
    path, into = tmp_path / "m.db", tmp_path / "kept" / "rebuilt.db"
    with Memory(path, embedder="hash") as mem:
        populate(mem.storage)

        def stop(n: int) -> None:
            # Half-way: the store being built exists under its temporary name only.
            assert not into.exists()
            assert [p.name for p in into.parent.iterdir() if p.name.startswith(".rebuilt.db.rebuild-")]
            if n >= 20:
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            mem.replay(into=into, progress=stop)
        assert not into.exists() and list(into.parent.iterdir()) == []
        report = mem.replay(into=into)
        assert report.equal, report.differences
        with pytest.raises(ValidationError):
            mem.replay(into=into)
    assert sorted(p.name for p in into.parent.iterdir()) == ["rebuilt.db"]
    schema = ("SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_stat%' "
              "ORDER BY type, name")
    fresh = SQLiteStorage(tmp_path / "fresh.db")
    expected = fresh.connection.execute(schema).fetchall()
    fresh.close()
    kept = SQLiteStorage(into)
    try:
        # The indexes dropped while rebuilding are all back, as a new store has them.
        assert kept.connection.execute(schema).fetchall() == expected
        assert kept.connection.pragma("journal_mode") == "wal"
        assert kept.connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert kept.last_position() == report.events
    finally:
        kept.close()


def test_the_bulk_target_rolls_back_a_failed_batch(tmp_path: Path) -> None:
    with sqlite_target.replay_target(None) as target:
        assert target.connection.pragma("journal_mode") == "memory"
        populate(target, people=2)
        before = target.last_position()
        with pytest.raises(RuntimeError), target.transaction():
            populate_more = WriteService(target, FixedClock(T0 + timedelta(days=9)), SequentialIds(500),
                                         DEFAULT_REGISTRY)
            populate_more.remember(AssertClaim(subject="person 0", predicate="lives_in", value="elsewhere"))
            raise RuntimeError("stop")
        assert target.last_position() == before
        assert target.connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]


def test_identical_projections_names_exactly_the_streams_whose_rows_match(tmp_path: Path) -> None:
    live, rebuilt = SQLiteStorage(tmp_path / "live.db"), SQLiteStorage(tmp_path / "rebuilt.db")
    try:
        populate(live)
        replay = ReplayService(DEFAULT_REGISTRY)
        replay.rebuild(live, rebuilt)
        streams = set(live.stream_versions())
        same = rebuilt.identical_projections(live)
        assert same == streams
        con = rebuilt.connection
        claim, other = [r[0] for r in con.execute("SELECT claim_id FROM claims ORDER BY claim_id LIMIT 2")]
        obs_id = con.execute("SELECT event_id FROM observations LIMIT 1").fetchone()[0]
        con.execute("UPDATE claim_versions SET valid_to = valid_from + 1 WHERE claim_id = ? AND seq = 0", (claim,))
        con.execute("UPDATE observations SET text = 'changed' WHERE event_id = ?", (obs_id,))
        live.connection.execute("DELETE FROM claim_versions WHERE claim_id = ?", (other,))
        assert rebuilt.identical_projections(live) == streams - {claim, other, obs_id}
        # The fingerprints agree on what differs (the slow path the comparison replaces).
        slow = live.projection_fingerprints(sorted(streams))
        fast = rebuilt.projection_fingerprints(sorted(streams))
        assert {s for s in streams if slow.get(s) != fast.get(s)} == {claim, other, obs_id}
        # Nothing was written through the comparison, and the connection writes again after it.
        assert con.pragma("query_only") == 0
        with rebuilt.transaction():
            con.execute("UPDATE observations SET text = 'again' WHERE event_id = ?", (obs_id,))
        report = replay.compare(live, rebuilt)
        assert any(d.startswith(f"event {obs_id}:") for d in report.differences)
        assert any(d.startswith(f"claim {other}:") for d in report.differences)
        assert any(d.startswith(f"claim {claim}:") for d in report.differences)
    finally:
        live.close()
        rebuilt.close()


def test_identical_projections_says_none_where_it_cannot_compare(tmp_path: Path) -> None:
    store = SQLiteStorage(tmp_path / "s.db")
    memory = InMemoryStorage()
    try:
        assert store.identical_projections(memory) is None
        assert memory.identical_projections(store) is None
        assert store.identical_projections(store) is None
        gone = SQLiteStorage(tmp_path / "gone.db")
        gone.close()
        (tmp_path / "gone.db").unlink()
        assert store.identical_projections(gone) is None
        assert not (tmp_path / "gone.db").exists()  # never created by the attempt
        with store.transaction():
            other = SQLiteStorage(tmp_path / "o.db")
            try:
                assert store.identical_projections(other) is None  # ATTACH needs no open transaction
            finally:
                other.close()
    finally:
        store.close()
