"""The budget from the settings: the price-book file read and validated, the limits, the guard (ADR 0034)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from hlmem.application.budget import BudgetGuard
from hlmem.domain.budget import BudgetLimits, PriceBook
from hlmem.domain.errors import ConfigurationError
from hlmem.domain.price_book import price_book_from_mapping

if TYPE_CHECKING:
    from hlmem.adapters.settings_sections import BudgetSettings
    from hlmem.application.ports import BudgetLedger, Clock

__all__ = ["budget_guard", "budget_limits", "load_price_book"]


def load_price_book(path: str | Path) -> PriceBook:
    """Read and validate the price book at ``path`` (format: docs/budget.md).

    :raises ConfigurationError: the file is missing or unreadable, not JSON (with line and
        column), or not a valid price book (with the entry index and field).
    """
    where = str(path)
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigurationError(f"budget.price_book: cannot read {where}: {exc.strerror or exc}; "
                                 "fix the path or remove price_book") from exc
    except UnicodeDecodeError as exc:
        raise ConfigurationError(f"{where}: a price book is UTF-8 JSON ({exc.reason} at byte {exc.start})") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigurationError(f"{where}: not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from exc
    return price_book_from_mapping(data, source=where)


def budget_limits(settings: BudgetSettings) -> BudgetLimits:
    """The daily limits of the ``[budget]`` settings."""
    return BudgetLimits(requests_per_day=settings.requests_per_day, tokens_per_day=settings.tokens_per_day,
                        cost_per_day=settings.cost_per_day)


def budget_guard(settings: BudgetSettings, ledger: BudgetLedger, clock: Clock) -> BudgetGuard:
    """The guard provider clients reserve from; the price book is read now, so a bad one fails at start-up.

    :raises ConfigurationError: a bad price book.
    """
    book = None if settings.price_book is None else load_price_book(settings.price_book)
    return BudgetGuard(ledger, budget_limits(settings), clock=clock, price_book=book,
                       ttl_s=settings.reservation_ttl_s)
