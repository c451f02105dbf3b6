"""The daily budget's arithmetic: rates, charges, today's totals and the fail-closed check (pure, no I/O).

A provider call asks for a :class:`Charge` (one request, an estimate of its tokens and cost)
before it goes out; :func:`refusal` says whether today's settled spending plus open
reservations plus that charge stays within the :class:`BudgetLimits`. The ledger that stores
reservations (``application/ports/budget.py``) calls it inside its own lock or transaction, so
checking and recording are one step. Days are UTC days; they reset at UTC midnight.
"""

from __future__ import annotations

import math
from datetime import date, datetime, time, timedelta

from attrs import frozen

from hlmem.domain.errors import BudgetExceeded
from hlmem.domain.time import UTC, format_timestamp

#: What a rate prices: a chat completion, a rerank call (documents are items), an embedding call (inputs are items).
CAPABILITIES = ("chat", "rerank", "embed")
#: The completion a chat call reserves when the request sets no ``max_tokens`` (docs/budget.md).
DEFAULT_COMPLETION_TOKENS = 4096
#: Tokens one chat message adds beyond its text (role, separators), as OpenAI counts them.
MESSAGE_OVERHEAD_TOKENS = 4


def estimate_tokens(text: str) -> int:
    """An upper-leaning token estimate for ``text``: a quarter token per ASCII character, one per other character.

    BPE tokenizers give English about four characters a token and Chinese about one to one and a
    half characters a token, so this over-reserves rather than under-reserves. It is only the
    reservation: what is spent comes from the provider's ``usage``.
    """
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return math.ceil(ascii_chars / 4) + (len(text) - ascii_chars)


@frozen(kw_only=True)
class Demand:
    """What one call asks of a provider: ``capability``, prompt tokens, completion tokens (at most), items."""

    capability: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    items: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@frozen(kw_only=True)
class Rate:
    """One price-book entry; money per million input/output tokens, per request and per item.

    ``model`` is exact, a prefix ending in ``*`` (``gpt-4o*``) or ``*`` (any model of the provider).
    """

    provider: str
    model: str
    capability: str
    input_per_1m: float = 0.0
    output_per_1m: float = 0.0
    per_request: float = 0.0
    per_item: float = 0.0

    def cost(self, *, prompt_tokens: int, completion_tokens: int, items: int, requests: int = 1) -> float:
        """The price of ``requests`` requests using these tokens and items (never negative)."""
        return (prompt_tokens * self.input_per_1m / 1_000_000 + completion_tokens * self.output_per_1m / 1_000_000
                + requests * self.per_request + items * self.per_item)

    def matches(self, provider: str, model: str, capability: str) -> bool:
        if self.provider != provider or self.capability != capability:
            return False
        if self.model.endswith("*"):
            return model.startswith(self.model[:-1])
        return self.model == model


@frozen(kw_only=True)
class PriceBook:
    """A versioned set of rates in one currency, in force from ``effective`` (a UTC date)."""

    version: int
    currency: str
    effective: date
    rates: tuple[Rate, ...] = ()

    def rate(self, provider: str, model: str, capability: str, *, on: date) -> Rate | None:
        """The rate for this call on day ``on``: the exact model first, then the longest matching
        wildcard; None when nothing matches or the book is not in force yet (cost unknown)."""
        if on < self.effective:
            return None
        found = [r for r in self.rates if r.matches(provider, model, capability)]
        return max(found, key=lambda r: (not r.model.endswith("*"), len(r.model)), default=None)


def estimated_cost(book: PriceBook | None, provider: str, model: str, demand: Demand, *, on: date) -> float | None:
    """The cost of ``demand`` before the call (completion at its bound), or None when no rate prices it."""
    rate = None if book is None else book.rate(provider, model, demand.capability, on=on)
    if rate is None:
        return None
    return rate.cost(prompt_tokens=demand.prompt_tokens, completion_tokens=demand.completion_tokens,
                     items=demand.items)


@frozen(kw_only=True)
class Charge:
    """What one attempt asks for (a reservation) or used (a settlement): a request, tokens, a cost (None: unknown)."""

    tokens: int = 0
    cost: float | None = None
    requests: int = 1


