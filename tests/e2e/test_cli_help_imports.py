"""``hlmem --help`` opens no store and loads no segmenter, model or SQLite module (ADR 0030).

Asserted on what the process imported (``-X importtime`` lists every module it loaded), not on
time: a timed test fails on a loaded machine and passes on a fast one whatever the code does.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

#: Loaded by a command that reads or writes the store, never by ``--help``.
HEAVY = ("jieba", "apsw", "numpy", "numba", "httpx", "sqlite_vec", "hlmem.adapters.sqlite", "hlmem.adapters.memory_api",
         "hlmem.adapters.container")


def imported_by(args: list[str], tmp_path: Path) -> tuple[subprocess.CompletedProcess, set[str]]:
    env = {**os.environ, "HLMEM_DB": str(tmp_path / "never.db")}
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "hlmem", *args], capture_output=True, text=True,
                          timeout=120, env=env, cwd=tmp_path)
    modules = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines()
               if line.startswith("import time:") and "|" in line}
    return done, modules


def heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


@pytest.mark.parametrize("args", [["--help"], ["recall", "--help"], ["forget", "--help"], ["restore", "--help"]])
def test_help_imports_no_store_and_no_segmenter(args: list[str], tmp_path: Path) -> None:
    done, modules = imported_by(args, tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Usage:" in done.stdout
    assert "hlmem.adapters.cli.main" in modules  # the listing sees our own imports
    assert heavy(modules) == []
    assert not (tmp_path / "never.db").exists()


def test_the_import_list_sees_a_store_being_opened(tmp_path: Path) -> None:
    """The check can fail: a command that opens the store shows apsw and the SQLite adapter."""
    done, modules = imported_by(["--embedder", "none", "stats", "--json"], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "apsw" in heavy(modules) and "hlmem.adapters.sqlite.store" in heavy(modules)
