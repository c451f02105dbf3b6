"""SQLite-specific guarantees of the event log: immutability in the database, migrations, durability
across reopen and crashes, and optimistic concurrency between two connections to one file."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta, timezone
from pathlib import Path

import apsw
import pytest

from hlmem.adapters.clock import FixedClock
from hlmem.adapters.embedders.hashing import HashEmbedder
from hlmem.adapters.ids import SequentialIds
from hlmem.adapters.sqlite import migrations
from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.application.replay import ReplayService
from hlmem.application.writes import WriteService
from hlmem.domain.commands import AssertClaim, RecordObservation
from hlmem.domain.errors import ConcurrencyConflict, SchemaError
from hlmem.domain.events import ClaimRetracted, ObservationRecorded, OriginClass, SessionKind
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY
from hlmem.domain.state import ClaimStatus

UTC = timezone.utc
T0 = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
DAY = timedelta(days=1)
QUERIES = ["theme", "深色", "dark mode", "住在 上海", "Berlin", "tea 咖啡", "user"]


def obs_event(n: int, text: str = "note") -> ObservationRecorded:
    return ObservationRecorded(
        event_id=f"lg_o{n}", stream_id=f"ev_o{n}", version=1, recorded_at=T0, namespace="default", text=text,
        role="user", session_id="s", origin_class=OriginClass.DIRECT_USER, session_kind=SessionKind.INTERACTIVE,
        occurred_at=T0,
    )


def populate(store: SQLiteStorage, *, start: int = 1, embedder: HashEmbedder | None = None) -> FixedClock:
    """A small but varied history: observations, claims, supersede, a late fact, retract, corroborate."""
    clock = FixedClock(T0)
    writes = WriteService(store, clock, SequentialIds(start), DEFAULT_REGISTRY, embedder)
    ev1 = writes.record(RecordObservation(text="I switched to dark mode, 我喜欢深色主题")).id
    ev2 = writes.record(RecordObservation(text="我住在上海，喜欢喝咖啡", session_id="s2")).id
    writes.remember(AssertClaim(subject="user", predicate="theme", value="dark", evidence=(ev1,)))
    writes.remember(AssertClaim(subject="user", predicate="lives_in", value="上海", evidence=(ev2,)))
    clock.advance(DAY)
    writes.remember(AssertClaim(subject="user", predicate="theme", value="light"))
    writes.remember(AssertClaim(subject="user", predicate="lives_in", value="Berlin", valid_from=T0 - 30 * DAY))
    tea = writes.remember(AssertClaim(subject="user", predicate="likes", value="tea")).id
    writes.remember(AssertClaim(subject="user", predicate="likes", value="咖啡", evidence=(ev2,)))
    writes.remember(AssertClaim(subject="user", predicate="likes", value="Tea", evidence=(ev1,)))
    clock.advance(DAY)
    writes.retract(tea, "wrong")
    return clock


def snapshot(store: SQLiteStorage, now: datetime) -> dict:
    """Every query result the port offers, in the order the store gives it."""
    log = list(store.read())
    ids = list(dict.fromkeys(s.event.stream_id for s in log))
    claims = store.get_claims([i for i in ids if i.startswith("cl_")])
    out = {
        "log": log,
        "claims": claims,
        "observations": store.get_observations([i for i in ids if i.startswith("ev_")]),
        "versions": {i: store.stream_version(i) for i in ids},
        "counts": store.counts(),
        "slots": {c.slot_key: sorted(x.claim_id for x in store.slot_claims(c.slot_key)) for c in claims.values()},
        "citing": {i: store.claims_citing(i) for i in ids if i.startswith("ev_")},
        "text": {q: store.text_candidates("default", q, 20) for q in QUERIES},
        "visible": [store.visible(ids, t, k) for t in (T0, now) for k in (T0, now)],
        "model": store.vector_model(),
    }
    if out["model"] is not None:
        embedder = HashEmbedder(dim=out["model"][1])
        out["vectors"] = {q: store.vector_candidates(
            "default", embedder.embed_queries([q])[0].astype("<f4").tobytes(), 20) for q in QUERIES}
    return out


@pytest.fixture
def store(tmp_path: Path):
    s = SQLiteStorage(tmp_path / "s.db")
    yield s
    s.close()


# --- the database refuses to rewrite history ---------------------------------------------------


@pytest.mark.parametrize("sql", [
    "UPDATE events SET tag = 'claim.retracted.v1'",
    "UPDATE events SET version = version + 1 WHERE position = 1",
    "UPDATE events SET recorded_at = '2000-01-01T00:00:00.000000Z' WHERE position = 2",
    "DELETE FROM events",
    "DELETE FROM events WHERE position = 2",
    "INSERT OR REPLACE INTO events (position, event_id, stream_id, version, tag, recorded_at, namespace, "
    "schema_version) SELECT position, event_id, stream_id, version, tag, recorded_at, namespace, schema_version "
    "FROM events WHERE position = 1",
    "UPDATE event_payloads SET payload = '{}'",
    "DELETE FROM event_payloads WHERE position = 1",
    "INSERT OR REPLACE INTO event_payloads (position, payload) VALUES (1, '{}')",
])
def test_the_log_refuses_rewrites(store: SQLiteStorage, sql: str) -> None:
    store.append([obs_event(1, "first"), obs_event(2, "second")])
    before = list(store.read())
    with pytest.raises(apsw.ConstraintError, match="hlmem: "):
        store.connection.execute(sql)
    assert list(store.read()) == before


def test_a_payload_may_be_deleted_only_after_an_erasure_record(store: SQLiteStorage) -> None:
    store.append([obs_event(1, "secret"), obs_event(2, "kept")])
    con = store.connection
    with pytest.raises(apsw.ConstraintError):
        con.execute("DELETE FROM event_payloads WHERE position = 1")
    with con:
        con.execute("INSERT INTO payload_erasures (position, erased_at, reason) VALUES (1, ?, 'forget')",
                    ("2026-03-02T00:00:00Z",))
        con.execute("DELETE FROM event_payloads WHERE position = 1")
    assert con.execute("SELECT position FROM event_payloads").fetchall() == [(2,)]
    assert con.execute("SELECT count(*) FROM events").fetchone()[0] == 2  # the envelope stays
    with pytest.raises(apsw.ConstraintError):
        con.execute("DELETE FROM event_payloads WHERE position = 2")


# --- migrations ----------------------------------------------------------------------------------


def test_migrations_are_recorded_in_order(store: SQLiteStorage) -> None:
    rows = store.connection.execute("SELECT name FROM _migrations ORDER BY rowid").fetchall()
    assert [r[0] for r in rows] == [m.name for m in migrations.MIGRATIONS]
    assert len({m.name for m in migrations.MIGRATIONS}) == len(migrations.MIGRATIONS)


#: The schema, without the statistics tables that ``PRAGMA optimize`` creates on close.
SCHEMA_SQL = "SELECT type, name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite^_stat%' ESCAPE '^' ORDER BY name"


def test_reopening_is_idempotent(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    first = SQLiteStorage(path)
    populate(first)
    recorded = first.connection.execute("SELECT name, applied_at FROM _migrations ORDER BY rowid").fetchall()
    schema = first.connection.execute(SCHEMA_SQL).fetchall()
    first.close()
    for _ in range(2):
        again = SQLiteStorage(path)
        con = again.connection
        assert migrations.migrate(con, "2099-01-01T00:00:00+00:00") == []
        assert con.execute("SELECT name, applied_at FROM _migrations ORDER BY rowid").fetchall() == recorded
        assert con.execute(SCHEMA_SQL).fetchall() == schema
        again.close()


def test_a_newer_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    SQLiteStorage(path).close()
    con = apsw.Connection(str(path))
    con.execute("INSERT INTO _migrations (name, applied_at) VALUES ('9999_from_the_future', 'x')")
    con.close()
    with pytest.raises(SchemaError, match="newer"):
        SQLiteStorage(path)


# --- durability ----------------------------------------------------------------------------------


def test_reopened_store_gives_identical_results(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = SQLiteStorage(path)
    clock = populate(store, embedder=HashEmbedder(dim=64))
    before = snapshot(store, clock.now())
    store.close()
    reopened = SQLiteStorage(path)
    try:
        assert snapshot(reopened, clock.now()) == before
        # And it keeps working: the next writer continues the same streams.
        writes = WriteService(reopened, clock, SequentialIds(500), DEFAULT_REGISTRY, HashEmbedder(dim=64))
        result = writes.remember(AssertClaim(subject="user", predicate="theme", value="solarized"))
        assert result.outcome == "superseded"
    finally:
        reopened.close()


def test_replayed_store_gives_byte_identical_results(tmp_path: Path) -> None:
    live = SQLiteStorage(tmp_path / "live.db")
    clock = populate(live, embedder=HashEmbedder(dim=64))
    rebuilt = SQLiteStorage(tmp_path / "rebuilt.db")
    try:
        replay = ReplayService(DEFAULT_REGISTRY, HashEmbedder(dim=64))
        assert replay.rebuild(live, rebuilt) == live.last_position()
        assert replay.compare(live, rebuilt).equal
        assert snapshot(rebuilt, clock.now()) == snapshot(live, clock.now())
    finally:
        live.close()
        rebuilt.close()


def test_exception_after_the_first_event_leaves_nothing(store: SQLiteStorage) -> None:
    store.append([obs_event(1)])
    before = snapshot(store, T0)
    with pytest.raises(RuntimeError), store.transaction():
        store.append([obs_event(2, "half")])
        raise RuntimeError("crash between two appends")
    assert snapshot(store, T0) == before


@pytest.mark.parametrize("fail_on", [1, 2])
def test_failure_while_projecting_leaves_no_half_applied_event(store: SQLiteStorage, fail_on: int,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    store.append([obs_event(1)])
    before = snapshot(store, T0)
    real = store._projector.project
    seen = []

    def failing(event, position):
        seen.append(event)
        if len(seen) == fail_on:
            raise RuntimeError("disk full while projecting")  # the log row is already inserted
        return real(event, position)

    monkeypatch.setattr(store._projector, "project", failing)
    with pytest.raises(RuntimeError):
        store.append([obs_event(2, "two"), obs_event(3, "three")])
    monkeypatch.undo()
    assert snapshot(store, T0) == before
    store.append([obs_event(2, "two")])  # nothing of the failed batch was kept
    assert store.last_position() == 2


_CRASHER = textwrap.dedent("""
    import os, sys
    from datetime import datetime, timezone
    from hlmem.adapters.sqlite.store import SQLiteStorage
    from hlmem.application.ports import IndexEntry
    from hlmem.domain.events import ObservationRecorded, OriginClass, SessionKind
    T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)
    def ev(n):
        return ObservationRecorded(event_id=f"lg_c{n}", stream_id=f"ev_c{n}", version=1, recorded_at=T0,
            namespace="default", text=f"crash test {n}", role="user", session_id="s",
            origin_class=OriginClass.DIRECT_USER, session_kind=SessionKind.INTERACTIVE, occurred_at=T0)
    store = SQLiteStorage(sys.argv[1])
    def append(n):
        store.append([ev(n)], {f"ev_c{n}": IndexEntry(f"crash test {n}")})
    append(1)                                  # committed
    with store.transaction():
        append(2)
        append(3)
        os._exit(7)                            # the process dies mid-transaction
