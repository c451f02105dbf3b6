"""``SQLiteLedger``: the LLM call ledger in the store's SQLite file (table ``llm_calls``).

The ledger is an operational record, not part of the event log: it is not replayed, and a
rebuild of the projections leaves it alone. Use its own connection (:meth:`SQLiteLedger.open`)
so that a ledger write never joins, or waits on, a storage transaction of another thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import apsw

from hlmem.adapters.llm.ledger import LLMCall
from hlmem.adapters.sqlite.connection import OwnConnection, open_migrated
from hlmem.domain.errors import StorageError
from hlmem.domain.time import format_timestamp, parse_timestamp

_COLUMNS = ("call_id", "attempt", "provider", "model", "operation", "job_id", "status", "error_class",
            "http_status", "prompt_tokens", "completion_tokens", "latency_ms", "created_at", "capability", "items",
            "cost")


class SQLiteLedger:
    """A :class:`hlmem.adapters.llm.ledger.LedgerSink` on an APSW connection."""

    def __init__(self, con: apsw.Connection | None, *, owns_connection: bool = False,
                 opener: Callable[[], apsw.Connection] | None = None) -> None:
        self._own = OwnConnection(con, opener, "the LLM ledger")
        self._owns = owns_connection or con is None
        self._lock = threading.Lock()

    @classmethod
    def open(cls, path: str | Path) -> SQLiteLedger:
        """Open (creating and migrating if needed) the store file at ``path`` on a new connection.

        :raises StorageError: when the file cannot be opened or migrated.
        """
        return cls(open_migrated(path, "the LLM ledger"), owns_connection=True)

    @property
    def _con(self) -> apsw.Connection:
        return self._own.get()

    def record(self, call: LLMCall) -> None:
        """Insert one attempt (autocommit: one statement, one transaction).

        :raises StorageError: when the row cannot be written.
        """
        row = (call.call_id, call.attempt, call.provider, call.model, call.operation, call.job_id, call.status,
               call.error_class, call.http_status, call.prompt_tokens, call.completion_tokens, call.latency_ms,
               format_timestamp(call.created_at), call.capability, call.items, call.cost)
        try:
            with self._lock:
                self._con.execute(
                    f"INSERT INTO llm_calls ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})", row)
        except apsw.Error as exc:
            raise StorageError(f"cannot record an LLM call: {exc}") from exc

    def calls(self, job_id: str | None = None, limit: int | None = None) -> list[LLMCall]:
        """Recorded attempts, oldest first; only those serving ``job_id`` when given."""
        sql = f"SELECT {', '.join(_COLUMNS)} FROM llm_calls"
        args: list[object] = []
        if job_id is not None:
            sql += " WHERE job_id = ?"
            args.append(job_id)
        sql += " ORDER BY seq"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(limit)
        with self._lock:
            rows = self._con.execute(sql, args).fetchall()
        return [_call(row) for row in rows]

    def totals(self) -> dict[str, int]:
        """Logical calls, attempts, tokens, and attempts per status (``status:<name>`` keys)."""
        with self._lock:
            calls, attempts, prompt, completion = self._con.execute(
                "SELECT COUNT(DISTINCT call_id), COUNT(*), COALESCE(SUM(prompt_tokens), 0), "
                "COALESCE(SUM(completion_tokens), 0) FROM llm_calls").fetchone()
            by_status = self._con.execute("SELECT status, COUNT(*) FROM llm_calls GROUP BY status").fetchall()
        out = {"calls": calls, "attempts": attempts, "prompt_tokens": prompt, "completion_tokens": completion}
        out.update({f"status:{status}": n for status, n in by_status})
        return out

    def prune(self, *, before: datetime, limit: int, dry_run: bool = False) -> int:
        """Delete up to ``limit`` attempts recorded before ``before``, oldest first (maintenance, ADR 0015).

        :raises StorageError: when the rows cannot be deleted.
        """
        pick = "SELECT seq FROM llm_calls WHERE created_at < ? ORDER BY created_at LIMIT ?"
        args = (format_timestamp(before), max(limit, 0))
        try:
            with self._lock:
                if dry_run:
                    return self._con.execute(f"SELECT count(*) FROM ({pick})", args).fetchone()[0]
                self._con.execute(f"DELETE FROM llm_calls WHERE seq IN ({pick})", args)
                return self._con.changes()
        except apsw.Error as exc:
            raise StorageError(f"cannot prune the LLM ledger: {exc}") from exc

    def close(self) -> None:
        """Close the connection if this ledger opened it (a borrowed one stays open)."""
        if self._owns:
            self._own.close()


class SQLiteCallLedger(SQLiteLedger):
    """The store's call ledger (ADR 0074): attempts are recorded and read on a connection of its
    own, opened at first use, so a record never joins or waits on a store transaction of another
    thread; maintenance prunes on the store's connection, inside its own transaction (a second
    connection would wait for the write lock that transaction holds)."""

    def __init__(self, path: str | Path, store_con: apsw.Connection) -> None:
        super().__init__(None, opener=lambda: open_migrated(path, "the LLM ledger"))
        self._store = SQLiteLedger(store_con)

    def prune(self, *, before: datetime, limit: int, dry_run: bool = False) -> int:
        return self._store.prune(before=before, limit=limit, dry_run=dry_run)


def _call(row: tuple) -> LLMCall:
    values = dict(zip(_COLUMNS, row))
    values["created_at"] = parse_timestamp(values["created_at"], field="created_at")
    return LLMCall(**values)
