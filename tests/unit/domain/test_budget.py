"""The budget's pure arithmetic: rates, estimates, the price book's rules and the fail-closed check (ADR 0034)."""

from __future__ import annotations

import math
from datetime import date, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hlmem.domain.budget import (
    BudgetLimits, BudgetTotals, Charge, Demand, PriceBook, Rate, Spend, day_of, estimate_tokens, estimated_cost,
    next_reset, refusal, total,
)
from hlmem.domain.errors import BudgetExceeded, ConfigurationError
from hlmem.domain.price_book import price_book_from_mapping

T0 = datetime(2026, 12, 3, 16, 0, tzinfo=timezone.utc)
prices = st.floats(min_value=0, max_value=1000, allow_nan=False, allow_infinity=False)
counts = st.integers(min_value=0, max_value=10**7)
rates = st.builds(Rate, provider=st.just("p"), model=st.just("m"), capability=st.sampled_from(["chat", "rerank"]),
                  input_per_1m=prices, output_per_1m=prices, per_request=prices, per_item=prices)


def book(*rates: dict, effective: str = "2026-12-01") -> PriceBook:
    return price_book_from_mapping({"version": 1, "currency": "USD", "effective": effective, "rates": list(rates)},
                                   source="prices.json")


def totals(spent: Spend = Spend(), reserved: Spend = Spend(), next_expiry: datetime | None = None,
           **limits) -> BudgetTotals:
    return BudgetTotals(day=day_of(T0), spent=spent, reserved=reserved, limits=BudgetLimits(**limits),
                        resets_at=next_reset(T0), next_expiry=next_expiry)


# --- cost arithmetic: properties ------------------------------------------------------------------


@given(rates, counts, counts, counts)
def test_a_cost_is_never_negative_and_grows_with_every_count(rate: Rate, prompt: int, completion: int,
                                                            items: int) -> None:
    cost = rate.cost(prompt_tokens=prompt, completion_tokens=completion, items=items)
    assert cost >= 0
    more = rate.cost(prompt_tokens=prompt + 1, completion_tokens=completion + 1, items=items + 1)
    assert more >= cost


@given(rates, counts, counts, counts, counts, counts, counts)
def test_the_cost_of_two_calls_is_the_sum_of_their_costs(rate: Rate, p1: int, c1: int, i1: int, p2: int, c2: int,
                                                         i2: int) -> None:
    both = rate.cost(prompt_tokens=p1 + p2, completion_tokens=c1 + c2, items=i1 + i2, requests=2)
    apart = (rate.cost(prompt_tokens=p1, completion_tokens=c1, items=i1)
             + rate.cost(prompt_tokens=p2, completion_tokens=c2, items=i2))
    assert math.isclose(both, apart, rel_tol=1e-9, abs_tol=1e-9)


@given(rates, counts, counts, st.integers(min_value=0, max_value=10**6))
def test_the_estimate_bounds_the_actual_when_the_completion_stays_within_its_bound(
        rate: Rate, prompt: int, bound: int, used: int) -> None:
    used = min(used, bound)
    demand = Demand(capability=rate.capability, prompt_tokens=prompt, completion_tokens=bound, items=3)
    estimate = estimated_cost(PriceBook(version=1, currency="USD", effective=date(2026, 1, 1), rates=(rate,)),
                              "p", "m", demand, on=day_of(T0))
    actual = rate.cost(prompt_tokens=prompt, completion_tokens=used, items=3)
    assert estimate is not None and actual <= estimate + 1e-12


@given(st.lists(st.builds(Charge, tokens=counts, cost=st.none() | prices), max_size=20))
def test_a_total_adds_requests_tokens_known_costs_and_counts_unknown_ones(charges: list[Charge]) -> None:
    spend = total(charges)
    assert spend.requests == len(charges)
    assert spend.tokens == sum(c.tokens for c in charges)
    assert math.isclose(spend.cost, sum(c.cost for c in charges if c.cost is not None), abs_tol=1e-9)
    assert spend.unknown_cost == sum(c.cost is None for c in charges)


@given(st.text(max_size=200))
def test_the_token_estimate_is_at_least_a_quarter_token_per_character(text: str) -> None:
    assert estimate_tokens(text) >= math.ceil(len(text) / 4)
    assert estimate_tokens(text + text) <= 2 * estimate_tokens(text) + 1