@frozen(kw_only=True)
class Spend:
    """A sum of charges: requests, tokens, known cost, and how many charges had an unknown cost."""

    requests: int = 0
    tokens: int = 0
    cost: float = 0.0
    unknown_cost: int = 0

    def plus(self, charge: Charge) -> Spend:
        return Spend(requests=self.requests + charge.requests, tokens=self.tokens + charge.tokens,
                     cost=self.cost + (charge.cost or 0.0), unknown_cost=self.unknown_cost + (charge.cost is None))


def total(charges) -> Spend:
    """The :class:`Spend` of an iterable of charges."""
    out = Spend()
    for charge in charges:
        out = out.plus(charge)
    return out


@frozen(kw_only=True)
class BudgetLimits:
    """Daily limits (None: no limit). A finite ``cost_per_day`` makes unknown costs refusals."""

    requests_per_day: int | None = None
    tokens_per_day: int | None = None
    cost_per_day: float | None = None


@frozen(kw_only=True)
class BudgetTotals:
    """Today's budget as a report reads it: settled ``spent``, open ``reserved``, the ``limits``,
    when the day resets, and when the first open reservation expires (None: none open)."""

    day: date
    spent: Spend
    reserved: Spend
    limits: BudgetLimits
    resets_at: datetime
    next_expiry: datetime | None = None


def day_of(t: datetime) -> date:
    """The UTC day of ``t``."""
    return t.astimezone(UTC).date()


def next_reset(t: datetime) -> datetime:
    """The UTC midnight after ``t``: when the day's budget starts again."""
    return datetime.combine(day_of(t) + timedelta(days=1), time(0), tzinfo=UTC)


def _money(x: float) -> str:
    return f"{x:.6f}".rstrip("0").rstrip(".")


def refusal(totals: BudgetTotals, charge: Charge, *, what: str) -> BudgetExceeded | None:
    """Why ``charge`` may not go out today, or None when it fits every limit.

    Checked in order: requests, tokens, cost. With a finite cost limit, an unknown cost (this
    charge's, or any settled or open one today) is a refusal: the day's spending could not be bounded.

    :param what: names the call in the message (``"openai:gpt-4o-mini chat"``).
    """
    limits, spent, reserved = totals.limits, totals.spent, totals.reserved
    resets = totals.resets_at
    when = f"resets at {format_timestamp(resets)} (UTC midnight)"

    def over(name: str, used: float, held: float, asked: float, allowed: float, show=str) -> BudgetExceeded | None:
        if used + held + asked <= allowed:
            return None
        # Only open reservations stand in the way: it may fit when the first of them expires or settles.
        retry = totals.next_expiry if held and used + asked <= allowed and totals.next_expiry else resets
        return BudgetExceeded(
            f"budget: {what} would pass {name} ({show(used)} spent + {show(held)} reserved + {show(asked)} asked "
            f"> {show(allowed)}); nothing was sent; the budget {when}; raise budget.{name} to go on today",
            limit=name, reason="limit", spent=used, reserved=held, asked=asked, allowed=allowed, resets_at=resets,
            retry_at=min(retry, resets))

    if limits.requests_per_day is not None and (
            e := over("requests_per_day", spent.requests, reserved.requests, charge.requests, limits.requests_per_day)):
        return e
    if limits.tokens_per_day is not None and (
            e := over("tokens_per_day", spent.tokens, reserved.tokens, charge.tokens, limits.tokens_per_day)):
        return e
    if limits.cost_per_day is None:
        return None
    allowed = limits.cost_per_day
    if charge.cost is None:
        return BudgetExceeded(
            f"budget: the cost of {what} cannot be estimated (no rate for it in the price book, or no price book) "
            f"and budget.cost_per_day is {_money(allowed)}: refused, the budget fails closed; add a rate to the "
            "price book (docs/budget.md) or remove cost_per_day",
            limit="cost_per_day", reason="unknown_cost", spent=spent.cost, reserved=reserved.cost, asked=None,
            allowed=allowed, resets_at=resets)
    if spent.unknown_cost or reserved.unknown_cost:
        n = spent.unknown_cost + reserved.unknown_cost
        return BudgetExceeded(
            f"budget: {n} call(s) today had no known cost, so today's spending cannot be bounded and "
            f"budget.cost_per_day is {_money(allowed)}: {what} refused, the budget fails closed; the budget {when}",
            limit="cost_per_day", reason="unknown_cost_today", spent=spent.cost, reserved=reserved.cost,
            asked=charge.cost, allowed=allowed, resets_at=resets)
    return over("cost_per_day", spent.cost, reserved.cost, charge.cost, allowed, show=_money)
