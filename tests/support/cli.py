"""Running the installed ``hlmem`` console script from tests: one environment, one result type."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from attrs import frozen

#: The installed console script (None when hlmem is not installed: tests skip).
HLMEM = shutil.which("hlmem")


@frozen
class Run:
    """One finished command."""

    args: tuple[str, ...]
    code: int
    out: str
    err: str

    def json(self) -> Any:
        assert self.code == 0, self
        return json.loads(self.out)


def cli_env(db: Path, **extra: str) -> dict[str, str]:
    """This process's environment without any ``HLMEM_*`` setting, pointed at ``db``, plain output."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HLMEM_")}
    env.update(HLMEM_DB=str(db), NO_COLOR="1", COLUMNS="200", PYTHONIOENCODING="utf-8")
    env.update(extra)
    return env


def run_cli(db: Path, argv: Sequence[str], *, env: dict[str, str] | None = None, stdin: str | None = None,
            timeout: float = 180, shown: Sequence[str] | None = None) -> Run:
    """Run ``hlmem *argv`` in ``db``'s folder; ``shown`` is what the Run reports as its args."""
    assert HLMEM is not None, "the hlmem console script is not installed"
    done = subprocess.run([HLMEM, *argv], env=env or cli_env(db), capture_output=True, text=True, timeout=timeout,
                          input=stdin, cwd=db.parent)
    return Run(tuple(shown if shown is not None else argv), done.returncode, done.stdout, done.stderr)