""")


def test_process_killed_mid_transaction_keeps_only_committed_events(tmp_path: Path) -> None:
    path = tmp_path / "crash.db"
    done = subprocess.run([sys.executable, "-c", _CRASHER, str(path)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONSAFEPATH": "1"})
    assert done.returncode == 7, done.stderr
    store = SQLiteStorage(path)
    try:
        assert [s.event.event_id for s in store.read()] == ["lg_c1"]
        assert set(store.get_observations(["ev_c1", "ev_c2", "ev_c3"])) == {"ev_c1"}
        assert [c.item_id for c in store.text_candidates("default", "crash test", 10)] == ["ev_c1"]
        assert store.counts()["observations"] == 1
    finally:
        store.close()


# --- two connections on one file ---------------------------------------------------------------


def test_two_connections_see_each_others_commits(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    a, b = SQLiteStorage(path), SQLiteStorage(path)
    try:
        clock = FixedClock(T0)
        wa = WriteService(a, clock, SequentialIds(1), DEFAULT_REGISTRY, HashEmbedder(dim=32))
        wb = WriteService(b, clock, SequentialIds(1000), DEFAULT_REGISTRY, HashEmbedder(dim=32))
        assert b.vector_candidates("default", b"\0" * 128, 5) == []  # b looked before anything existed
        dark = wa.remember(AssertClaim(subject="user", predicate="theme", value="dark")).id
        assert b.get_claims([dark])[dark].value == "dark"
        clock.advance(DAY)
        # b decides inside its write transaction, so it sees a's claim and supersedes it.
        light = wb.remember(AssertClaim(subject="user", predicate="theme", value="light"))
        assert light.outcome == "superseded"
        assert a.get_claims([dark])[dark].superseded_by == light.id
        query = HashEmbedder(dim=32).embed_queries(["user theme dark"])[0].astype("<f4").tobytes()
        assert {c.item_id for c in a.vector_candidates("default", query, 10)} == {dark, light.id}
        assert {c.item_id for c in b.vector_candidates("default", query, 10)} == {dark, light.id}
        assert snapshot(a, clock.now()) == snapshot(b, clock.now())
        # a re-embeds with another model: b's cached model and vectors must not outlive it.
        other = HashEmbedder(dim=16)
        texts = dict(a.items())
        assert a.replace_vectors("other-16", 16, [
            (item_id, other.embed_passages([item_id])[0].astype("<f4").tobytes()) for item_id in texts]) == 2
        assert b.vector_model() == ("other-16", 16)
        query16 = other.embed_queries([dark])[0].astype("<f4").tobytes()
        assert [c.item_id for c in b.vector_candidates("default", query16, 1)] == [dark]
    finally:
        a.close()
        b.close()


def test_stale_writer_gets_a_concurrency_conflict(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    a, b = SQLiteStorage(path), SQLiteStorage(path)
    try:
        clock = FixedClock(T0)
        claim = WriteService(a, clock, SequentialIds(1), DEFAULT_REGISTRY).remember(
            AssertClaim(subject="user", predicate="likes", value="tea")).id
        # Both writers read the claim at version 1 and decide to retract it.
        seen_by_b = b.get_claims([claim])[claim]
        assert seen_by_b.version == 1
        a.append([ClaimRetracted(event_id="lg_a", stream_id=claim, version=2, recorded_at=T0, namespace="default",
                                 reason="a was first")])
        with pytest.raises(ConcurrencyConflict):
            b.append([ClaimRetracted(event_id="lg_b", stream_id=claim, version=seen_by_b.version + 1,
                                     recorded_at=T0, namespace="default", reason="b is stale")])
        # A stale writer that starts a stream someone else already started conflicts too.
        a.append([obs_event(1, "from a")])
        with pytest.raises(ConcurrencyConflict):
            b.append([obs_event(1, "from b")])
        for s in (a, b):
            assert [e.event.event_id for e in s.read()][-2:] == ["lg_a", "lg_o1"]
            assert s.get_claims([claim])[claim].status is ClaimStatus.RETRACTED
            assert s.get_observations(["ev_o1"])["ev_o1"].text == "from a"
    finally:
        a.close()
        b.close()


def test_the_context_migration_backfills_a_store_written_before_it(tmp_path: Path) -> None:
    """A store from before 0012_context_fts gets every event's context row when it is opened."""
    path = tmp_path / "old.db"
    store = SQLiteStorage(path)
    clock = FixedClock(datetime(2026, 3, 1, tzinfo=timezone.utc))
    writes = WriteService(store, clock, SequentialIds(), DEFAULT_REGISTRY)
    for n, text in enumerate(["How long have you been painting?", "Seven years now", "我们周末去爬山吧", "ok"]):
        clock.advance(timedelta(seconds=1))
        writes.record(RecordObservation(text=text, session_id="a" if n < 3 else "b"))
    queries = ("painting", "seven years", "爬山", "ok", "March 2026")
    expected = {q: store.context_candidates("default", q, 10) for q in queries}
    assert all(expected.values())
    con = store.connection
    for statement in ("DROP TABLE context_vocab", "DROP TABLE context_fts", "DROP TABLE context_pairs",
                      "DROP INDEX observations_session_order", "DROP INDEX observations_speakers",
                      "DELETE FROM _migrations WHERE name = '0012_context_fts'"):
        con.execute(statement)
    store.close()

    reopened = SQLiteStorage(path)
    assert {q: reopened.context_candidates("default", q, 10) for q in queries} == expected
    reopened.close()


