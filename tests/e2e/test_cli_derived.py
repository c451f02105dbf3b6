"""``hlmem derive``, ``hlmem observations`` and ``hlmem profile`` through the console script's entry
function (tests/support/cli.py); set-up through ``Memory``."""

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

pytestmark = pytest.mark.skipif(HLMEM is None, reason="the hlmem console script is not installed")

T0 = datetime(2026, 3, 2, 1, 0, tzinfo=timezone.utc)


def test_derive_lists_and_profiles_then_a_supersede_shows_stale(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory(db, embedder="none", now=T0) as mem:
        ui = mem.remember("user", "theme", "dark").id
        mem.remember("user", "preferred_editor_theme", "dark")
        mem.remember("小明", "lives_in", "上海")
    cli = ["--embedder", "none"]
    built = run_cli(db, [*cli, "derive", "--json"])
    assert built.code == 0, built.err
    assert built.json()["subjects"] == 2 and len(built.json()["built"]) == 3
    again = run_cli(db, [*cli, "derive"])
    assert again.code == 0 and again.out.strip() == "2 subject(s): built 0, rebuilt 0, removed 0"
    listed = run_cli(db, [*cli, "observations", "--json"]).json()
    assert [o["text"] for o in listed] == [
        "user prefers dark across 2 preferences (preferred editor theme, preferred UI theme)."]
    assert {s["claim_id"] for s in listed[0]["sources"]} >= {ui}
    profile = run_cli(db, [*cli, "profile", "小明"])
    assert profile.code == 0
    assert "小明的画像（1条当前事实）：\n- 小明的地点：住在为上海。" in profile.out
    with Memory(db, embedder="none", now=T0) as mem:
        mem.remember("user", "theme", "light")
    stale = run_cli(db, [*cli, "profile", "user", "--json"]).json()
    assert stale["status"] == "stale" and stale["stale_reason"] == "superseded"
    missing = run_cli(db, [*cli, "profile", "nobody"])
    assert missing.code == 1 and "no mental model of 'nobody'" in missing.err
