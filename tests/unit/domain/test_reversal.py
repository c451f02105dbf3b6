"""Reversals in multi-valued slots: a negation retires the positive values it covers."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from itertools import count

import pytest

from hlmem.domain.commands import AssertClaim
from hlmem.domain.decisions import decide_assert
from hlmem.domain.events import ClaimSuperseded
from hlmem.domain.reducers import project
from hlmem.domain.reversal import covers, replaces
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


# -- replacements and reported changes (ADR 0059) ------------------------------------------------


@pytest.mark.parametrize(("predicate", "new", "old", "change", "expected"), [
    ("diet", "pescatarian", "vegetarian", False, True), ("diet", "鱼素", "素食者", False, True),
    ("diet", "vegan", "strict vegetarian", False, True), ("diet", "keto", "vegetarian", False, False),
    ("diet", "gluten-free", "vegan", True, False), ("diet", "vegan", "vegan", True, False),
    ("owns", "Pixel 8", "Samsung Galaxy S21", True, True), ("owns", "Pixel 8", "Samsung Galaxy S21", False, False),
    ("owns", "比亚迪", "大众朗逸", True, True), ("owns", "Samsung TV", "iPhone 13", True, False),
    ("owns", "cat", "dog", True, False), ("owns", "bike", "Honda Civic", True, False),
    ("uses", "Android", "iPhone", True, True), ("uses", "Obsidian", "Notion", True, True),
    ("uses", "Firefox", "Notion", True, False), ("uses", "Slack", "Teams", True, False),
    ("habit", "周六学游泳", "每周六学钢琴", True, True), ("habit", "周日学游泳", "每周六学钢琴", True, False),
    ("habit", "golf on Saturdays", "tennis every Saturday", True, True),
    ("habit", "golf on Saturdays", "tennis every Saturday", False, False),
    ("likes", "jazz", "rock", True, False),
])
def test_replaces(predicate: str, new: str, old: str, change: bool, expected: bool) -> None:
    assert replaces(predicate, new, old, change=change) is expected


@pytest.mark.parametrize(("negated", "positive"), [
    ("钢琴课", "每周六学钢琴"), ("going to the gym", "gym every Monday"), ("play tennis", "tennis every Sunday"),
])
def test_covers_without_class_words_and_light_verbs(negated: str, positive: str) -> None:
    assert covers(negated, positive)


def test_a_diet_label_replaces_a_conflicting_one_and_keeps_the_others() -> None:
    diet = lambda v, day: AssertClaim(subject="user", predicate="diet", value=v, valid_from=T0 + timedelta(days=day))  # noqa: E731
    events, claims = _claims(diet("vegetarian", 0), diet("gluten-free", 1), diet("pescatarian", 2))
    status = {c.value: c.status.value for c in claims.values()}
    assert status == {"vegetarian": "superseded", "gluten-free": "active", "pescatarian": "active"}


def test_a_change_replaces_the_same_kind_and_a_plain_statement_does_not() -> None:
    owns = lambda v, day, change=False: AssertClaim(subject="user", predicate="owns", value=v,  # noqa: E731
                                                    valid_from=T0 + timedelta(days=day), change=change)
    _, claims = _claims(owns("Galaxy S21", 0), owns("cat", 1), owns("Pixel 8", 2))
    assert {c.value for c in claims.values() if c.status.value == "active"} == {"Galaxy S21", "cat", "Pixel 8"}
    _, claims = _claims(owns("Galaxy S21", 0), owns("cat", 1), owns("Pixel 8", 2, change=True))
    assert {c.value for c in claims.values() if c.status.value == "active"} == {"cat", "Pixel 8"}


def test_a_reported_change_dated_before_the_last_statement_is_still_the_latest_word() -> None:
    # "I live in Portland" (day 10), then "I moved to Seattle" dated day 5, said on day 11.
    lives = lambda v, start, change=False: AssertClaim(subject="user", predicate="lives_in", value=v,  # noqa: E731
                                                       valid_from=T0 + timedelta(days=start), change=change)
    ids = count()
    events: list = []
    state: dict = {}
    for cmd, day in ((lives("Boston", 0), 0), (lives("Portland", 10), 10), (lives("Seattle", 5, change=True), 11)):
        slot = list(state.values())
        events.extend(decide_assert(cmd, slot, registry=DEFAULT_REGISTRY, new_id=lambda p: f"{p}_{next(ids)}",
                                    recorded_at=T0 + timedelta(days=day)).events)
        state = project(events).claims
    by_value = {c.value: c for c in state.values()}
    assert by_value["Seattle"].status.value == "active" and by_value["Seattle"].valid_to is None
    assert by_value["Seattle"].versions[-1].valid_from == T0 + timedelta(days=5)
    assert by_value["Boston"].valid_to == T0 + timedelta(days=5)  # held until the move
    assert by_value["Portland"].status.value == "superseded"
    assert by_value["Portland"].valid_to == by_value["Portland"].versions[-1].valid_from  # never held after all


def test_a_late_record_without_a_change_still_lands_between() -> None:
    lives = lambda v, start: AssertClaim(subject="user", predicate="lives_in", value=v,  # noqa: E731
                                         valid_from=T0 + timedelta(days=start))
    ids = count()
    events: list = []
    state: dict = {}
    for cmd, day in ((lives("Portland", 10), 10), (lives("Seattle", 5), 11)):
        events.extend(decide_assert(cmd, list(state.values()), registry=DEFAULT_REGISTRY,
                                    new_id=lambda p: f"{p}_{next(ids)}", recorded_at=T0 + timedelta(days=day)).events)
        state = project(events).claims
    by_value = {c.value: c for c in state.values()}
    assert by_value["Portland"].status.value == "active"
    assert by_value["Seattle"].valid_to == T0 + timedelta(days=10)
