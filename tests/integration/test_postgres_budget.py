"""Two worker processes on one PostgreSQL store share its daily budget, its call ledger and its heartbeats (ADR 0074).

Before the backend value, a PostgreSQL store kept these per process: with a budget of 3 requests
a day, two workers each spent 3. Here six one-event sessions wait, two processes drain the queue
together against a scripted OpenAI-compatible server on 127.0.0.1, and the server sees exactly 3
requests; the other jobs wait for the next UTC day with their attempts intact. The parent sees
both workers' heartbeats and all three calls in the store's ledger.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support.llm_server import ScriptedLLMServer, completion  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.adapters.ops.store_checks import postgres_worker  # noqa: E402
from hlmem.domain.budget import BudgetLimits  # noqa: E402

WORKER = Path(__file__).resolve().parents[1] / "support" / "pg_budget_worker.py"
BUDGET = 3
SESSIONS = 6


def _reply():
    return completion({"claims": [{
        "event": 1, "subject": "user", "predicate": "likes", "value": "tea", "qualifiers": [], "polarity": True,
        "importance": 0.6, "scope": "permanent", "valid_from": None, "valid_to": None,
        "evidence_quote": "I like tea"}]}, prompt_tokens=100, completion_tokens=20, delay_s=0.05)


def test_two_workers_on_one_postgres_store_spend_the_daily_budget_once(postgres_url: str, tmp_path: Path) -> None:
    with ScriptedLLMServer(fallback=_reply()) as server, Memory(postgres_url, embedder="none") as mem:
        for i in range(SESSIONS):
            mem.add("I like tea", session=f"s{i}", process=False)
        go = tmp_path / "go"
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [_TESTS, os.environ.get("PYTHONPATH")]))}
        workers = [subprocess.Popen([sys.executable, str(WORKER), postgres_url, server.base_url, str(BUDGET),
                                     str(go)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
                   for _ in range(2)]
        try:
            for w in workers:  # both have opened the store before either starts
                assert w.stdout.readline().strip() == "ready", w.stderr.read()
            go.touch()
            outs = [w.communicate(timeout=120) for w in workers]
        finally:
            for w in workers:
                if w.poll() is None:
                    w.kill()
        assert all(w.returncode == 0 for w in workers), [err for _, err in outs]
        stats = [json.loads(out.strip().splitlines()[-1]) for out, _ in outs]

        assert len(server.requests) == BUDGET  # spent once, not once per process
        assert sum(s["succeeded"] for s in stats) == BUDGET
        assert sum(s["deferred"] for s in stats) >= SESSIONS - BUDGET
        assert all(s["failed"] == 0 for s in stats), stats
        now = datetime.now(timezone.utc)
        totals = mem._container.backend().budget.totals(now=now, limits=BudgetLimits(requests_per_day=BUDGET))
        assert totals.spent.requests == BUDGET and totals.reserved.requests == 0
        # The store's ledger holds both processes' calls; its heartbeats, both workers.
        assert len(mem._container.ledger().calls()) == BUDGET
        assert len({b.owner for b in mem._container.heartbeats().beats()}) == 2
        waiting = [j for j in mem.jobs.jobs(limit=100) if j.state == "pending"]
        assert len(waiting) == SESSIONS - BUDGET and all(j.attempts == 0 for j in waiting)
        # ``hlmem doctor`` reads the same heartbeats, without opening the store.
        check = postgres_worker(postgres_url, now)
        newest = mem._container.heartbeats().beats()[0]
        assert check.name == "worker" and newest.owner in check.detail, check
        assert f"{SESSIONS - BUDGET} jobs pending" in check.detail or check.status == "ok", check


def test_a_layout_4_store_is_upgraded_with_the_shared_tables(postgres_url: str) -> None:
    psycopg = pytest.importorskip("psycopg")
    from hlmem.adapters.postgres.schema import SCHEMA_VERSION

    with Memory(postgres_url, embedder="none") as mem:
        mem.add("I like tea", extract=False)
    with psycopg.connect(postgres_url, autocommit=True) as con:  # back to layout 4: no shared tables
        con.execute("DROP TABLE budget_reservations, llm_calls, worker_heartbeats")
        con.execute("UPDATE meta SET value = '4' WHERE key = 'pg_schema'")
    with Memory(postgres_url, embedder="none") as mem:
        assert mem.storage.meta("pg_schema") == SCHEMA_VERSION == "7"
        assert mem._container.ledger().calls() == [] and mem._container.heartbeats().beats() == []
        assert len(list(mem.storage.read())) >= 1


def test_ops_report_of_a_postgres_store_reads_its_shared_tables(postgres_url: str) -> None:
    from datetime import timedelta

    from hlmem.adapters.llm.ledger import LLMCall
    from hlmem.adapters.ops.report import report_dict
    from hlmem.adapters.postgres.db import redacted_url
    from hlmem.application.ports import WorkerBeat
    from hlmem.domain.budget import Charge

    now = datetime.now(timezone.utc)
    with Memory(postgres_url, embedder="none") as mem:
        mem.add("I like tea", session="s1", process=False)
        backend = mem._container.backend()
        for attempt, status in ((1, "timeout"), (2, "ok")):
            backend.calls.record(LLMCall(call_id="c1", attempt=attempt, provider="local", model="m",
                                         operation="extract", job_id=None, status=status, error_class=None,
                                         http_status=200, prompt_tokens=100, completion_tokens=20, latency_ms=40,
                                         created_at=now - timedelta(minutes=5), cost=0.5))
        backend.heartbeats.beat(WorkerBeat(owner="h:1:a", pid=1, host="h", started_at=now, last_beat=now,
                                           state="running", jobs_done=4, last_error=None))
        held = backend.budget.reserve(Charge(tokens=50, cost=0.1), limits=BudgetLimits(), now=now,
                                      expires_at=now + timedelta(minutes=15))
        backend.budget.settle(held.reservation_id, Charge(tokens=40, cost=0.1), now=now)
    data = report_dict(postgres_url, now=now, since=now - timedelta(hours=1),
                       limits=BudgetLimits(requests_per_day=10))
    (provider,) = data["providers"]
    assert (provider["requests"], provider["calls"], provider["successes"], provider["errors"]) == (
        2, 1, 1, {"timeout": 1})
    assert provider["cost"] == 1.0 and provider["capability"] == "chat"
    assert data["jobs"]["counts"]["pending"] == 1 and data["worker"]["owner"] == "h:1:a"
    assert data["budget"]["requests"] == {"used": 1, "spent": 1, "reserved": 0, "limit": 10}
    assert data["exists"] and data["store"] == redacted_url(postgres_url)  # no password shown
