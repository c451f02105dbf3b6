"""``hlmem jobs`` says why a job waits for the budget (ADR 0034): the reason and until when, as a table and JSON."""

from __future__ import annotations

import json
import sys
from datetime import datetime, timezone
from pathlib import Path

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support.cli import cli_env, run_cli  # noqa: E402
from support.llm_server import ScriptedLLMServer  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.adapters.settings import Settings  # noqa: E402

T0 = datetime(2026, 12, 3, 9, 30, tzinfo=timezone.utc)


def test_jobs_shows_a_job_deferred_by_the_budget(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with ScriptedLLMServer() as server:
        llm = {"provider": "local", "base_url": server.base_url, "model": "m", "max_retries": 0}
        with Memory(db, embedder="none", now=T0, llm=llm,
                    settings=Settings.from_mapping({"budget": {"requests_per_day": 0}})) as mem:
            mem.add("I live in Paris", session="s1")
            assert server.requests == []
    env = cli_env(db, HLMEM_EMBEDDER="none")
    listed = run_cli(db, ["jobs", "--json"], env=env)
    assert listed.code == 0, listed
    (job,) = json.loads(listed.out)["jobs"]
    assert (job["state"], job["attempts"], job["last_error_class"]) == ("pending", 0, "BudgetExceeded")
    assert job["waiting"].startswith("waiting for the budget until 2026-12-04T00:00:00")
    assert "requests_per_day" in job["waiting"]
    table = run_cli(db, ["jobs"], env=env)
    assert table.code == 0 and "waiting for the budget until 2026-12-04" in table.out, table


def test_a_job_the_worker_deferred_counts_as_pending_in_hlmem_jobs(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with ScriptedLLMServer() as server:
        env = cli_env(db, HLMEM_EMBEDDER="none")
        with Memory(db, embedder="none", now=T0) as mem:
            mem.add("I live in Paris", session="s1", process=False)
        llm = {"provider": "local", "base_url": server.base_url, "model": "m", "max_retries": 0}
        with Memory(db, embedder="none", now=T0, llm=llm,
                    settings=Settings.from_mapping({"budget": {"requests_per_day": 0}})) as mem:
            stats = mem.run_worker()
        assert (stats.jobs_deferred, stats.jobs_failed, server.requests) == (1, 0, [])
    listed = json.loads(run_cli(db, ["jobs", "--json"], env=env).out)
    assert listed["counts"] == {"extract": {"pending": 1}}
