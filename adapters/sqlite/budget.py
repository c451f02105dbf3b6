"""``SQLiteBudgetLedger``: the BudgetLedger port in the store's file (table ``budget_reservations``).

Like the LLM call ledger it is operational, not part of the event log, and it uses its own
connection (:meth:`SQLiteBudgetLedger.open`): a provider call reserves and settles outside any
storage transaction. ``reserve`` checks and inserts inside one ``BEGIN IMMEDIATE``: the write
lock is taken *before* today's totals are read, so two processes racing for the last unit of
budget are serialized by SQLite and only one wins (the other waits on the busy timeout, then
sees the first one's reservation).
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path

import apsw

from hlmem.adapters.sqlite.db import translated
from hlmem.adapters.sqlite.connection import OwnConnection, open_migrated
from hlmem.application.ports.budget import Reservation
from hlmem.domain.budget import BudgetLimits, BudgetTotals, Charge, Spend, day_of, next_reset, refusal
from hlmem.domain.errors import NotFound
from hlmem.domain.time import from_micros, to_micros

_SUM = "SELECT count(*), coalesce(sum(requests), 0), coalesce(sum(tokens), 0), coalesce(sum(cost), 0), " \
       "coalesce(sum(cost IS NULL), 0) FROM budget_reservations WHERE day = ? AND "


def _spend(row: tuple) -> Spend:
    _n, requests, tokens, cost, unknown = row
    return Spend(requests=requests, tokens=tokens, cost=float(cost), unknown_cost=unknown)


class SQLiteBudgetLedger:
    """A :class:`hlmem.application.ports.BudgetLedger` on an APSW connection of its own."""

    def __init__(self, con: apsw.Connection | None, *, owns_connection: bool = False,
                 opener: Callable[[], apsw.Connection] | None = None) -> None:
        self._own = OwnConnection(con, opener, "the budget ledger")
        self._owns = owns_connection or con is None
        self._lock = threading.Lock()  # one connection: one transaction at a time per process

    @classmethod
    def open(cls, path: str | Path) -> SQLiteBudgetLedger:
        """Open (creating and migrating if needed) the store file at ``path`` on a new connection.

        :raises StorageError: when the file cannot be opened or migrated.
        """
        return cls(open_migrated(path, "the budget ledger"), owns_connection=True)

    @classmethod
    def deferred(cls, path: str | Path) -> SQLiteBudgetLedger:
        """The ledger of the store file at ``path``, on a connection of its own opened at first use
        (a store whose budget is never asked opens nothing more: ADR 0074)."""
        return cls(None, opener=lambda: open_migrated(path, "the budget ledger"))

    @property
    def _con(self) -> apsw.Connection:
        return self._own.get()

    def _totals(self, now: datetime, limits: BudgetLimits) -> BudgetTotals:
        day, t = day_of(now).isoformat(), to_micros(now)
        spent = _spend(self._con.execute(_SUM + "state = 'settled'", (day,)).fetchone())
        reserved = _spend(self._con.execute(_SUM + "state = 'open' AND expires_at > ?", (day, t)).fetchone())
        first = self._con.execute("SELECT min(expires_at) FROM budget_reservations WHERE day = ? AND state = 'open' "
                                  "AND expires_at > ?", (day, t)).fetchone()[0]
        return BudgetTotals(day=day_of(now), spent=spent, reserved=reserved, limits=limits, resets_at=next_reset(now),
                            next_expiry=None if first is None else from_micros(first))

    def reserve(self, charge: Charge, *, limits: BudgetLimits, now: datetime, expires_at: datetime,
                what: str = "") -> Reservation:
        made = Reservation(reservation_id=uuid.uuid4().hex, day=day_of(now), charge=charge, created_at=now,
                           expires_at=expires_at, what=what)
        with self._lock, translated("reserving budget", self._con):
            # The write lock first, then the totals: nobody can reserve between our read and our insert.
            self._con.execute("BEGIN IMMEDIATE")
            try:
                if refused := refusal(self._totals(now, limits), charge, what=what or "the call"):
                    raise refused
                self._con.execute(
                    "INSERT INTO budget_reservations (reservation_id, day, what, state, requests, tokens, cost, "
                    "created_at, expires_at) VALUES (?, ?, ?, 'open', ?, ?, ?, ?, ?)",
                    (made.reservation_id, made.day.isoformat(), what, charge.requests, charge.tokens, charge.cost,
                     to_micros(now), to_micros(expires_at)))
            except BaseException:
                if self._con.in_transaction:
                    self._con.execute("ROLLBACK")
                raise
            self._con.execute("COMMIT")
        return made

    def settle(self, reservation_id: str, actual: Charge, *, now: datetime) -> None:
        with self._lock, translated("settling budget", self._con):
            self._con.execute(
                "UPDATE budget_reservations SET state = 'settled', requests = ?, tokens = ?, cost = ?, settled_at = ? "
                "WHERE reservation_id = ?",
                (actual.requests, actual.tokens, actual.cost, to_micros(now), reservation_id))
            if self._con.changes() == 0:
                raise NotFound(f"no budget reservation {reservation_id}")

    def release(self, reservation_id: str) -> None:
        with self._lock, translated("releasing budget", self._con):
            self._con.execute("DELETE FROM budget_reservations WHERE reservation_id = ? AND state = 'open'",
                              (reservation_id,))

    def spent(self, day: date) -> Spend:
        with self._lock, translated("reading budget", self._con):
            return _spend(self._con.execute(_SUM + "state = 'settled'", (day.isoformat(),)).fetchone())

    def totals(self, *, now: datetime, limits: BudgetLimits) -> BudgetTotals:
        with self._lock, translated("reading budget", self._con):
            self._con.execute("BEGIN")  # one snapshot for the three reads
            try:
                return self._totals(now, limits)
            finally:
                self._con.execute("COMMIT")

    def close(self) -> None:
        """Close the connection if this ledger opened it (a borrowed one stays open)."""
        if self._owns:
            self._own.close()
