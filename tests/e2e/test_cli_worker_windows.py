"""``hlmem worker --window/--idle/--max-wait``: the window settings reach the worker (ADR 0013)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from hlmem.adapters.cli.main import cli

NOW = "2026-03-01T09:30:00Z"


def run(db: Path, *args: str):
    return CliRunner().invoke(cli, ["--db", str(db), "--now", NOW, "--embedder", "none", *args])


def test_worker_once_uses_the_window_size_given(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    for i in range(5):
        assert run(db, "add", f"note {i} about the garden", "--session", "s1", "--defer").exit_code == 0
    result = run(db, "worker", "--once", "--window", "2", "--idle", "30", "--max-wait", "90", "--json")
    assert result.exit_code == 0, result.output
    stats = json.loads(result.output)
    assert (stats["windows"], stats["jobs_succeeded"], stats["jobs_failed"]) == (3, 5, 0)  # 2 + 2 + 1


def test_worker_once_defaults_to_windows_of_eight(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    for i in range(9):
        assert run(db, "add", f"note {i}", "--session", "s1", "--defer").exit_code == 0
    stats = json.loads(run(db, "worker", "--once", "--json").output)
    assert (stats["windows"], stats["jobs_succeeded"]) == (2, 9)  # 8 + 1


@pytest.mark.parametrize("args", [("--window", "0"), ("--window", "2.5"), ("--idle", "-1"), ("--max-wait", "-5"),
                                  ("--maintenance-every", "-1"), ("--maintenance-every", "soon")])
def test_invalid_window_settings_are_usage_errors(tmp_path: Path, args: tuple[str, str]) -> None:
    result = run(tmp_path / "m.db", "worker", "--once", *args)
    assert result.exit_code == 2
    assert args[0] in result.output


def test_worker_takes_a_maintenance_interval(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    assert run(db, "add", "note about the garden", "--session", "s1", "--defer").exit_code == 0
    result = run(db, "worker", "--once", "--maintenance-every", "0", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["jobs_succeeded"] == 1
