"""``ops report`` from the store's tables (ADR 0035, docs/operations.md "ops report")."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace

import pytest
from attrs import evolve

from hlmem.adapters.llm.ledger import LLMCall
from hlmem.adapters.ops.report import budget_warnings, parse_since, percentile, report_dict
from hlmem.adapters.sqlite.heartbeat import SQLiteHeartbeats
from hlmem.adapters.sqlite.ledger import SQLiteLedger
from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.application.ports import WorkerBeat
from hlmem.domain.errors import ValidationError
from hlmem.domain.time import to_micros

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)
PLENTY = SimpleNamespace(free=50 << 30)


def _free(_path):
    return PLENTY


def _call(n: int, *, status: str = "ok", at: datetime = NOW - timedelta(hours=1), latency: int = 100,
          model: str = "glm-4-flash", operation: str = "extract") -> LLMCall:
    return LLMCall(call_id=f"c{n}", attempt=1, provider="zhipu", model=model, operation=operation, job_id=None,
                   status=status, error_class=None if status == "ok" else "ProviderTimeout", http_status=None,
                   prompt_tokens=100, completion_tokens=20, latency_ms=latency, created_at=at)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "s.db"
    SQLiteStorage(path).close()
    return path


def test_an_empty_store_and_a_missing_one_report_zeros(store: Path, tmp_path: Path) -> None:
    for path in (store, tmp_path / "missing.db"):
        data = report_dict(path, now=NOW, since=NOW - timedelta(days=1), disk_usage=_free)
        assert data["providers"] == [] and data["jobs"]["total"] == 0 and data["worker"] is None
        assert data["jobs"]["counts"] == {"pending": 0, "running": 0, "failed": 0, "succeeded": 0, "dead": 0}
        assert data["conflicts"] == {"open": 0} and data["warnings"] == [] and data["embeddings"] == []
    assert not (tmp_path / "missing.db").exists() and report_dict(
        tmp_path / "missing.db", now=NOW, since=NOW, disk_usage=_free)["storage"]["total"] == 0


def test_providers_per_model_and_operation_within_the_period(store: Path) -> None:
    ledger = SQLiteLedger.open(store)
    for i, latency in enumerate([100, 200, 300, 400, 1000]):
        ledger.record(_call(i, latency=latency))
    ledger.record(_call(10, status="timeout", latency=5000))
    ledger.record(_call(11, status="rate_limited"))
    ledger.record(_call(12, at=NOW - timedelta(days=3)))  # before the period
    ledger.record(_call(13, operation="dedup_audit"))
    ledger.close()
    data = report_dict(store, now=NOW, since=parse_since("24h", NOW), disk_usage=_free)
    [audit, extract] = data["providers"]
    assert (audit["operation"], audit["requests"]) == ("dedup_audit", 1)
    assert extract == {
        "provider": "zhipu", "model": "glm-4-flash", "operation": "extract", "requests": 7, "calls": 7,
        "successes": 5, "errors": {"rate_limited": 1, "timeout": 1}, "tokens_in": 700, "tokens_out": 140,
        "latency_ms": {"p50": 300, "p95": 5000}, "capability": "chat", "items": None, "cost": None,
        "unknown_cost": 5}  # recorded without a budget: no price, so the cost of each success is unknown
    assert [w["code"] for w in data["warnings"]] == ["provider_errors"]  # 2 of 7 failed: over 20 %
    priced = report_dict(store, now=NOW, since=parse_since("24h", NOW), disk_usage=_free, priced=True)
    assert [w["code"] for w in priced["warnings"]] == ["unknown_cost", "provider_errors", "unknown_cost"]


def test_capability_items_and_cost_are_summed_from_the_ledger(store: Path) -> None:
    ledger = SQLiteLedger.open(store)
    ledger.record(evolve(_call(1, operation="rerank"), capability="rerank", items=12, cost=0.5))
    ledger.record(evolve(_call(2, operation="rerank"), capability="rerank", items=8, cost=None))
    ledger.close()
    [p] = report_dict(store, now=NOW, since=NOW - timedelta(days=1), disk_usage=_free)["providers"]
    assert (p["capability"], p["items"], p["cost"], p["unknown_cost"]) == ("rerank", 20, 0.5, 1)


def test_embeddings_kept_per_model(tmp_path: Path) -> None:
    from hlmem import Memory

    db = tmp_path / "e.db"
    with Memory(db, embedder="hash") as mem:
        for text in ("我住在杭州", "I like tea", "我住在杭州"):  # the same text is embedded once
            mem.add(text, session="s", extract=False)
        model = mem._container.raw_embedder().model_id
    data = report_dict(db, now=NOW, since=NOW - timedelta(days=1), disk_usage=_free)
    assert data["embeddings"] == [{"model": model, "passages": 2}]


def test_a_store_from_before_the_budget_reports_null_items_and_cost(store: Path) -> None:
    ledger = SQLiteLedger.open(store)
    ledger.record(_call(1))
    ledger.close()
    con = __import__("apsw").Connection(str(store))
    con.execute("ALTER TABLE llm_calls DROP COLUMN cost; ALTER TABLE llm_calls DROP COLUMN items; "
                "ALTER TABLE llm_calls DROP COLUMN capability; DROP TABLE budget_reservations")
    con.close()
    data = report_dict(store, now=NOW, since=NOW - timedelta(days=1), disk_usage=_free)
    [p] = data["providers"]
    assert (p["capability"], p["items"], p["cost"], p["unknown_cost"]) == (None, None, None, None)
    assert data["budget"] is None


def test_jobs_worker_conflicts_storage_and_warnings(store: Path, tmp_path: Path) -> None:
    s = SQLiteStorage(store)
    try:
        con = s.db.con
        rows = [("jb_1", "pending", NOW - timedelta(minutes=30), None), ("jb_2", "pending", NOW - timedelta(minutes=5), None),
                ("jb_3", "dead", NOW - timedelta(hours=2), "ProviderRejected: model not found"),
                ("jb_4", "succeeded", NOW - timedelta(hours=1), None)]
        for job_id, state, at, error in rows:
            con.execute("INSERT INTO jobs (job_id, kind, idempotency_key, namespace, session_id, payload, state, "
                        "attempts, max_attempts, available_at, last_error, last_error_class, created_at, updated_at) "
                        "VALUES (?, 'extract', ?, 'default', 's', '{}', ?, 5, 5, 0, ?, ?, ?, ?)",
                        (job_id, job_id, state, error, error and "ProviderRejected", to_micros(at), to_micros(at)))
        con.execute("INSERT INTO conflicts VALUES ('cf_1', 'default', 'k', 'open', 1, 'x', '{}'), "
                    "('cf_2', 'default', 'k', 'resolved', 2, 'x', '{}')")
        SQLiteHeartbeats(s.db).beat(WorkerBeat(owner="h:9:aa", pid=9, host="h", started_at=NOW - timedelta(hours=5),
                                               last_beat=NOW - timedelta(hours=1), state="idle", jobs_done=4))
    finally:
        s.close()
    backups = tmp_path / "backups"
    backups.mkdir()
    (backups / "one.db").write_bytes(b"x" * 1000)
    data = report_dict(store, now=NOW, since=NOW - timedelta(days=1), backups=backups,
                       disk_usage=lambda _p: SimpleNamespace(free=200 << 20))
    jobs = data["jobs"]
    assert jobs["counts"] == {"pending": 2, "running": 0, "failed": 0, "succeeded": 1, "dead": 1}
    assert jobs["oldest_pending_age_s"] == 1800.0
    assert [(d["id"], d["error"]) for d in jobs["dead"]] == [("jb_3", "ProviderRejected: model not found")]
    assert data["worker"]["freshness"] == "stale" and data["worker"]["jobs_done"] == 4
    assert data["conflicts"] == {"open": 1}
    assert data["storage"]["backups"] == {"path": str(backups), "files": 1, "bytes": 1000}
    assert data["storage"]["db"] == store.stat().st_size
    assert [w["code"] for w in data["warnings"]] == ["worker_inactive", "dead_jobs", "disk_low"]


def test_the_report_never_writes_the_store(store: Path) -> None:
    SQLiteLedger.open(store).close()
    before = (hashlib.sha256(store.read_bytes()).hexdigest(), store.stat().st_mtime_ns)
    report_dict(store, now=NOW, since=NOW - timedelta(days=1), disk_usage=_free)
    assert (hashlib.sha256(store.read_bytes()).hexdigest(), store.stat().st_mtime_ns) == before


@pytest.mark.parametrize(("text", "back"), [("90m", timedelta(minutes=90)), ("24h", timedelta(hours=24)),
                                            ("7d", timedelta(days=7)), ("2w", timedelta(weeks=2)),
                                            ("30s", timedelta(seconds=30)), (None, timedelta(hours=24))])
def test_since_durations(text: str | None, back: timedelta) -> None:
    assert parse_since(text, NOW) == NOW - back


def test_since_timestamps_and_bad_input() -> None:
    assert parse_since("2026-03-01T00:00:00Z", NOW) == datetime(2026, 3, 1, tzinfo=timezone.utc)
    with pytest.raises(ValidationError, match="duration such as 90m"):
        parse_since("yesterday", NOW)
    with pytest.raises(ValidationError, match="after now"):
        parse_since("2027-01-01T00:00:00Z", NOW)


def test_percentiles_are_nearest_rank() -> None:
    assert percentile([], 50) is None
    assert [percentile([5], 95), percentile([1, 2, 3, 4], 50), percentile(list(range(1, 101)), 95)] == [5, 2, 95]


def test_budget_warnings_from_the_budget_ledgers_summary() -> None:
    assert budget_warnings(None) == []
    summary = {"requests": {"used": 85, "limit": 100}, "tokens": {"used": 10, "limit": 1000},
               "cost": {"used": 0.9, "limit": 1.0}, "unknown_cost": 2}
    assert [(w["code"], w["message"].split(":")[0]) for w in budget_warnings(summary)] == [
        ("budget_near_limit", "requests today"), ("budget_near_limit", "cost today"), ("unknown_cost", "2 calls of unknown cost today")]
