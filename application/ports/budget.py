"""The budget role: a ledger of reservations and spending per UTC day, checked against limits atomically."""

from __future__ import annotations

from datetime import date, datetime
from typing import Protocol, runtime_checkable

from attrs import frozen

from hlmem.domain.budget import BudgetLimits, BudgetTotals, Charge, Spend


@frozen(kw_only=True)
class Reservation:
    """A charge held for one attempt until it is settled or ``expires_at`` passes.

    :param day: the UTC day it counts against (the day it was made).
    :param what: what it was for (``provider:model capability operation``), for diagnosis.
    """

    reservation_id: str
    day: date
    charge: Charge
    created_at: datetime
    expires_at: datetime
    what: str = ""


@runtime_checkable
class BudgetLedger(Protocol):
    """Reservations and spending per UTC day (docs/budget.md, ADR 0034).

    Contract:
    - ``reserve(charge, *, limits, now, expires_at, what)`` looks at the day of ``now``: its settled
      spending plus its open reservations that have not expired at ``now``, plus ``charge``, must
      stay within ``limits`` (:func:`hlmem.domain.budget.refusal`); then it records and returns a
      :class:`Reservation`, else raises :class:`hlmem.domain.errors.BudgetExceeded` and records
      nothing. Checking and recording are one atomic step, across threads and (SQLite) processes:
      two callers racing for the last unit never both win.
    - A reservation is durable once ``reserve`` returns: after a crash it still counts until
      ``expires_at``, then it stops counting (it is never turned into spending by expiry).
    - ``settle(reservation_id, actual, *, now)`` turns the reservation into spending of *its*
      day, with the ``actual`` charge (cost None: unknown). Settling twice, or after expiry, is
      allowed: the last settle wins, and the spending counts (the call did happen). An unknown id
      raises :class:`hlmem.domain.errors.NotFound`.
    - ``release(reservation_id)`` drops an open reservation without spending (a call that never
      went out); unknown or settled ids are ignored.
    - ``spent(day)`` is the settled :class:`Spend` of ``day``; ``totals(*, now, limits)`` is
      today's :class:`BudgetTotals` (spent, open reserved, limits, reset and next expiry) for
      reports.
    """

    def reserve(self, charge: Charge, *, limits: BudgetLimits, now: datetime, expires_at: datetime,
                what: str = "") -> Reservation: ...

    def settle(self, reservation_id: str, actual: Charge, *, now: datetime) -> None: ...

    def release(self, reservation_id: str) -> None: ...

    def spent(self, day: date) -> Spend: ...

    def totals(self, *, now: datetime, limits: BudgetLimits) -> BudgetTotals: ...
