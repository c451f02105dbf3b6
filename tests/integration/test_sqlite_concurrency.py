"""Processes sharing one SQLite file (ADR 0024): opening never writes, a reader never waits for a
writer, a second writer waits for the lock instead of failing, the segmenter loads before the
write transaction, and several processes may create a new store at once.

Every process here is bounded by a timeout; nothing asserts how long anything took.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from datetime import datetime, timezone
from pathlib import Path

import apsw

from hlmem.adapters.sqlite import migrations
from hlmem.adapters.sqlite.connection import open_connection, optimize_on_close
from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.domain.events import ObservationRecorded, OriginClass, SessionKind
from support.profile import sized

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)


def observation(n: int, text: str = "we planted tomatoes 我们种了西红柿") -> ObservationRecorded:
    return ObservationRecorded(
        event_id=f"lg_c{n}", stream_id=f"ev_c{n}", version=1, recorded_at=T0, namespace="default", text=text,
        role="user", session_id="s", origin_class=OriginClass.DIRECT_USER, session_kind=SessionKind.INTERACTIVE,
        occurred_at=T0,
    )


def python(code: str, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], capture_output=True, text=True,
                          timeout=timeout)


class HeldWriteLock:
    """Another connection inside ``BEGIN IMMEDIATE`` with an uncommitted write, until closed."""

    def __init__(self, path: Path) -> None:
        self.con = apsw.Connection(str(path))
        self.con.execute("BEGIN IMMEDIATE")
        self.con.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('held', 'yes')")

    def release(self) -> None:
        self.con.execute("ROLLBACK")
        self.con.close()


def test_opening_and_reading_a_store_do_not_need_the_write_lock(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = SQLiteStorage(path)
    store.append([observation(1)], {"ev_c1": _entry("we planted tomatoes")})
    store.close()
    held = HeldWriteLock(path)
    try:
        con = open_connection(path)
        con.set_busy_timeout(0)  # any lock taken at open or by a read would fail at once
        assert migrations.migrate(con, T0.isoformat()) == []
        con.close()
        reader = SQLiteStorage(path)
        reader.connection.set_busy_timeout(0)
        assert reader.counts()["events"] == 1
        assert [c.item_id for c in reader.text_candidates("default", "tomatoes", 5)] == ["ev_c1"]
        assert reader.meta("held") is None  # the other transaction is not committed
        reader.close()
    finally:
        held.release()


def test_optimize_runs_at_close_only_for_a_connection_that_wrote(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    SQLiteStorage(path).close()
    reader = open_connection(path)
    reader.execute("SELECT count(*) FROM events").fetchall()
    assert not optimize_on_close(reader)
    reader.close()
    writer = open_connection(path)
    writer.execute("INSERT INTO meta (key, value) VALUES ('k', 'v')")
    held = HeldWriteLock(path)
    try:
        optimize_on_close(writer)  # never waits: the other writer's lock makes it skip, not block
    finally:
        held.release()
    writer.close()


def test_a_second_writer_waits_for_the_lock_instead_of_failing(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    SQLiteStorage(path).close()
    second = SQLiteStorage(path)
    outcome: list[object] = []

    def write() -> None:
        try:
            outcome.append(second.append([observation(2)], {"ev_c2": _entry("second writer")}))
        except Exception as exc:  # reported below
            outcome.append(exc)

    held = HeldWriteLock(path)
    writer = threading.Thread(target=write)
    try:
        writer.start()
        writer.join(timeout=1.0)
        # It cannot have succeeded while the lock is held; had it failed, it would have ended.
        assert writer.is_alive() and outcome == []
    finally:
        held.release()
    writer.join(timeout=120)
    assert outcome == [1]
    assert [c.item_id for c in second.text_candidates("default", "second writer", 5)] == ["ev_c2"]
    second.close()


def test_the_segmenter_loads_before_the_first_write_transaction(tmp_path: Path) -> None:
    # A fresh interpreter, so jieba is not loaded yet: record the transaction depth when it loads
    # (its dictionary file opened, or built: adapters/text/jieba_dict.py; or, where that cannot
    # be, its whole dictionary), and when a busy process loads the whole dictionary.
    done = python("""
        import json, sys
        import jieba
        from hlmem import Memory
        from hlmem.adapters.text import jieba_dict

        mem = Memory(sys.argv[1], embedder="none")
        depths = []
        def spying(original):
            def spy(*args, **kwargs):
                depths.append(mem.storage._depth)
                return original(*args, **kwargs)
            return spy
        jieba.Tokenizer.initialize = spying(jieba.Tokenizer.initialize)
        lazy = jieba_dict.lazy_tokenizer
        def lazy_spied(cache, load_full):
            return lazy(cache, spying(load_full))
        jieba_dict.lazy_tokenizer = spying(lazy_spied)
        result = mem.add("我们在花园里种了西红柿", session="garden")
        jieba_dict.FULL_AFTER = 0  # busy now: the next add loads the whole dictionary
        mem.add("西红柿熟了", session="garden")
        mem.close()
        print(json.dumps({"depths": depths, "id": result.id}))
    """, str(tmp_path / "m.db"))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    # Opened once, and the whole dictionary loaded once (jieba's initialize), outside BEGIN IMMEDIATE.
    assert report["depths"] == [0, 0, 0], report
    assert report["id"].startswith("ev_")


OPENER = """
    import sys
    from hlmem import Memory
    from hlmem.adapters.sqlite.ledger import SQLiteLedger

    role, path = sys.argv[1], sys.argv[2]
    sys.stdin.readline()  # imports done: every process opens the new file at the same moment
    if role == "ledger":
        ledger = SQLiteLedger.open(path)
        print(ledger.totals()["calls"])
        ledger.close()
    else:
        with Memory(path, embedder="none") as mem:
            if role == "writer":
                print(mem.add("we planted tomatoes", session="garden", extract=False).id)
            else:
                print(mem.stats()["events"] >= 0, mem.recall("tomatoes").items is not None)
