"""A forget whose bytes another connection keeps on disk says so, and the store finishes it later.

Another connection holding a read transaction keeps the pages as they were before the forget:
the WAL checkpoint cannot complete, and the main database file still holds the forgotten text.
The forget reports ``erasure_pending`` (the CLI: a note and exit 3), the store records it (the
``erasure_pending`` meta row, set in the forget's own transaction), and once the reader is gone the
next open, the worker's idle tick or ``maintain`` finishes it: the raw bytes of the database,
its WAL and shared memory no longer hold the text, and the record is cleared.

Each test keeps one more idle connection open while the reader ends, so SQLite's own checkpoint
at the last close cannot be what removes the bytes.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

import apsw
import pytest

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support.cli import HLMEM, cli_env, run_cli  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.adapters.sqlite.erasure import PENDING_KEY  # noqa: E402

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
SECRET = "violet-secret-bunker-42"


def holding(db: Path) -> dict[str, bool]:
    """Which of the store's files hold the secret (the database, its -wal and -shm)."""
    return {f.name: SECRET.encode() in f.read_bytes() for f in sorted(db.parent.glob(db.name + "*"))}


def anywhere(db: Path) -> bool:
    return any(holding(db).values())


def idle(db: Path) -> apsw.Connection:
    """Another connection, open on the file but in no transaction (it keeps SQLite from the
    checkpoint it runs when the last connection closes)."""
    con = apsw.Connection(str(db))
    con.execute("SELECT count(*) FROM meta").fetchone()  # SQLite opens the file at the first statement
    return con


@contextmanager
def reader(db: Path) -> Iterator[apsw.Connection]:
    """A second connection holding a read transaction (its snapshot predates the forget)."""
    con = apsw.Connection(str(db))
    con.execute("BEGIN")
    assert con.execute("SELECT count(*) FROM events").fetchone()[0] > 0
    try:
        yield con
    finally:
        con.execute("COMMIT")
        con.close()


def filled(db: Path) -> tuple[Memory, str]:
    """A store with filler and one event holding the secret, checkpointed into the main file."""
    mem = Memory(db, embedder="hash", now=T0, synchronous="OFF")
    for i in range(40):
        mem.add(f"filler note {i} about tea", session="filler", extract=False)
    secret = mem.add(f"My favourite place is {SECRET}", session="private", extract=False)
    mem.storage.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert holding(db)[db.name], "the secret is in the main file before the forget"
    return mem, secret.id


def test_a_reader_keeps_the_bytes_the_forget_says_so_and_maintain_finishes_it(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    mem, secret = filled(db)
    try:
        with reader(db):
            report = mem.forget(secret)
            assert report.erasure_pending and report.counts["events"] == 1
            assert mem.storage.pending_erasure() == report.forget_id
            assert holding(db)[db.name], "the old page is still in the main file while the reader holds it"
            assert secret not in {i.id for i in mem.recall(SECRET, k=50).items}  # logically gone at once
        assert anywhere(db), "the reader ending alone removes nothing (the Memory is still open)"

        done = mem.maintain()

        assert (done.erasure_finished, done.erasure_pending) == (True, False)
        assert not anywhere(db), holding(db)
        assert mem.storage.pending_erasure() is None
        assert (tmp_path / "store.db-wal").stat().st_size == 0
        assert mem.maintain().erasure_finished is False  # nothing left to finish
    finally:
        mem.close()


def test_a_pending_erasure_is_reported_again_while_the_reader_stays(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    mem, secret = filled(db)
    try:
        with reader(db):
            mem.forget(secret)
            again = mem.forget(secret)  # a repeat tries again, and says it is still pending
            assert again.already_forgotten and again.erasure_pending
            assert mem.maintain().erasure_pending
        assert mem.forget(secret).erasure_pending is False  # the reader is gone: the repeat finishes it
        assert not anywhere(db)
    finally:
        mem.close()


def test_the_next_open_finishes_it(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    mem, secret = filled(db)
    other = idle(db)
    try:
        with reader(db):
            assert mem.forget(secret).erasure_pending
        mem.close()
        assert anywhere(db), "nobody has checkpointed yet"
        assert other.execute("SELECT value FROM meta WHERE key = ?", (PENDING_KEY,)).fetchone() is not None

        with Memory(db, embedder="hash", now=T0) as again:
            assert again.storage.pending_erasure() is None
            assert not anywhere(db), holding(db)
    finally:
        other.close()


def test_the_worker_finishes_it_when_idle(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    mem, secret = filled(db)
    try:
        with reader(db):
            assert mem.forget(secret).erasure_pending
        worker = mem._container.worker()
        ticks: list[float] = []

        def sleep(seconds: float) -> None:  # one idle tick, then stop the loop
            ticks.append(seconds)
            worker.stop_event.set()

        worker._sleep = sleep
        worker.config.maintenance_interval_seconds = 0  # not maintenance: the idle tick itself
        worker.run()

        assert len(ticks) == 1 and worker.stats.errors == []
        assert mem.storage.pending_erasure() is None and not anywhere(db)
    finally:
        mem.close()


def test_a_crash_between_the_commit_and_the_compaction_is_finished_too(tmp_path: Path, monkeypatch) -> None:
    """The record is written in the forget's own transaction, before any compaction is tried."""
    db = tmp_path / "store.db"
    mem, secret = filled(db)
    other = idle(db)
    try:
        monkeypatch.setattr(mem.storage, "compact_erased", lambda **_kw: {"pending": 0})  # the "crash"
        report = mem.forget(secret)
        assert not report.erasure_pending and mem.storage.pending_erasure() == report.forget_id
        monkeypatch.undo()
        mem.close()
        with Memory(db, embedder="hash", now=T0) as again:
            assert again.storage.pending_erasure() is None and not anywhere(db)
    finally:
        other.close()


def test_a_dry_run_records_nothing(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    mem, secret = filled(db)
    try:
        assert mem.forget(secret, dry_run=True).erasure_pending is False
        assert mem.storage.pending_erasure() is None
        assert mem.forget(secret).erasure_pending is False  # no reader: finished at once
        assert mem.storage.pending_erasure() is None and not anywhere(db)
    finally:
        mem.close()


@pytest.mark.skipif(HLMEM is None, reason="the hlmem console script is not installed")
def test_the_cli_exits_3_with_a_note_and_the_next_command_finishes_it(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    mem, secret = filled(db)
    mem.close()
    env = cli_env(db, HLMEM_EMBEDDER="hash")
    other = idle(db)
    try:
        with reader(db):
            run = run_cli(db, ["forget", secret, "--json"], env=env)
            assert run.code == 3, run
            assert '"erasure_pending": true' in run.out and "erasure pending" in run.err, run
            assert "Traceback" not in run.err
            assert holding(db)[db.name]
        assert anywhere(db)

        stats = run_cli(db, ["stats"], env=env)  # any command's open finishes it

        assert stats.code == 0, stats
        assert not anywhere(db), holding(db)
        assert other.execute("SELECT value FROM meta WHERE key = ?", (PENDING_KEY,)).fetchone() is None
        repeat = run_cli(db, ["forget", secret], env=env)
        assert repeat.code == 0 and "already forgotten" in repeat.out, repeat
    finally:
        other.close()
