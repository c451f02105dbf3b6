"""``hlmem relations list|show|accept|reject|scan`` through the console script's entry function
(tests/support/cli.py); set-up through ``Memory`` (docs/relations.md)."""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support.cli import HLMEM, run_cli  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.adapters.settings import Settings  # noqa: E402

pytestmark = pytest.mark.skipif(HLMEM is None, reason="the hlmem console script is not installed")

T0 = datetime(2026, 3, 2, 1, 0, tzinfo=timezone.utc)


def test_the_review_queue_from_the_command_line(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory(db, embedder="none", now=T0, settings=Settings()) as mem:  # written while relations were off
        mem.add("My sister Anna works at Acme.")
    cli = ["--embedder", "none"]
    empty = run_cli(db, [*cli, "relations", "list"])
    assert empty.code == 0 and "relations are off" in empty.err
    scanned = run_cli(db, [*cli, "relations", "scan", "--json"]).json()
    assert len(scanned["proposed"]) == 2 and not scanned["corroborated"]
    queue = run_cli(db, [*cli, "relations", "list", "--json"]).json()
    assert queue["next_cursor"] is None
    by_relation = {r["relation"]: r for r in queue["items"]}
    assert set(by_relation) == {"sibling", "works_at"}
    sibling = by_relation["sibling"]
    assert (sibling["source"]["kind"], sibling["target"]["name"], sibling["status"]) == ("user", "Anna", "proposed")
    accepted = run_cli(db, [*cli, "relations", "accept", sibling["id"], "--reason", "she is", "--json"]).json()
    assert accepted["status"] == "accepted" and accepted["live"] and accepted["reviewed_by"] == "cli"
    assert [e["status"] for e in accepted["evidence_items"]] == ["active", "recorded"]  # the claim, its turn
    rejected = run_cli(db, [*cli, "relations", "reject", by_relation["works_at"]["id"]])
    assert rejected.code == 0 and "rejected · Anna —works_at→ Acme" in rejected.out
    shown = run_cli(db, [*cli, "relations", "show", sibling["id"]])
    assert shown.code == 0 and "accepted · user —sibling→ Anna" in shown.out and "[active]" in shown.out
    assert run_cli(db, [*cli, "relations", "list", "--json"]).json()["items"] == []  # the queue is empty
    everything = run_cli(db, [*cli, "relations", "list", "--status", "all", "--entity", "anna", "--json"]).json()
    assert sorted(r["status"] for r in everything["items"]) == ["accepted", "rejected"]
    page = run_cli(db, [*cli, "relations", "list", "--status", "all", "--limit", "1", "--json"]).json()
    assert len(page["items"]) == 1 and page["next_cursor"] == page["items"][0]["id"]
    missing = run_cli(db, [*cli, "relations", "accept", "rl_nothing"])
    assert missing.code == 1 and "no relation rl_nothing" in missing.err
    bad = run_cli(db, [*cli, "relations", "show", "cl_1"])
    assert bad.code == 1 and "rl_" in bad.err
