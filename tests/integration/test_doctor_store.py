"""``run_doctor`` on stores that need more than the happy path: an older store (pending
migrations, never applied by the doctor), a replay past its time bound, no room for the copy."""

from __future__ import annotations

import hashlib
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace

import apsw

from hlmem import Memory
from hlmem.adapters.ops.checks import exit_code
from hlmem.adapters.ops.doctor import run_doctor
from hlmem.adapters.settings import Settings
from hlmem.adapters.sqlite.migrations import MIGRATIONS

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=timezone.utc)


def _schema(migrations) -> set[tuple[str, str]]:
    con = apsw.Connection(":memory:")
    for migration in migrations:
        migration.apply(con)
    return {(kind.upper(), name) for kind, name in con.execute(
        "SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'")}


def _dropped_by_last_migration() -> list[str]:
    """The SQL of what the newest migration drops (0019 replaces ``policy_support``), to put back
    when undoing it: tables first, then their indexes, triggers and views."""
    con = apsw.Connection(":memory:")
    for migration in MIGRATIONS[:-1]:
        migration.apply(con)
    gone = _schema(MIGRATIONS[:-1]) - _schema(MIGRATIONS)
    rows = con.execute("SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL").fetchall()
    return [sql for kind, name, sql in sorted(rows, key=lambda r: r[0] != "table") if (kind.upper(), name) in gone]


def _made_by_last_migration() -> list[tuple[str, str]]:
    """The tables, indexes, triggers and views the newest migration adds (tables last, each
    full-text table before its shadow tables: ``derived_fts`` sorts before ``derived_fts_data``, and
    a shadow table dropped first leaves its virtual table impossible to drop); none for a data step
    (0017 rewrites full-text rows: its record alone marks it, and the doctor only reads)."""
    made = _schema(MIGRATIONS) - _schema(MIGRATIONS[:-1])
    return sorted(made, key=lambda item: (item[0] == "TABLE", item[1]))


def _doctor(db: Path, **kwargs):
    return {c.name: c for c in run_doctor(db, Settings(), now=NOW, environ={}, **kwargs)}


def _events(db: Path, n: int) -> Path:
    with Memory(db, embedder="none", synchronous="OFF") as mem:
        for i in range(n):
            mem.add(f"turn {i}: 我在杭州", session=f"s{i % 7}", extract=False)
    return db


def test_an_older_store_warns_with_the_command_and_is_left_unmigrated(tmp_path: Path) -> None:
    db = _events(tmp_path / "old.db", 3)
    last = MIGRATIONS[-1].name
    con = apsw.Connection(str(db))
    for kind, name in _made_by_last_migration():  # undone: the store of the version before
        con.execute(f'DROP {kind} IF EXISTS "{name}"')
    for sql in _dropped_by_last_migration():
        con.execute(sql)
    con.execute("DELETE FROM _migrations WHERE name = ?", (last,))
    con.close()
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    checks = _doctor(db)
    assert checks["migrations"].status == "warn" and last in checks["migrations"].detail
    assert "hlmem stats" in checks["migrations"].action and "hlmem backup" in checks["migrations"].action
    assert checks["worker"].status == "ok" and checks["replay"].status == "ok"  # read and replayed all the same
    assert exit_code(checks.values()) == 1
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest
    con = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    assert con.execute("SELECT count(*) FROM _migrations WHERE name = ?", (last,)).fetchone()[0] == 0
    con.close()


def test_a_replay_past_its_time_bound_is_a_partial_warning(tmp_path: Path) -> None:
    db = _events(tmp_path / "big.db", 1_100)  # more than one replay batch (1,000 events)
    checks = _doctor(db, replay_seconds=0)
    replay = checks["replay"]
    assert replay.status == "warn" and replay.detail.startswith("partial: 1000 of 1100 events")
    assert checks["integrity"].status == "ok"
    assert _doctor(db)["replay"].status == "ok"


def test_no_room_for_the_private_copy_skips_integrity_and_replay_with_a_warning(tmp_path: Path) -> None:
    db = _events(tmp_path / "s.db", 2)
    scratch = Path(tempfile.gettempdir())

    def usage(path: Path):
        return SimpleNamespace(free=1000 if path == scratch else 50 << 30)

    checks = _doctor(db, disk_usage=usage)
    assert checks["integrity"].status == checks["replay"].status == "warn"
    assert "not run: a private copy" in checks["replay"].detail and "TMPDIR" in checks["replay"].action
    assert checks["disk"].status == "ok"
