"""Whom a profile question is about and which side (ADR 0090): read against the subjects that have
a profile, in both languages; a name beats a relative, a relative beats the user."""

from __future__ import annotations

import pytest

from hlmem.domain.ask_features import IntentReading, features, linear_probability
from hlmem.domain.profile_reading import bare_subject, mentions_user, read_side, read_subject

SUBJECTS = ["用户", "Bob", "小明", "user's sister", "Alice", "Bob Smith Jr", "用户的妈妈"]


@pytest.mark.parametrize(("question", "subject"), [
    ("hey quick q — what do you remember about Bob?", "Bob"),
    ("给我讲讲Alice的情况，越全越好", "Alice"),  # a Latin name between Han characters
    ("小明这人咋样", "小明"),
    ("What have you got on my sis? Just a quick summary", "user's sister"),
    ("我妹的情况你都知道些什么？", "user's sister"),  # 妹 is the stored English "sister"
    ("聊聊我姐姐呗，你记得她哪些事", "user's sister"),
    ("remind me what you know about my sister's work situation", "user's sister"),  # the relative, not the user
    ("我妈这个人你了解多少", "用户的妈妈"),
    ("我这个人有啥特点你记得不", "用户"),
    ("ok be honest, what have you learned about me so far?", "用户"),
    ("what does my boss think of Alice?", "Alice"),  # a name beats a relative
])
def test_read_subject(question: str, subject: str) -> None:
    assert read_subject(question, SUBJECTS) == subject


@pytest.mark.parametrize("question", ["what's the weather like?", "Bobby's car", "我们团队怎么样", "tell me about Carol"])
def test_no_subject_with_a_profile_is_read(question: str) -> None:
    assert read_subject(question, SUBJECTS) is None


def test_a_longer_stored_name_is_found_by_its_first_word_and_the_user_needs_the_first_person() -> None:
    assert read_subject("what about Jack?", ["Jack Smith", "用户"]) == "Jack Smith"
    assert read_subject("tell me everything", ["用户"]) is None
    assert mentions_user("what am I into") and mentions_user("我的情况") and not mentions_user("我们的项目")


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