def test_the_token_estimate_counts_cjk_characters_one_each() -> None:
    assert estimate_tokens("abcdefgh") == 2
    assert estimate_tokens("我住在杭州") == 5
    assert estimate_tokens("") == 0


@given(st.integers(min_value=0, max_value=10**6), st.integers(min_value=0, max_value=10**6), counts, counts)
def test_refusal_by_tokens_is_exactly_passing_the_limit(spent: int, reserved: int, asked: int, limit: int) -> None:
    found = refusal(totals(Spend(tokens=spent), Spend(tokens=reserved), tokens_per_day=limit), Charge(tokens=asked),
                    what="x")
    assert (found is None) == (spent + reserved + asked <= limit)
    if found is not None:
        assert (found.limit, found.reason, found.spent, found.reserved, found.asked, found.allowed) == (
            "tokens_per_day", "limit", spent, reserved, asked, limit)


# --- the fail-closed rules ------------------------------------------------------------------------


def test_the_requests_limit_counts_this_call_as_one() -> None:
    assert refusal(totals(Spend(requests=2), requests_per_day=3), Charge(), what="x") is None
    found = refusal(totals(Spend(requests=2), Spend(requests=1), requests_per_day=3), Charge(), what="openai:m chat")
    assert isinstance(found, BudgetExceeded) and found.limit == "requests_per_day"
    assert found.resets_at == datetime(2026, 12, 4, tzinfo=timezone.utc) == found.retry_at
    assert "openai:m chat" in str(found) and "requests_per_day" in str(found) and "2026-12-04T00:00:00" in str(found)


def test_only_reservations_in_the_way_means_retry_when_the_first_expires() -> None:
    expiry = T0 + timedelta(minutes=15)
    found = refusal(totals(Spend(requests=1), Spend(requests=1), next_expiry=expiry, requests_per_day=2), Charge(),
                    what="x")
    assert found is not None and found.retry_at == expiry
    spent_out = refusal(totals(Spend(requests=2), Spend(requests=1), next_expiry=expiry, requests_per_day=2),
                        Charge(), what="x")
    assert spent_out is not None and spent_out.retry_at == next_reset(T0)


def test_with_a_finite_cost_limit_an_unknown_cost_is_refused() -> None:
    found = refusal(totals(cost_per_day=5.0), Charge(tokens=10, cost=None), what="openai:gpt-x chat")
    assert found is not None and (found.limit, found.reason, found.asked) == ("cost_per_day", "unknown_cost", None)
    assert "cannot be estimated" in str(found) and "price book" in str(found)


def test_with_a_finite_cost_limit_an_earlier_unknown_cost_today_refuses_every_call() -> None:
    found = refusal(totals(Spend(requests=1, unknown_cost=1), cost_per_day=5.0), Charge(cost=0.0001), what="x")
    assert found is not None and found.reason == "unknown_cost_today"


def test_without_a_cost_limit_unknown_costs_pass_and_other_limits_still_apply() -> None:
    assert refusal(totals(Spend(unknown_cost=3), requests_per_day=10), Charge(cost=None), what="x") is None
    assert refusal(totals(Spend(requests=10), requests_per_day=10), Charge(cost=None), what="x").limit == \
        "requests_per_day"


def test_the_cost_limit_compares_spent_reserved_and_asked() -> None:
    assert refusal(totals(Spend(cost=1.0), Spend(cost=1.0), cost_per_day=3.0), Charge(cost=1.0), what="x") is None
    found = refusal(totals(Spend(cost=1.0), Spend(cost=1.0), cost_per_day=3.0), Charge(cost=1.5), what="x")
    assert found is not None and found.limit == "cost_per_day" and found.allowed == 3.0


def test_a_day_resets_at_utc_midnight() -> None:
    late = datetime(2026, 12, 3, 23, 59, 59, 999999, tzinfo=timezone.utc)
    assert next_reset(late) == datetime(2026, 12, 4, tzinfo=timezone.utc)
    east = datetime(2026, 12, 4, 7, 0, tzinfo=timezone(timedelta(hours=8)))  # 23:00 UTC on the 3rd
    assert day_of(east) == date(2026, 12, 3)


# --- the price book -------------------------------------------------------------------------------


