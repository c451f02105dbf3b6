"""Which side a profile question asks about, and the bare subject (ADR 0090). Whom it is about is
read by the one reading of the asked subject: tests/unit/domain/test_asked_subject.py (ADR 0098)."""

from __future__ import annotations

import pytest

from hlmem.domain.ask_features import IntentReading, features, linear_probability
from hlmem.domain.profile_reading import bare_subject, read_side

@pytest.mark.parametrize(("question", "side"), [
    ("give me a quick rundown on Alice's health stuff", "health"),
    ("我吃东西有啥要注意的，你帮我总结一下", "health"),
    ("Give me the rundown on Bob's hobbies, I'm picking a birthday gift", "preferences"),  # the first side named
    ("where's Bob based these days, and anything else location-wise?", "places"),
    ("我工作上的情况你都记得哪些？", "work"),
    ("说说小明平时喜欢干嘛", "preferences"),
    ("what do you know about Bob?", None),
    ("Bob这个人你有印象吗，大概说下", None),
])
def test_read_side(question: str, side: str | None) -> None:
    assert read_side(question) == side


@pytest.mark.parametrize(("question", "subject", "bare"), [
    ("Bob?", "Bob", True), ("小明这人", "小明", True), ("Alice's health stuff", "Alice", True),
    ("我的情况", "用户", True), ("hey, Bob?", "Bob", True), ("小明呢？", "小明", True),
    ("Bob Acme", "Bob", False), ("Bob", "Bob", False), ("小明", "小明", False), ("bob", "Bob", False), ("where does Bob live?", "Bob", False), ("Bob's job?", "Bob", True),
    ("小明住哪儿", "小明", False), ("小明在哪工作", "小明", False), ("what is Bob's job?", "Bob", False), ("where does Bob work?", "Bob", False), ("小明住哪", "小明", False),
    ("我对什么过敏？", "用户", False), ("Carol?", "Bob", False),
])
def test_bare_subject(question: str, subject: str, bare: bool) -> None:
    assert bare_subject(question, subject) is bare


def test_features_fold_case_and_width_and_pair_neighbours() -> None:
    assert features("What  ABOUT Bob？") == features("what about bob?")
    assert {"what", "about", "bob", "?", "what about", "about bob", "bob ?"} == set(features("what about bob?"))
    assert {"这", "人", "这 人", "咋 样"} <= features("小明这人咋样")
    assert features("") == frozenset()


def test_linear_probability_counts_each_feature_once_and_scales_by_their_number() -> None:
    weights = {"bob": 2.0, "?": 2.0}
    assert linear_probability("", weights, 0.0) == 0.5
    p = linear_probability("bob ? bob", weights, 0.0)  # features: bob, ?, "bob ?", "? bob"
    assert p == pytest.approx(1 / (1 + 2.718281828459045 ** -(4.0 / 2.0)), rel=1e-6)
    assert IntentReading(0.9, 0.9, "lexical").is_profile and not IntentReading(0.89, 0.9, "lexical").is_profile
