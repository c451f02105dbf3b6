"""The backend: everything one store provides, built together by its storage plugin (ADR 0074).

A store is more than its log and projections: the job queue, the daily budget's reservations, the
LLM-call ledger and the workers' heartbeats must be shared by every process of the store, or two
processes each spend the whole budget and ``hlmem doctor`` sees only its own worker. So a storage
plugin returns one :class:`Backend` whose parts all live where its store lives (one SQLite file,
one PostgreSQL database, or this process for ``:memory:``); the composition root picks none of
them itself.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from attrs import frozen

from hlmem.application.ports.budget import BudgetLedger
from hlmem.application.ports.heartbeat import WorkerHeartbeats
from hlmem.application.ports.jobs import CallLedger, JobQueue
from hlmem.application.ports.storage import Storage

__all__ = ["Backend", "ReplayTarget"]

#: ``replay_target(into)``: a fresh, empty store to rebuild into, closed on exit. ``into`` names it
#: (a new file, or a database URL); None: a temporary store, removed on exit.
ReplayTarget = Callable[[Any], AbstractContextManager[Storage]]


@frozen(kw_only=True)
class Backend:
    """One store and the operational roles that live beside it, as one value.

    :param store: the :class:`Storage` (log, projections, search, tombstones, caches).
    :param jobs: the durable job queue, in the store (its writes join the store's transactions).
    :param budget: the daily budget's reservations, shared by every process of the store; a
        reservation commits on its own, outside any store transaction.
    :param calls: the LLM-call ledger: maintenance prunes it (inside the store's transactions) and
        provider adapters record each attempt in it (``record(call)``, committed on its own).
    :param heartbeats: where workers beat and ``hlmem doctor`` looks for them.
    :param replay_target: where ``replay`` rebuilds (:data:`ReplayTarget`).
    :param close: closes every part that holds a connection, the store last; safe to call twice.
    """

    store: Storage
    jobs: JobQueue
    budget: BudgetLedger
    calls: CallLedger
    heartbeats: WorkerHeartbeats
    replay_target: ReplayTarget
    close: Callable[[], None]
