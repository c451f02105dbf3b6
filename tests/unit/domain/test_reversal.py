"""Reversals in multi-valued slots: a negation retires the positive values it covers."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from itertools import count

import pytest

from hlmem.domain.commands import AssertClaim
from hlmem.domain.decisions import decide_assert
from hlmem.domain.events import ClaimSuperseded
from hlmem.domain.reducers import project
from hlmem.domain.reversal import covers
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


@pytest.mark.parametrize(("negated", "positive", "expected"), [
    ("甜的", "全糖奶茶", True), ("游泳", "每周二去游泳", True), ("宠物", "猫", True), ("pets", "golden retriever", True),
    ("pet", "a cat", True), ("playing tennis", "play tennis on weekends", True), ("sweet drinks", "sweet milk tea", True),
    ("猫", "狗", False), ("", "猫", False), ("meat", "tofu", False), ("咖啡", "拿铁", True),
])
def test_covers(negated: str, positive: str, expected: bool) -> None:
    assert covers(negated, positive) is expected


def _claims(*commands: AssertClaim):
    ids = count()
    events, state = [], {}
    for i, cmd in enumerate(commands):
        slot = [c for c in state.values() if c.predicate == cmd.predicate]
        decision = decide_assert(cmd, slot, registry=DEFAULT_REGISTRY, new_id=lambda p: f"{p}_{next(ids)}",
                                 recorded_at=T0 + timedelta(days=i))
        events.extend(decision.events)
        state = project(events).claims
    return events, state


def test_a_negation_retires_every_covered_value_and_nothing_else() -> None:
    likes = lambda v, pol=True, day=0: AssertClaim(subject="用户", predicate="likes", value=v, polarity=pol,  # noqa: E731
                                                   valid_from=T0 + timedelta(days=day))
    events, claims = _claims(likes("全糖奶茶"), likes("蛋糕", day=1), likes("火锅", day=2), likes("甜的", False, day=3))
    superseded = {e.stream_id for e in events if isinstance(e, ClaimSuperseded)}
    by_value = {c.value: c for c in claims.values()}
    assert superseded == {by_value["全糖奶茶"].claim_id, by_value["蛋糕"].claim_id}
    assert by_value["火锅"].claim_id not in superseded


def test_a_positive_value_still_competes_only_with_its_own_value() -> None:
    likes = lambda v, day: AssertClaim(subject="用户", predicate="likes", value=v, valid_from=T0 + timedelta(days=day))  # noqa: E731
    events, _ = _claims(likes("全糖奶茶", 0), likes("甜", 1))
    assert not [e for e in events if isinstance(e, ClaimSuperseded)]
