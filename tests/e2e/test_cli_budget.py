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


def test_ops_report_shows_todays_budget_from_the_config_files_limits(tmp_path: Path) -> None:
    """The ``[budget]`` table of ``hlmem.toml`` limits the calls (through ``load_settings``) and
    ``ops report`` shows today's spending against it, warning at the limit."""
    from support.llm_server import completion

    from hlmem.adapters.settings_load import load_settings

    db = tmp_path / "m.db"
    config = tmp_path / "hlmem.toml"
    config.write_text(f'db = "{db.name}"\n[budget]\nrequests_per_day = 2\ntokens_per_day = 10000\n', encoding="utf-8")
    answer = completion({"claims": []}, prompt_tokens=120, completion_tokens=30)
    with ScriptedLLMServer() as server:
        server.script(answer, answer, answer)
        llm = {"provider": "local", "base_url": server.base_url, "model": "m", "max_retries": 0, "max_tokens": 64}
        settings = load_settings(config, environ={}).settings
        assert str(db) == settings.db  # relative to the file's folder
        with Memory(settings.db, embedder="none", now=T0, llm=llm, settings=settings) as mem:
            for i, city in enumerate(["Paris", "Oslo", "Lima"]):
                mem.add(f"I live in {city}", session=f"s{i}", process=False)
            assert mem.run_worker().jobs_deferred == 1
        assert len(server.requests) == 2
    env = {k: v for k, v in cli_env(db).items() if k != "HLMEM_DB"}
    run = run_cli(db, ["--config", str(config), "--now", "2026-12-03T12:00:00Z", "ops", "report", "--json"], env=env)
    assert run.code == 0, run
    budget = json.loads(run.out)["budget"]
    assert budget["day"] == "2026-12-03" and budget["resets_at"].startswith("2026-12-04T00:00:00")
    assert budget["requests"] == {"used": 2, "spent": 2, "reserved": 0, "limit": 2}
    assert budget["tokens"] == {"used": 300, "spent": 300, "reserved": 0, "limit": 10000}
    assert budget["cost"]["limit"] is None and budget["unknown_cost"] == 2  # no price book: cost unknown
    codes = [w["code"] for w in json.loads(run.out)["warnings"]]
    assert "budget_near_limit" in codes and "unknown_cost" in codes
    table = run_cli(db, ["--config", str(config), "--now", "2026-12-03T12:00:00Z", "ops", "report"], env=env)
    assert table.code == 0 and "requests 2 of 2" in table.out and "tokens 300 of 10000" in table.out, table