def test_rates_exact_model_beats_the_longest_wildcard_which_beats_any() -> None:
    prices = book({"provider": "openai", "model": "*", "capability": "chat", "per_request": 3},
                  {"provider": "openai", "model": "gpt-4o*", "capability": "chat", "per_request": 2},
                  {"provider": "openai", "model": "gpt-4o-mini", "capability": "chat", "per_request": 1})
    on = day_of(T0)
    assert prices.rate("openai", "gpt-4o-mini", "chat", on=on).per_request == 1
    assert prices.rate("openai", "gpt-4o", "chat", on=on).per_request == 2
    assert prices.rate("openai", "o3", "chat", on=on).per_request == 3
    assert prices.rate("openai", "o3", "rerank", on=on) is None
    assert prices.rate("cohere", "o3", "chat", on=on) is None


def test_a_book_is_not_in_force_before_its_effective_date() -> None:
    prices = book({"provider": "p", "model": "m", "capability": "chat"}, effective="2027-01-01")
    assert prices.rate("p", "m", "chat", on=date(2026, 12, 31)) is None
    assert prices.rate("p", "m", "chat", on=date(2027, 1, 1)) is not None


def test_estimated_cost_prices_tokens_requests_and_items() -> None:
    prices = book({"provider": "cohere", "model": "rerank-v3.5", "capability": "rerank", "per_request": 0.002,
                   "per_item": 0.0001, "input_per_1m": 1.0})
    demand = Demand(capability="rerank", prompt_tokens=1_000_000, items=10)
    assert estimated_cost(prices, "cohere", "rerank-v3.5", demand, on=day_of(T0)) == pytest.approx(1.003)
    assert estimated_cost(None, "cohere", "rerank-v3.5", demand, on=day_of(T0)) is None


BAD_BOOKS = [
    ("not an object", [], "a JSON object"),
    ("unknown version", {"version": 2, "currency": "USD", "effective": "2026-12-01", "rates": []}, "version"),
    ("bad currency", {"version": 1, "currency": "dollars", "effective": "2026-12-01", "rates": []}, "currency"),
    ("bad date", {"version": 1, "currency": "USD", "effective": "December", "rates": []}, "effective"),
    ("rates not a list", {"version": 1, "currency": "USD", "effective": "2026-12-01", "rates": {}}, "rates must"),
    ("unknown top field", {"version": 1, "currency": "USD", "effective": "2026-12-01", "rates": [], "x": 1}, "x"),
]
BAD_RATES = [
    ({"provider": "p", "model": "m", "capability": "chat", "input_per_1m": -1}, "rates[1].input_per_1m"),
    ({"provider": "p", "model": "m", "capability": "chat", "per_item": "free"}, "rates[1].per_item"),
    ({"provider": "p", "model": "m", "capability": "chat", "per_request": True}, "rates[1].per_request"),
    ({"provider": "p", "model": "m", "capability": "vision"}, "rates[1].capability"),
    ({"provider": "", "model": "m", "capability": "chat"}, "rates[1].provider"),
    ({"provider": "p", "model": "g*pt", "capability": "chat"}, "rates[1].model"),
    ({"provider": "p", "model": "m", "capability": "chat", "input_per_1k": 1}, "input_per_1k"),
    ({"provider": "p", "model": "ok", "capability": "chat"}, "rates[1] prices p/ok/chat again"),
    ("text", "rates[1] must be an object"),
]


@pytest.mark.parametrize(("data", "expected"), [b[1:] for b in BAD_BOOKS], ids=[b[0] for b in BAD_BOOKS])
def test_a_bad_book_names_the_file_and_what_is_wrong(data, expected: str) -> None:
    with pytest.raises(ConfigurationError, match="^prices.json") as caught:
        price_book_from_mapping(data, source="prices.json")
    assert expected in str(caught.value)


@pytest.mark.parametrize(("entry", "expected"), BAD_RATES, ids=[e for _, e in BAD_RATES])
def test_a_bad_rate_names_its_index_and_field(entry, expected: str) -> None:
    first = {"provider": "p", "model": "ok", "capability": "chat"}
    with pytest.raises(ConfigurationError) as caught:
        book(first, entry)
    assert str(caught.value).startswith("prices.json: ") and expected in str(caught.value)
