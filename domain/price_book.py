"""Reading a price book from its JSON shape (version 1), with errors that name the file, the entry and the field.

The shape (docs/budget.md)::

    {"version": 1, "currency": "USD", "effective": "2026-12-01",
     "rates": [{"provider": "openai", "model": "gpt-4o-mini", "capability": "chat",
                "input_per_1m": 0.15, "output_per_1m": 0.6, "per_request": 0, "per_item": 0}]}

Prices are optional (0 when absent) and never negative; ``model`` may be ``*`` or end in ``*``.
Reading the file is the adapter's (``adapters/price_book.py``); this module only validates.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from datetime import date
from typing import Any

from hlmem.domain.budget import CAPABILITIES, PriceBook, Rate
from hlmem.domain.errors import ConfigurationError

#: Price-book format versions this code reads.
VERSIONS = (1,)
_PRICES = ("input_per_1m", "output_per_1m", "per_request", "per_item")
_TOP = {"version", "currency", "effective", "rates"}
_ENTRY = {"provider", "model", "capability", *_PRICES}
_CURRENCY = re.compile(r"^[A-Z]{3}$")


def _unknown(values: Mapping[str, Any], known: set[str], where: str) -> None:
    if extra := sorted(set(values) - known):
        raise ConfigurationError(f"{where}: unknown field(s) {', '.join(map(str, extra))}; known: "
                                 f"{', '.join(sorted(known))}")


def _name(entry: Mapping[str, Any], key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ConfigurationError(f"{where}.{key} must be a non-empty string, not {value!r}")
    return value.strip()


def _price(entry: Mapping[str, Any], key: str, where: str) -> float:
    value = entry.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ConfigurationError(f"{where}.{key} must be a number >= 0 (money in the book's currency), not {value!r}")
    return float(value)


def _rate(entry: Any, where: str) -> Rate:
    if not isinstance(entry, Mapping):
        raise ConfigurationError(f"{where} must be an object, not {type(entry).__name__}")
    _unknown(entry, _ENTRY, where)
    capability = _name(entry, "capability", where)
    if capability not in CAPABILITIES:
        raise ConfigurationError(f"{where}.capability must be one of {', '.join(CAPABILITIES)}, not {capability!r}")
    model = _name(entry, "model", where)
    if "*" in model[:-1]:
        raise ConfigurationError(f"{where}.model {model!r}: a wildcard '*' may only end the name (gpt-4o*) or be it")
    return Rate(provider=_name(entry, "provider", where), model=model, capability=capability,
                **{key: _price(entry, key, where) for key in _PRICES})


def price_book_from_mapping(data: Any, *, source: str) -> PriceBook:
    """Validate a decoded price book.

    :param source: names the file in every message (``prices.json: rates[2].input_per_1m ...``).
    :raises ConfigurationError: an unknown version, a missing or bad field, or two rates for the
        same provider, model and capability.
    """
    if not isinstance(data, Mapping):
        raise ConfigurationError(f"{source}: a price book is a JSON object, not {type(data).__name__}")
    _unknown(data, _TOP, source)
    version = data.get("version")
    if type(version) is not int or version not in VERSIONS:
        raise ConfigurationError(f"{source}: version must be one of {', '.join(map(str, VERSIONS))}, not {version!r}")
    currency = data.get("currency")
    if not isinstance(currency, str) or not _CURRENCY.match(currency):
        raise ConfigurationError(f"{source}: currency must be a three-letter code such as USD, not {currency!r}")
    effective = data.get("effective")
    try:
        day = date.fromisoformat(effective) if isinstance(effective, str) and len(effective) == 10 else None
    except ValueError:
        day = None
    if day is None:
        raise ConfigurationError(f"{source}: effective must be a date YYYY-MM-DD (UTC), not {effective!r}")
    rates_in = data.get("rates")
    if not isinstance(rates_in, list):
        raise ConfigurationError(f"{source}: rates must be a list of rate objects, not {type(rates_in).__name__}")
    rates = tuple(_rate(entry, f"{source}: rates[{i}]") for i, entry in enumerate(rates_in))
    seen: dict[tuple[str, str, str], int] = {}
    for i, r in enumerate(rates):
        key = (r.provider, r.model, r.capability)
        if key in seen:
            raise ConfigurationError(f"{source}: rates[{i}] prices {r.provider}/{r.model}/{r.capability} again "
                                     f"(rates[{seen[key]}] already does); keep one")
        seen[key] = i
    return PriceBook(version=version, currency=currency, effective=day, rates=rates)