"""


def test_processes_creating_a_new_store_at_once_all_succeed(tmp_path: Path) -> None:
    roles = ("writer", "writer", "reader", "ledger")
    for round_ in range(sized(2, 5)):  # each round a new race (more under the thorough profile)
        path = tmp_path / f"new{round_}.db"
        procs = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(OPENER), role, str(path)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for role in roles]
        for p in procs:
            p.stdin.write("go\n")  # each waits for its line after its imports
            p.stdin.flush()
        results = [(role, *p.communicate(timeout=180), p.returncode) for role, p in zip(roles, procs)]
        failed = [r for r in results if r[3] != 0]
        assert failed == [], failed
        written = [out.strip() for role, out, _err, _code in results if role == "writer"]
        store = SQLiteStorage(path)
        try:
            assert set(store.get_observations(written)) == set(written)
            names = [r[0] for r in store.connection.execute("SELECT name FROM _migrations ORDER BY rowid")]
            assert names == [m.name for m in migrations.MIGRATIONS]
        finally:
            store.close()


def _entry(text: str):
    from hlmem.application.ports import IndexEntry

    return IndexEntry(text, None)


def test_a_failing_migration_leaves_the_file_as_it_was(tmp_path: Path, monkeypatch) -> None:
    def broken(con: apsw.Connection) -> None:
        con.execute("CREATE TABLE half_done (x)")
        raise RuntimeError("step failed")

    monkeypatch.setattr(migrations, "MIGRATIONS", (*migrations.MIGRATIONS, migrations.Migration("9999_broken", broken)))
    con = open_connection(tmp_path / "s.db")
    try:
        migrations.migrate(con, T0.isoformat())
    except RuntimeError:
        pass
    else:
        raise AssertionError("the broken step did not fail")
    assert not con.in_transaction
    assert migrations.applied(con) == []  # one transaction: none of the steps before it stayed
    assert con.execute("SELECT count(*) FROM sqlite_schema WHERE name IN ('events', 'half_done')").fetchone() == (0,)
    con.close()


def test_a_non_transactional_step_runs_alone_between_locked_groups(tmp_path: Path, monkeypatch) -> None:
    seen: list[tuple[str, bool]] = []

    def step(name: str):
        def apply(con: apsw.Connection) -> None:
            seen.append((name, con.in_transaction))
            if name != "alone":
                con.execute(f"CREATE TABLE IF NOT EXISTS t_{name} (x)")
        return apply

    extra = (migrations.Migration("9001_a", step("a")), migrations.Migration("9002_alone", step("alone"), False),
             migrations.Migration("9003_b", step("b")))
    monkeypatch.setattr(migrations, "MIGRATIONS", (*migrations.MIGRATIONS, *extra))
    con = open_connection(tmp_path / "s.db")
    ran = migrations.migrate(con, T0.isoformat())
    assert ran == [m.name for m in migrations.MIGRATIONS]
    assert seen == [("a", True), ("alone", False), ("b", True)]
    assert migrations.migrate(con, T0.isoformat()) == [] and len(seen) == 3
    con.close()
