"""The PostgreSQL backend (ADR 0074): one database holds the store and every part shared by its processes.

The job queue and the heartbeats write on the store's connection (they join its transactions);
the budget ledger and the LLM-call ledger each open a connection of their own at first use (their
rows commit on their own). Tables: adapters/postgres/schema.py (layout 5).
"""

from __future__ import annotations

from typing import Any

from hlmem.adapters.postgres.budget import PostgresBudgetLedger
from hlmem.adapters.postgres.heartbeat import PostgresHeartbeats
from hlmem.adapters.postgres.jobs import PostgresJobQueue
from hlmem.adapters.postgres.ledger import PostgresCallLedger
from hlmem.adapters.postgres.store import PostgresStorage
from hlmem.adapters.ids import UlidGenerator
from hlmem.adapters.replay_targets import replay_target
from hlmem.application.ports.backend import Backend

__all__ = ["open_backend"]


def open_backend(url: str, *, new_id: Any = None) -> Backend:
    """Connect to the database at ``url`` (making or upgrading its tables) and build its backend.

    :param new_id: makes job ids (``new_id("jb")``); None: ULIDs.
    """
    new_id = new_id or UlidGenerator().new
    store = PostgresStorage(url)
    budget, calls = PostgresBudgetLedger(url), PostgresCallLedger(url, store.db)

    def close() -> None:
        try:
            calls.close()
            budget.close()
        finally:
            store.close()

    return Backend(store=store, jobs=PostgresJobQueue(store.db, new_id), budget=budget, calls=calls,
                   heartbeats=PostgresHeartbeats(store.db), replay_target=replay_target, close=close)
