"""Migration ``0013_budget`` on a store made before it: old ledger rows read back with the new fields' defaults."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from hlmem.adapters.sqlite.connection import open_connection
from hlmem.adapters.sqlite.ledger import SQLiteLedger
from hlmem.adapters.sqlite.migrations import MIGRATIONS, applied, migrate

T0 = datetime(2026, 12, 3, 9, 30, tzinfo=timezone.utc)


def test_old_llm_calls_read_back_as_chat_or_rerank_without_items_or_cost(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    con = open_connection(path)
    con.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    before = [m.name for m in MIGRATIONS].index("0013_budget")
    for migration in MIGRATIONS[:before]:  # the store as the release before the budget left it
        migration.apply(con)
        con.execute("INSERT INTO _migrations(name, applied_at) VALUES (?, ?)", (migration.name, T0.isoformat()))
    for n, operation in enumerate(["extract", "rerank"], start=1):
        con.execute("INSERT INTO llm_calls (call_id, attempt, provider, model, operation, job_id, status, "
                    "error_class, http_status, prompt_tokens, completion_tokens, latency_ms, created_at) "
                    "VALUES (?, 1, 'openai', 'm', ?, NULL, 'ok', NULL, 200, 10, 2, 5, '2026-12-03T09:30:00.000000Z')",
                    (f"c{n}", operation))
    assert migrate(con, T0.isoformat()) == [m.name for m in MIGRATIONS[before:]]
    assert applied(con)[before] == "0013_budget"
    calls = SQLiteLedger(con).calls()
    assert [(c.operation, c.capability, c.items, c.cost, c.prompt_tokens) for c in calls] == [
        ("extract", "chat", None, None, 10), ("rerank", "rerank", None, None, 10)]
    assert con.execute("SELECT count(*) FROM budget_reservations").fetchone() == (0,)
    con.close()
