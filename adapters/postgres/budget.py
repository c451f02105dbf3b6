"""``PostgresBudgetLedger``: the BudgetLedger port in the store's database (table ``budget_reservations``).

Shared by every process of the store (ADR 0074), on a connection of its own (a reservation
commits outside any store transaction). ``reserve`` takes a transaction-level advisory lock
before it reads today's totals, so two processes racing for the last unit of budget take turns
and only one wins; the other then sees the first one's reservation. Rows and arithmetic are
SQLite's (adapters/sqlite/budget.py): a day as ISO text, times in microseconds.
"""

from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Any

from hlmem.adapters.postgres.db import translated
from hlmem.adapters.postgres.schema import BUDGET_LOCK
from hlmem.adapters.postgres.side import SideConnection
from hlmem.application.ports.budget import Reservation
from hlmem.domain.budget import BudgetLimits, BudgetTotals, Charge, Spend, day_of, next_reset, refusal
from hlmem.domain.errors import NotFound
from hlmem.domain.time import from_micros, to_micros

__all__ = ["PostgresBudgetLedger"]

_SUM = ("SELECT coalesce(sum(requests), 0), coalesce(sum(tokens), 0), coalesce(sum(cost), 0), "
        "count(*) FILTER (WHERE cost IS NULL) FROM budget_reservations WHERE day = %s AND ")


def _spend(row: Any) -> Spend:
    requests, tokens, cost, unknown = row
    return Spend(requests=int(requests), tokens=int(tokens), cost=float(cost), unknown_cost=int(unknown))


class PostgresBudgetLedger:
    """A :class:`hlmem.application.ports.BudgetLedger` on the store's database."""

    def __init__(self, url: str) -> None:
        self._side = SideConnection(url, "the budget ledger")

    @staticmethod
    def totals_on(con: Any, now: datetime, limits: BudgetLimits) -> BudgetTotals:
        """Today's totals read on ``con`` (in the caller's transaction): ``hlmem ops report``'s too."""
        day, t = day_of(now).isoformat(), to_micros(now)
        spent = _spend(con.execute(_SUM + "state = 'settled'", (day,)).fetchone())
        reserved = _spend(con.execute(_SUM + "state = 'open' AND expires_at > %s", (day, t)).fetchone())
        first = con.execute("SELECT min(expires_at) FROM budget_reservations WHERE day = %s AND state = 'open' "
                            "AND expires_at > %s", (day, t)).fetchone()[0]
        return BudgetTotals(day=day_of(now), spent=spent, reserved=reserved, limits=limits, resets_at=next_reset(now),
                            next_expiry=None if first is None else from_micros(first))

    def reserve(self, charge: Charge, *, limits: BudgetLimits, now: datetime, expires_at: datetime,
                what: str = "") -> Reservation:
        made = Reservation(reservation_id=uuid.uuid4().hex, day=day_of(now), charge=charge, created_at=now,
                           expires_at=expires_at, what=what)
        with self._side.use() as con, translated("reserving budget"), con.transaction():
            # The lock first, then the totals: nobody can reserve between our read and our insert.
            con.execute("SELECT pg_advisory_xact_lock(%s)", (BUDGET_LOCK,))
            if refused := refusal(self.totals_on(con, now, limits), charge, what=what or "the call"):
                raise refused
            con.execute(
                "INSERT INTO budget_reservations (reservation_id, day, what, state, requests, tokens, cost, "
                "created_at, expires_at) VALUES (%s, %s, %s, 'open', %s, %s, %s, %s, %s)",
                (made.reservation_id, made.day.isoformat(), what, charge.requests, charge.tokens, charge.cost,
                 to_micros(now), to_micros(expires_at)))
        return made

    def settle(self, reservation_id: str, actual: Charge, *, now: datetime) -> None:
        with self._side.use() as con, translated("settling budget"):
            cur = con.execute(
                "UPDATE budget_reservations SET state = 'settled', requests = %s, tokens = %s, cost = %s, "
                "settled_at = %s WHERE reservation_id = %s",
                (actual.requests, actual.tokens, actual.cost, to_micros(now), reservation_id))
            if cur.rowcount == 0:
                raise NotFound(f"no budget reservation {reservation_id}")

    def release(self, reservation_id: str) -> None:
        with self._side.use() as con, translated("releasing budget"):
            con.execute("DELETE FROM budget_reservations WHERE reservation_id = %s AND state = 'open'",
                        (reservation_id,))

    def spent(self, day: date) -> Spend:
        with self._side.use() as con, translated("reading budget"):
            return _spend(con.execute(_SUM + "state = 'settled'", (day.isoformat(),)).fetchone())

    def totals(self, *, now: datetime, limits: BudgetLimits) -> BudgetTotals:
        with self._side.use() as con, translated("reading budget"), con.transaction():
            con.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")  # one snapshot for the three reads
            return self.totals_on(con, now, limits)

    def close(self) -> None:
        self._side.close()
