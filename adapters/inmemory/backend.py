"""The in-process backend of ``Memory(":memory:")`` (ADR 0074): every part in this process's memory.

There is no other process to share with: the budget, the call ledger and the heartbeats are
this process's, which is all an in-process store can mean.
"""

from __future__ import annotations

from typing import Any

from hlmem.adapters.inmemory.budget import InMemoryBudgetLedger
from hlmem.adapters.inmemory.heartbeat import InMemoryHeartbeats
from hlmem.adapters.inmemory.jobs import InMemoryJobQueue
from hlmem.adapters.inmemory.store import InMemoryStorage
from hlmem.adapters.llm.ledger import InMemoryLedger
from hlmem.adapters.ids import UlidGenerator
from hlmem.adapters.replay_targets import replay_target
from hlmem.application.ports.backend import Backend

__all__ = ["memory_backend"]


def memory_backend(*, new_id: Any = None, store: InMemoryStorage | None = None) -> Backend:
    """A fresh in-process store (or ``store``) with its queue, ledgers and heartbeats.

    :param new_id: makes job ids (``new_id("jb")``); None: ULIDs.
    """
    new_id = new_id or UlidGenerator().new
    store = InMemoryStorage() if store is None else store
    return Backend(store=store, jobs=InMemoryJobQueue(store, new_id), budget=InMemoryBudgetLedger(),
                   calls=InMemoryLedger(), heartbeats=InMemoryHeartbeats(), replay_target=replay_target,
                   close=store.close)
