"""``PostgresCallLedger``: the LLM-call ledger in the store's database (table ``llm_calls``; ADR 0074).

Every process of the store records its provider attempts here, so ``ops report`` and the budget
see them all. Attempts are recorded and read on a connection of their own (a record commits on
its own, never inside, or waiting on, a store transaction); maintenance prunes on the store's
connection, inside its transaction. Columns and values are SQLite's (adapters/sqlite/ledger.py).
"""

from __future__ import annotations

from datetime import datetime

from hlmem.adapters.llm.ledger import LLMCall
from hlmem.adapters.postgres.db import PgDb, translated
from hlmem.adapters.postgres.side import SideConnection
from hlmem.domain.time import format_timestamp, parse_timestamp

__all__ = ["PostgresCallLedger"]

_COLUMNS = ("call_id", "attempt", "provider", "model", "operation", "job_id", "status", "error_class",
            "http_status", "prompt_tokens", "completion_tokens", "latency_ms", "created_at", "capability", "items",
            "cost")


class PostgresCallLedger:
    """A :class:`hlmem.adapters.llm.ledger.LedgerSink` and ``CallLedger`` on the store's database."""

    def __init__(self, url: str, db: PgDb) -> None:
        self._side = SideConnection(url, "the LLM ledger")
        self._db = db

    def record(self, call: LLMCall) -> None:
        """Insert one attempt (autocommit: one statement, one transaction).

        :raises StorageError: when the row cannot be written.
        """
        row = (call.call_id, call.attempt, call.provider, call.model, call.operation, call.job_id, call.status,
               call.error_class, call.http_status, call.prompt_tokens, call.completion_tokens, call.latency_ms,
               format_timestamp(call.created_at), call.capability, call.items, call.cost)
        with self._side.use() as con, translated("recording an LLM call"):
            con.execute(f"INSERT INTO llm_calls ({', '.join(_COLUMNS)}) VALUES ({', '.join(['%s'] * len(_COLUMNS))})",
                        row)

    def calls(self, job_id: str | None = None, limit: int | None = None) -> list[LLMCall]:
        """Recorded attempts, oldest first; only those serving ``job_id`` when given."""
        sql = f"SELECT {', '.join(_COLUMNS)} FROM llm_calls"
        args: list[object] = []
        if job_id is not None:
            sql += " WHERE job_id = %s"
            args.append(job_id)
        sql += " ORDER BY seq"
        if limit is not None:
            sql += " LIMIT %s"
            args.append(limit)
        with self._side.use() as con, translated("reading the LLM ledger"):
            rows = con.execute(sql, args).fetchall()
        return [_call(row) for row in rows]

    def totals(self) -> dict[str, int]:
        """Logical calls, attempts, tokens, and attempts per status (``status:<name>`` keys)."""
        with self._side.use() as con, translated("reading the LLM ledger"), con.transaction():
            calls, attempts, prompt, completion = con.execute(
                "SELECT count(DISTINCT call_id), count(*), coalesce(sum(prompt_tokens), 0), "
                "coalesce(sum(completion_tokens), 0) FROM llm_calls").fetchone()
            by_status = con.execute("SELECT status, count(*) FROM llm_calls GROUP BY status").fetchall()
        out = {"calls": calls, "attempts": attempts, "prompt_tokens": int(prompt), "completion_tokens": int(completion)}
        out.update({f"status:{status}": n for status, n in by_status})
        return out

    def prune(self, *, before: datetime, limit: int, dry_run: bool = False) -> int:
        """Delete up to ``limit`` attempts recorded before ``before``, oldest first (maintenance,
        ADR 0015), in the store's open transaction if there is one.

        :raises StorageError: when the rows cannot be deleted.
        """
        pick = "SELECT seq FROM llm_calls WHERE created_at < %s ORDER BY created_at, seq LIMIT %s"
        args = (format_timestamp(before), max(limit, 0))
        with self._db.lock, translated("pruning the LLM ledger"):
            if dry_run:
                return self._db.con.execute(f"SELECT count(*) FROM ({pick}) AS old", args).fetchone()[0]
            return self._db.con.execute(f"DELETE FROM llm_calls WHERE seq IN ({pick})", args).rowcount

    def close(self) -> None:
        self._side.close()


def _call(row: tuple) -> LLMCall:
    values = dict(zip(_COLUMNS, row))
    values["created_at"] = parse_timestamp(values["created_at"], field="created_at")
    return LLMCall(**values)
