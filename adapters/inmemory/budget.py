"""``InMemoryBudgetLedger``: the BudgetLedger port in a dict under a lock (tests, and processes without a store)."""

from __future__ import annotations

import threading
import uuid
from datetime import date, datetime

from hlmem.application.ports.budget import Reservation
from hlmem.domain.budget import BudgetLimits, BudgetTotals, Charge, Spend, day_of, next_reset, refusal, total
from hlmem.domain.errors import NotFound


class InMemoryBudgetLedger:
    """Reservations and settlements of one process; the lock makes check-and-record atomic."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        #: reservation id -> (reservation, settled charge or None while open)
        self._rows: dict[str, tuple[Reservation, Charge | None]] = {}

    def _totals(self, now: datetime, limits: BudgetLimits) -> BudgetTotals:
        day = day_of(now)
        rows = [(r, s) for r, s in self._rows.values() if r.day == day]
        open_ = [r for r, s in rows if s is None and r.expires_at > now]
        return BudgetTotals(day=day, spent=total(s for _, s in rows if s is not None),
                            reserved=total(r.charge for r in open_), limits=limits, resets_at=next_reset(now),
                            next_expiry=min((r.expires_at for r in open_), default=None))

    def reserve(self, charge: Charge, *, limits: BudgetLimits, now: datetime, expires_at: datetime,
                what: str = "") -> Reservation:
        with self._lock:
            if refused := refusal(self._totals(now, limits), charge, what=what or "the call"):
                raise refused
            made = Reservation(reservation_id=uuid.uuid4().hex, day=day_of(now), charge=charge, created_at=now,
                               expires_at=expires_at, what=what)
            self._rows[made.reservation_id] = (made, None)
            return made

    def settle(self, reservation_id: str, actual: Charge, *, now: datetime) -> None:
        with self._lock:
            if reservation_id not in self._rows:
                raise NotFound(f"no budget reservation {reservation_id}")
            made, _ = self._rows[reservation_id]
            self._rows[reservation_id] = (made, actual)

    def release(self, reservation_id: str) -> None:
        with self._lock:
            row = self._rows.get(reservation_id)
            if row is not None and row[1] is None:
                del self._rows[reservation_id]

    def spent(self, day: date) -> Spend:
        with self._lock:
            return total(s for r, s in self._rows.values() if r.day == day and s is not None)

    def totals(self, *, now: datetime, limits: BudgetLimits) -> BudgetTotals:
        with self._lock:
            return self._totals(now, limits)
