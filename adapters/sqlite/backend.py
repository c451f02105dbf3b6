"""The SQLite backend (ADR 0074): the store file and everything that lives in it beside the log.

The job queue and the worker heartbeats write on the store's connection (they join its
transactions); the budget ledger and the LLM-call ledger each use a connection of their own,
opened at first use, so a reservation or a recorded attempt commits on its own and a process that
never calls a provider opens nothing more. Every process of the file shares all of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hlmem.adapters.sqlite.budget import SQLiteBudgetLedger
from hlmem.adapters.sqlite.heartbeat import SQLiteHeartbeats
from hlmem.adapters.sqlite.jobs import SQLiteJobQueue
from hlmem.adapters.sqlite.ledger import SQLiteCallLedger
from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.adapters.ids import UlidGenerator
from hlmem.adapters.replay_targets import replay_target
from hlmem.application.ports.backend import Backend

__all__ = ["backend_of", "open_backend", "replay_target"]


def open_backend(path: str | Path, *, synchronous: str = "FULL", new_id: Any = None) -> Backend:
    """Open (creating and migrating if needed) the store file at ``path`` and its backend."""
    return backend_of(SQLiteStorage(path, synchronous=synchronous), new_id=new_id)


def backend_of(store: SQLiteStorage, *, new_id: Any = None) -> Backend:
    """The backend around an open store (its ledgers open their own connections to the same file).

    :param new_id: makes job ids (``new_id("jb")``); None: ULIDs.
    """
    new_id = new_id or UlidGenerator().new
    budget = SQLiteBudgetLedger.deferred(store.path)
    calls = SQLiteCallLedger(store.path, store.connection)

    def close() -> None:
        try:
            calls.close()
            budget.close()
        finally:
            store.close()

    return Backend(store=store, jobs=SQLiteJobQueue(store.db, new_id), budget=budget, calls=calls,
                   heartbeats=SQLiteHeartbeats(store.db), replay_target=replay_target, close=close)
