"""``hlmem forget`` through the console script's entry function (tests/support/cli.py): by id (as
recall shows it), --session, --subject (confirmation on a terminal, --yes without one), --dry-run,
--json, repeats, errors.

Set-up that is not under test is written through ``Memory``. The terminal case runs the installed
script on a pseudo-terminal.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support.cli import HLMEM, Run, cli_env, run_cli  # noqa: E402

from hlmem import Memory  # noqa: E402

pytestmark = pytest.mark.skipif(HLMEM is None, reason="the hlmem console script is not installed")

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
NOW = "2026-03-01T10:00:00Z"
SECRET = "violet-secret-bunker-42"


def hlmem(db: Path, *args: str) -> Run:
    run = run_cli(db, ["--now", NOW, *args], env=cli_env(db, HLMEM_EMBEDDER="hash"), timeout=120, shown=args)
    assert "Traceback" not in run.out + run.err, run
    return run


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "cli.db"
    with Memory(path, embedder="hash", now=T0) as mem:
        mem.add(f"My favorite place is {SECRET}", session="s1")
        mem.add("张伟喜欢喝咖啡", session="s2", extract=False)
        mem.remember("张伟", "likes", "coffee")
        mem.add("an unrelated note about tea", session="s3", extract=False)
    return path


def recalled(db: Path, query: str) -> list[dict]:
    return hlmem(db, "recall", query, "--json", "--k", "50").json()["items"]


def texts(db: Path, query: str) -> list[str]:
    """What recall finds, asked through ``Memory`` (not the command under test)."""
    with Memory(db, embedder="hash", now=T0) as mem:
        return [i.text for i in mem.recall(query, k=50).items]


def test_forget_an_id_that_recall_showed_then_again(db: Path) -> None:
    [item] = [i for i in recalled(db, SECRET) if i["kind"] == "event" and SECRET in i["text"]]
    dry = hlmem(db, "forget", item["id"], "--dry-run")
    assert dry.code == 0 and "would forget: event" in dry.out and "dry run: nothing was removed" in dry.out
    assert any(SECRET in t for t in texts(db, SECRET))

    done = hlmem(db, "forget", item["id"], "--reason", "user asked")
    assert done.code == 0, done
    assert "forgot (fg_" in done.out and "events" in done.out and "claims" in done.out
    lines = {line.split()[0]: line.split()[-1] for line in done.out.splitlines()[1:] if line.startswith("  ")}
    assert lines["events"] == "1" and lines["claims"] == "1"  # the claim extracted from it had no other evidence
    assert not any(SECRET in t for t in texts(db, SECRET))

    explained = hlmem(db, "explain", item["id"])
    assert explained.code == 0 and explained.out.strip() == f"{item['id']}: forgotten at 2026-03-01T10:00:00.000000Z"
    assert SECRET not in explained.out
    again = hlmem(db, "forget", item["id"], "--json")
    data = again.json()
    assert data["already_forgotten"] and set(data["counts"].values()) == {0} and data["items"] == []
    blocked = hlmem(db, "add", f"My favorite place is {SECRET}")
    assert blocked.code == 1 and "was forgotten" in blocked.err


def test_forget_subject_needs_yes_without_a_terminal(db: Path) -> None:
    refused = hlmem(db, "forget", "--subject", "张伟")
    assert refused.code == 2 and "--yes" in refused.err
    assert any("张伟" in t for t in texts(db, "张伟"))
    done = hlmem(db, "forget", "--subject", "张伟", "--yes", "--json").json()
    assert done["target_kind"] == "subject" and done["counts"]["events"] == 1 and done["counts"]["claims"] == 1
    assert not any("张伟" in t for t in texts(db, "张伟 咖啡"))


def _on_a_terminal(db: Path, answer: str) -> tuple[int, str]:
    """Run ``forget --subject 张伟`` with a pseudo-terminal as stdin, answering ``answer``."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([HLMEM, "--now", NOW, "forget", "--subject", "张伟"], stdin=follower,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env(db, HLMEM_EMBEDDER="hash"),
                            cwd=db.parent)
    os.close(follower)
    os.write(leader, answer.encode() + b"\n")
    out, err = proc.communicate(timeout=120)
    os.close(leader)
    return proc.returncode, out.decode() + err.decode()


def test_forget_subject_asks_on_a_terminal(db: Path) -> None:
    code, text = _on_a_terminal(db, "n")
    assert code == 1 and "Forget everything about '张伟'?" in text and "would forget" in text
    assert any("张伟" in t for t in texts(db, "张伟"))
    code, text = _on_a_terminal(db, "y")
    assert code == 0 and "forgot (fg_" in text, text
    assert not any("张伟" in t for t in texts(db, "张伟 咖啡"))


def test_forget_a_session_and_the_errors(db: Path) -> None:
    done = hlmem(db, "forget", "--session", "s3", "--json").json()
    assert done["counts"]["events"] == 1 and done["forget_id"].startswith("fg_")
    assert not any("unrelated note" in t for t in texts(db, "unrelated note tea"))
    unknown = hlmem(db, "forget", "cl_nothing")
    assert unknown.code == 1 and unknown.err.strip() == "error: no claim cl_nothing"
    bad = hlmem(db, "forget", "ev_1", "--session", "s1")
    assert bad.code == 2 and "exactly one" in bad.err, bad
    not_an_id = hlmem(db, "forget", "fg_123")
    assert not_an_id.code == 1 and "neither a claim id" in not_an_id.err


def test_a_store_moved_by_replay_keeps_refusing_what_was_forgotten(db: Path, tmp_path: Path) -> None:
    """Issue 33 item 3: ``replay --into`` carries the tombstones and their salt (SQLite to SQLite
    here; tests/integration/test_postgres_replay.py does PostgreSQL, test_moves_keep_forgetting.py
    every pair)."""
    assert hlmem(db, "forget", "--session", "s1", "--json").json()["counts"]["events"] == 1
    assert hlmem(db, "forget", "--subject", "张伟", "--yes").code == 0
    moved = tmp_path / "moved.db"
    run = hlmem(db, "replay", "--into", str(moved))
    with Memory(db, embedder="hash") as mem:
        rows = len(mem.storage.tombstones.tombstones())
    assert run.code == 0 and f"{rows} tombstones carried with the salt" in run.out, run
    for args in (("add", f"my favorite place is {SECRET.upper()}"), ("add", "张伟喜欢喝咖啡"),
                 ("remember", "--subject", "张伟", "--predicate", "likes", "--value", "coffee")):
        again = hlmem(moved, *args)
        assert again.code == 1 and "was forgotten" in again.err, (args, again)
    assert hlmem(moved, "recall", SECRET, "--json").json()["items"] == []
