"""``BudgetGuard``: what a provider client asks before each attempt and tells after it (ADR 0034).

The guard turns a call's :class:`~hlmem.domain.budget.Demand` into a charge priced by the price
book, reserves it in the :class:`~hlmem.application.ports.BudgetLedger` against the daily limits
(raising :class:`~hlmem.domain.errors.BudgetExceeded` before anything is sent), and settles the
reservation with what the reply reports. It does no I/O of its own: the ledger does.

Settling rules (docs/budget.md): a reply's ``usage`` is what was spent; an attempt that ends
without usage (a timeout, a cut connection, an error reply, a reply that reports none) settles
at its estimate, because a provider may bill a request whose answer never arrived, and the
budget must never count less than may have been spent.
"""

from __future__ import annotations

from datetime import timedelta

from attrs import frozen

from hlmem.application.ports import BudgetLedger, Clock, Reservation
from hlmem.domain.budget import BudgetLimits, BudgetTotals, Charge, Demand, PriceBook, Rate, day_of


@frozen
class Hold:
    """One attempt's reservation with what it was priced at (for :meth:`BudgetGuard.settle`)."""

    reservation: Reservation
    demand: Demand
    rate: Rate | None


class BudgetGuard:
    """Reserve before each attempt, settle after: the daily budget of every provider call.

    :param ledger: where reservations and spending are kept (shared by every process of a store).
    :param limits: the daily limits (``BudgetSettings`` in the configuration).
    :param price_book: the rates; None: every cost is unknown (refused under a finite cost limit).
    :param ttl_s: how long a reservation counts when it is never settled (a crashed process).
    """

    def __init__(self, ledger: BudgetLedger, limits: BudgetLimits, *, clock: Clock, price_book: PriceBook | None,
                 ttl_s: float) -> None:
        self.ledger = ledger
        self.limits = limits
        self.price_book = price_book
        self._clock = clock
        self._ttl = timedelta(seconds=ttl_s)

    def rate(self, provider: str, model: str, capability: str) -> Rate | None:
        """The price-book rate in force today for this call (None: cost unknown)."""
        if self.price_book is None:
            return None
        return self.price_book.rate(provider, model, capability, on=day_of(self._clock.now()))

    def reserve(self, provider: str, model: str, demand: Demand, *, operation: str) -> Hold:
        """Hold today's budget for one attempt of ``demand``.

        :raises BudgetExceeded: the attempt would pass a limit, or its cost is unknown under a
            finite cost limit; nothing is recorded then.
        """
        rate = self.rate(provider, model, demand.capability)
        cost = None if rate is None else rate.cost(prompt_tokens=demand.prompt_tokens,
                                                   completion_tokens=demand.completion_tokens, items=demand.items)
        now = self._clock.now()
        reservation = self.ledger.reserve(Charge(tokens=demand.tokens, cost=cost), limits=self.limits, now=now,
                                          expires_at=now + self._ttl,
                                          what=f"{provider}:{model} {demand.capability} {operation}")
        return Hold(reservation, demand, rate)

    def settle(self, hold: Hold, *, prompt_tokens: int | None, completion_tokens: int | None) -> float | None:
        """Turn the hold into spending with the reply's usage (both None: at the estimate).

        :returns: the attempt's cost, None when unknown (no rate).
        """
        demand = hold.demand
        if prompt_tokens is None and completion_tokens is None:
            prompt, completion = demand.prompt_tokens, demand.completion_tokens
        else:
            prompt, completion = prompt_tokens or 0, completion_tokens or 0
        cost = None if hold.rate is None else hold.rate.cost(prompt_tokens=prompt, completion_tokens=completion,
                                                             items=demand.items)
        self.ledger.settle(hold.reservation.reservation_id, Charge(tokens=prompt + completion, cost=cost),
                           now=self._clock.now())
        return cost

    def totals(self) -> BudgetTotals:
        """Today's spent, reserved and limits (for ``hlmem ops report`` and ``doctor``)."""
        return self.ledger.totals(now=self._clock.now(), limits=self.limits)
