"""How many items a recall that names no ``k`` asks for: 10, or enough to fill its packet's budget."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hlmem import Memory
from hlmem.application.recall.query import DEFAULT_K, MAX_K, TOKENS_PER_ITEM, default_k
from hlmem.domain.errors import ValidationError

NOW = datetime(2026, 3, 1, 12, tzinfo=timezone.utc)


def test_without_a_budget_k_is_ten():
    assert default_k(None) == DEFAULT_K == 10


@pytest.mark.parametrize(("budget", "k"), [(0, 10), (250, 10), (800, 10), (801, 11), (1_000, 13), (2_000, 25),
                                           (16_000, 200), (10**9, 200)])
def test_with_a_budget_one_item_per_eighty_tokens_between_ten_and_two_hundred(budget, k):
    assert default_k(budget) == k


@given(st.integers(min_value=0, max_value=10**7))
def test_default_k_is_monotone_and_bounded(budget):
    k = default_k(budget)
    assert DEFAULT_K <= k <= MAX_K
    assert k <= default_k(budget + 1)
    assert k * TOKENS_PER_ITEM >= min(budget, MAX_K * TOKENS_PER_ITEM)


def _store(n: int) -> Memory:
    mem = Memory(":memory:", embedder="none", now=NOW)
    for i in range(n):
        mem.add(f"build log {i}: the nightly build of module m{i} passed", extract=False)
    return mem


def test_a_budget_without_k_fills_the_packet_past_ten_items():
    with _store(60) as mem:
        wide = mem.recall("nightly build log", budget=2_000)
        narrow = mem.recall("nightly build log", budget=2_000, k=10)
    assert len(narrow.items) == 10 and len(narrow.packet.included) == 10
    assert len(wide.items) == 25
    assert len(wide.packet.included) > 10
    assert wide.packet.tokens > narrow.packet.tokens
    assert list(wide.packet.included[:10]) == list(narrow.packet.included)  # the same best items first


def test_without_budget_or_k_ten_items():
    with _store(30) as mem:
        assert len(mem.recall("nightly build log").items) == 10


@pytest.mark.parametrize("k", [0, 201, True, "5", 2.0])
def test_a_bad_k_is_still_refused(k):
    with _store(1) as mem, pytest.raises(ValidationError, match="k must be between 1 and 200"):
        mem.recall("build", k=k)
