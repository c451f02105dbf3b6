"""How many items a recall that names no ``k`` asks for: 10, or enough to fill its packet's budget
(one per 40 tokens for a v2 packet, 80 for v1: ADR 0097)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hlmem import Memory
from hlmem.application.recall.query import DEFAULT_K, MAX_K, TOKENS_PER_ITEM, TOKENS_PER_ITEM_BY_VERSION, default_k
from hlmem.domain.errors import ValidationError

NOW = datetime(2026, 3, 1, 12, tzinfo=timezone.utc)


def test_without_a_budget_k_is_ten():
    assert default_k(None) == DEFAULT_K == 10


@pytest.mark.parametrize(("budget", "k"), [(0, 10), (250, 10), (400, 10), (401, 11), (500, 13), (1_000, 25),
                                           (2_000, 50), (8_000, 200), (10**9, 200)])
def test_with_a_budget_one_item_per_forty_tokens_between_ten_and_two_hundred(budget, k):
    assert default_k(budget) == default_k(budget, 2) == k
    assert TOKENS_PER_ITEM == TOKENS_PER_ITEM_BY_VERSION[2] == 40


@pytest.mark.parametrize(("budget", "k"), [(0, 10), (250, 10), (800, 10), (801, 11), (1_000, 13), (2_000, 25),
                                           (16_000, 200), (10**9, 200)])
def test_a_v1_packet_asks_for_one_item_per_eighty_tokens_as_before(budget, k):
    assert default_k(budget, 1) == k


@given(st.integers(min_value=0, max_value=10**7), st.sampled_from([1, 2]))
def test_default_k_is_monotone_and_bounded(budget, version):
    k = default_k(budget, version)
    per_item = TOKENS_PER_ITEM_BY_VERSION[version]
    assert DEFAULT_K <= k <= MAX_K
    assert k <= default_k(budget + 1, version)
    assert k * per_item >= min(budget, MAX_K * per_item)
    assert default_k(budget, 1) <= default_k(budget, 2)  # v2 lines are shorter: never fewer items


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
    assert len(wide.items) == 50
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


def test_a_v1_packet_without_k_asks_for_what_v1_lines_fill():
    with _store(60) as mem:
        v1 = mem.recall("nightly build log", budget=2_000, packet_version=1)
        v2 = mem.recall("nightly build log", budget=2_000)
    assert (len(v1.items), v1.packet.version) == (25, 1)
    assert (len(v2.items), v2.packet.version) == (50, 2)
    assert len(v1.packet.included) <= 25 < len(v2.packet.included)  # v2 lines are shorter: more fit


def test_a_bad_packet_version_is_refused_before_anything_is_read():
    with _store(1) as mem, pytest.raises(ValidationError, match="packet_version"):
        mem._container.recall().recall("build", budget=100, packet_version=3)