def _context_rows(store: SQLiteStorage) -> set[tuple]:
    """The context index by event ids: (first turn, second turn or None, indexed text)."""
    return set(store.connection.execute(
        "SELECT a.item_id, b.item_id, f.body FROM context_pairs p JOIN context_fts f ON f.rowid = p.pair_key "
        "JOIN items a ON a.item_key = p.first_key LEFT JOIN items b ON b.item_key = p.second_key"))


def test_replay_builds_the_context_index_that_turn_by_turn_writes_built(tmp_path: Path) -> None:
    """Bulk pairs (a replayed batch) and pairs made one turn at a time are the same rows."""
    live = SQLiteStorage(tmp_path / "live.db")
    clock = FixedClock(datetime(2023, 5, 7, 23, tzinfo=timezone.utc))
    writes = WriteService(live, clock, SequentialIds(), DEFAULT_REGISTRY)
    turns = [("a", "How long have you been painting?"), ("b", "我们周末去爬山吧"), ("a", "Seven years now"),
             ("c", "a lone note"), ("b", "好啊，去哪座山？"), ("a", "Nice."), ("b", "")]
    for n, (session, text) in enumerate(turns):
        clock.advance(timedelta(hours=1))
        if text:
            writes.record(RecordObservation(text=text, session_id=session))
    rebuilt = SQLiteStorage(tmp_path / "rebuilt.db")
    ReplayService(DEFAULT_REGISTRY).rebuild(live, rebuilt)
    rows = _context_rows(live)
    assert len(rows) == 2 + 1 + 1  # a: two pairs, b: one pair, c: its lone turn
    assert any({"may", "8", "2023"} <= set(body.lower().split()) for _a, _b, body in rows)  # 8 May, UTC
    assert _context_rows(rebuilt) == rows
    live.close()
    rebuilt.close()


def test_a_turn_recorded_out_of_order_is_paired_in_session_order(tmp_path: Path) -> None:
    from hlmem.application.ports import IndexEntry

    store = SQLiteStorage(tmp_path / "s.db")
    t0 = datetime(2026, 3, 1, 9, tzinfo=timezone.utc)

    def turn(n: int, hours: int, text: str) -> ObservationRecorded:
        return ObservationRecorded(
            event_id=f"lg_{n}", stream_id=f"ev_{n}", version=1, recorded_at=t0 + timedelta(hours=hours),
            namespace="default", text=text, role="user", session_id="s", origin_class=OriginClass.DIRECT_USER,
            session_kind=SessionKind.INTERACTIVE, occurred_at=t0 + timedelta(hours=hours))

    for event in (turn(1, 1, "first"), turn(3, 3, "third"), turn(2, 2, "second")):  # the second arrives last
        store.append([event], {event.stream_id: IndexEntry(text=event.text)})
    pairs = {(a, b) for a, b, _body in _context_rows(store)}
    assert pairs == {("ev_1", "ev_2"), ("ev_2", "ev_3")}
    store.close()
