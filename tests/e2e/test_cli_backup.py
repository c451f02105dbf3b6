"""``hlmem backup``, ``hlmem restore`` and ``hlmem audit`` through the console script's entry function
(tests/support/cli.py: in this process unless ``HLMEM_TEST_CLI=subprocess``)."""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support.cli import HLMEM, Run, run_cli  # noqa: E402

pytestmark = pytest.mark.skipif(HLMEM is None, reason="the hlmem console script is not installed")

T1 = "2026-03-01T09:00:00Z"
T2 = "2026-03-02T09:00:00Z"
T3 = "2026-03-03T09:00:00Z"


def hlmem(db: Path, *args: str, now: str = T1, stdin: str | None = "") -> Run:
    """Run the command with the hash embedder, a fixed clock and no terminal on stdin."""
    return run_cli(db, ["--embedder", "hash", "--now", now, *args], stdin=stdin, shown=args)


def values(db: Path, query: str) -> list[str]:
    return [i["value"] for i in hlmem(db, "recall", query, "--kind", "claim", "--json", now=T3).json()["items"]]


def test_backup_restore_and_audit_from_the_command_line(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    assert hlmem(db, "remember", "--subject", "user", "--predicate", "lives_in", "--value", "上海").code == 0
    saved = hlmem(db, "backup", str(tmp_path / "b.db"), "--json").json()
    assert saved["backup_id"].startswith("bk_") and saved["position"] == 1 and saved["size_bytes"] > 0
    assert saved["created_at"] == "2026-03-01T09:00:00.000000Z" and saved["store_id"].startswith("st_")

    plain = hlmem(db, "backup", str(tmp_path))
    assert plain.code == 0 and plain.out.startswith("backup bk_") and "log position 1" in plain.out
    again = hlmem(db, "backup", str(tmp_path / "b.db"))
    assert again.code == 1 and again.err.startswith("error:") and "exists" in again.err

    assert hlmem(db, "remember", "--subject", "user", "--predicate", "lives_in", "--value", "Berlin",
                 now=T2).code == 0
    assert values(db, "lives_in") == ["Berlin"]

    # Without a terminal and without --yes, nothing happens.
    refused = hlmem(db, "restore", str(tmp_path / "b.db"), now=T3)
    assert refused.code == 2 and "--yes" in refused.err
    assert values(db, "lives_in") == ["Berlin"]

    done = hlmem(db, "restore", str(tmp_path / "b.db"), "--yes", "--reason", "undo the move", "--json", now=T3).json()
    assert done["backup"]["backup_id"] == saved["backup_id"] and done["position"] == 2
    assert done["reapplied"] == 0 and done["ledger_applied"] and not done["forced"]
    assert values(db, "lives_in") == ["上海"]

    (tmp_path / "junk.db").write_bytes(b"not a backup" * 500)
    # Reads (and a refused restore) together: in parallel when each is a process paying the start-up.
    with ThreadPoolExecutor(max_workers=4) as pool:
        audit_json, forgets, table, bad_kind, junk = pool.map(lambda args: hlmem(db, *args, now=T3), [
            ("audit", "--json"), ("audit", "--kind", "forget", "--json"), ("audit",), ("audit", "--kind", "delete"),
            ("restore", str(tmp_path / "junk.db"), "--yes")])
    audit = audit_json.json()["items"]
    assert [(e["kind"], e["target"], e["actor"], e["detail"]) for e in audit] == [
        ("restore", saved["backup_id"], "user", "undo the move")]
    assert audit[0]["at"] == "2026-03-03T09:00:00.000000Z" and audit[0]["extra"]["backup_position"] == "1"
    assert forgets.json()["items"] == []
    assert table.code == 0 and "restore" in table.out
    assert bad_kind.code == 2
    assert junk.code == 1 and junk.err.startswith("error:") and "Traceback" not in junk.err
    assert values(db, "lives_in") == ["上海"]


def test_backup_and_restore_through_a_symlinked_db(tmp_path: Path) -> None:
    """Issue 33 item 4: ``--db`` a symbolic link to the store. The backup reads the real store;
    restore goes into the file the link points to and the link stays a link (before, the rename
    replaced the link with a plain file and the real store was never restored)."""
    real = tmp_path / "data" / "memory.db"
    real.parent.mkdir()
    link = tmp_path / "link.db"
    link.symlink_to(real)
    assert hlmem(link, "remember", "--subject", "user", "--predicate", "lives_in", "--value", "上海").code == 0
    saved = hlmem(link, "backup", str(tmp_path / "b.db"), "--json").json()
    assert saved["position"] == 1
    # The store itself, through the link or not, is never a backup target; nor is a link.
    for target in (link, real):
        refused = hlmem(link, "backup", str(target), "--overwrite")
        assert refused.code == 1 and "is the store itself" in refused.err, refused
    other = tmp_path / "latest.db"
    other.symlink_to(tmp_path / "b.db")
    refused = hlmem(link, "backup", str(other), "--overwrite")
    assert refused.code == 1 and "symbolic link" in refused.err and other.is_symlink(), refused
    assert hlmem(link, "remember", "--subject", "user", "--predicate", "lives_in", "--value", "Berlin",
                 now=T2).code == 0

    done = hlmem(link, "restore", str(tmp_path / "b.db"), "--yes", "--json", now=T3)
    assert done.code == 0, done
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert any("symbolic link" in n for n in done.json()["notes"])
    assert values(real, "lives_in") == values(link, "lives_in") == ["上海"]
    assert sorted(p.name for p in real.parent.iterdir() if p.name.startswith(".")) == []  # no temp files left

    # Disaster recovery through a link whose file is gone: the file is made where it points.
    for suffix in ("", "-wal", "-shm"):
        Path(f"{real}{suffix}").unlink(missing_ok=True)
    again = hlmem(link, "restore", str(tmp_path / "b.db"), "--yes", now=T3)
    assert again.code == 0 and link.is_symlink() and real.is_file(), again
    assert values(link, "lives_in") == ["上海"]

    loop = tmp_path / "loop.db"
    loop.symlink_to(loop)
    looped = hlmem(loop, "restore", str(tmp_path / "b.db"), "--yes", now=T3)
    assert looped.code != 0 and "does not resolve" in looped.err and "Traceback" not in looped.err, looped
