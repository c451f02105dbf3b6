"""The ``hlmem`` command on a PostgreSQL store (issue 18; docs/postgres.md): ``HLMEM_DB`` set to a
``postgresql://`` URL, the README's walk-through end to end — a deferred turn extracted by
``worker --once``, a supersede, history, forget of a session, ``replay --verify`` — and the
commands that need a SQLite file (``backup``, ``restore``, ``doctor``'s store checks) saying so.

Runs through the console script's entry function in this process (tests/support/cli.py), against
a fresh database of the session's server (tests/support/postgres.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support.cli import HLMEM, Run, cli_env, run_cli  # noqa: E402

from hlmem import Memory  # noqa: E402

pytestmark = pytest.mark.skipif(HLMEM is None, reason="the hlmem console script is not installed")


def _hlmem(folder: Path, url: str, *args: str) -> Run:
    run = run_cli(folder / "unused.db", list(args), env=cli_env(folder / "unused.db", HLMEM_DB=url,
                                                                HLMEM_EMBEDDER="hash"), shown=args)
    assert "Traceback" not in run.out + run.err, run
    return run


def test_the_readme_walk_through_on_postgresql(tmp_path: Path, postgres_url: str) -> None:
    added = _hlmem(tmp_path, postgres_url, "add", "我现在主要用深色模式。", "--defer", "--session", "s1", "--json").json()
    assert added["claims"] == []
    assert _hlmem(tmp_path, postgres_url, "jobs", "--json").json()["counts"] == {"extract": {"pending": 1}}
    done = _hlmem(tmp_path, postgres_url, "worker", "--once", "--json").json()
    assert (done["jobs_succeeded"], done["claims"]) == (1, 1)
    later = _hlmem(tmp_path, postgres_url, "add", "最近眼睛不舒服，暂时换成浅色模式。", "--session", "s1",
                   "--json").json()
    (new,) = later["claims"]
    assert new["value"] == "浅色模式" and len(new["supersedes"]) == 1
    items = _hlmem(tmp_path, postgres_url, "recall", "用户现在用什么主题？", "--json").json()["items"]
    assert [i["value"] for i in items if i["kind"] == "claim"][0] == "浅色模式"
    history = _hlmem(tmp_path, postgres_url, "history", "--subject", "用户", "--predicate", "preferred_ui_theme",
                     "--json").json()["items"]
    assert sorted(c["status"] for c in history) == ["active", "superseded"]

    forgot = _hlmem(tmp_path, postgres_url, "forget", "--session", "s1", "--json").json()
    assert (forgot["counts"]["events"], forgot["counts"]["claims"]) == (2, 2)
    assert _hlmem(tmp_path, postgres_url, "recall", "主题", "--json").json()["items"] == []
    verified = _hlmem(tmp_path, postgres_url, "replay", "--verify", "--json").json()
    assert verified["equal"] is True and verified["differences"] == []
    # It says what it checked: the log, not "the file" (issue 33 item 8); the ledger travelled.
    assert "positions without gaps" in verified["integrity_checked"] and verified["tombstones"] == 4
    plain = _hlmem(tmp_path, postgres_url, "replay", "--verify").out
    assert "file" not in plain and "passed first: the log's" in plain and "4 tombstones carried" in plain, plain
    assert "深色" not in _hlmem(tmp_path, postgres_url, "audit", "--json").out


def test_commands_that_copy_a_sqlite_file_refuse_a_postgresql_store(tmp_path: Path, postgres_url: str) -> None:
    _hlmem(tmp_path, postgres_url, "remember", "--subject", "Alice", "--predicate", "works_in", "--value", "Boston")
    run = _hlmem(tmp_path, postgres_url, "backup", str(tmp_path / "copy.db"))
    assert run.code == 1 and "PostgreSQL" in run.err and "replay --into" in run.err, run
    assert not (tmp_path / "copy.db").exists()
    with Memory(tmp_path / "other.db") as other:  # a real SQLite backup to restore from
        other.remember("Bob", "works_in", "Paris")
        other.backup(tmp_path / "other-backup.db")
    run = _hlmem(tmp_path, postgres_url, "restore", str(tmp_path / "other-backup.db"), "--force", "--yes")
    assert run.code == 1 and "PostgreSQL" in run.err and "replay --into" in run.err, run
    assert [c.value for c in _claims(postgres_url)] == ["Boston"]  # nothing was replaced
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other-backup.db", "other.db"]  # no file named like the URL
    doctor = _hlmem(tmp_path, postgres_url, "doctor")
    assert doctor.code == 1 and "PostgreSQL database" in doctor.out and "replay --verify" in doctor.out, doctor


def _claims(url: str) -> list:
    with Memory(url, embedder="hash") as mem:
        return mem.storage.subject_claims("default", "Alice") + mem.storage.subject_claims("default", "Bob")
