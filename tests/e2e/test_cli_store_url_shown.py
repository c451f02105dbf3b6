"""A PostgreSQL URL's password never reaches what ``hlmem`` prints (docs/postgres.md).

``doctor``, ``ops report``, ``config show`` and a failed ``stats`` show the store they were given;
for a ``postgresql://user:password@host/db`` URL they show ``user:***@host/db``. No server is
needed: the URL points at a port nothing listens on, which is also what a user with a typo sees.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support.cli import HLMEM, Run, cli_env, run_cli  # noqa: E402

from hlmem.adapters.postgres.db import redacted_url, shown_store  # noqa: E402

pytestmark = pytest.mark.skipif(HLMEM is None, reason="the hlmem console script is not installed")

SECRET = "s3cr3t-Pa55"
URL = f"postgresql://bob:{SECRET}@127.0.0.1:9/memories?sslmode=disable"


def _hlmem(folder: Path, *args: str) -> Run:
    run = run_cli(folder / "unused.db", list(args), env=cli_env(folder / "unused.db", HLMEM_DB=URL,
                                                                HLMEM_EMBEDDER="hash"), shown=args)
    assert "Traceback" not in run.out + run.err, run
    return run


@pytest.mark.parametrize("args", [("doctor", "--json"), ("doctor",), ("ops", "report", "--json"),
                                  ("config", "show", "--json"), ("stats", "--json"), ("stats",)])
def test_the_password_is_not_printed(tmp_path: Path, args: tuple[str, ...]) -> None:
    run = _hlmem(tmp_path, *args)
    assert SECRET not in run.out + run.err, run
    if args[0] in ("doctor", "config"):
        assert "bob:***@127.0.0.1:9/memories" in run.out.replace("\n", ""), run


@pytest.mark.parametrize(("url", "shown"), [
    (URL, "postgresql://bob:***@127.0.0.1:9/memories?sslmode=disable"),
    ("postgres://bob@db.example/mem", "postgres://bob@db.example/mem"),
    ("postgresql://db.example/mem?user=bob&password=hunter2&sslmode=require",
     "postgresql://db.example/mem?user=bob&password=***&sslmode=require"),
    ("postgresql://bob:p%40ss:word@[::1]:5432/mem", "postgresql://bob:***@[::1]:5432/mem"),
    ("postgresql:///mem?host=/run/postgresql&PASSWORD=x", "postgresql:///mem?host=/run/postgresql&PASSWORD=***"),
])
def test_redacted_url(url: str, shown: str) -> None:
    assert redacted_url(url) == shown
    assert shown_store(url) == shown


def test_a_file_path_is_shown_as_given() -> None:
    assert shown_store("/data/bob:secret@home/memory.db") == "/data/bob:secret@home/memory.db"
