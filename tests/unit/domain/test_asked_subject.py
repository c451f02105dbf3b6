"""Whose fact a question asks for, in English and Chinese (domain/asked_subject.py, ADR 0089)."""

from __future__ import annotations

import pytest
from hypothesis import example, given, strategies as st

from hlmem.domain.asked_subject import (AskedSubject, asked_subject, is_asked, same_kin, speaks_of_another,
                                         subject_chain)
from hlmem.domain.kin_words import EN_KIN, ZH_KIN

STORE = ["用户", "Bob", "小明", "user's sister", "Alice", "用户的猫"]


def read(question: str, names=STORE) -> tuple[str, tuple[str, ...]] | None:
    found = asked_subject(question, names)
    return None if found is None else (found.anchor, found.hops)


@pytest.mark.parametrize(("question", "expected"), [
    # the user as subject
    ("what am I allergic to, again?", ("user", ())),
    ("Which company do I work at? blanking lol", ("user", ())),
    ("what's my favorite outdoor thing to do?", ("user", ())),
    ("what did I give my sister?", ("user", ())),
    ("what does the user like to drink?", ("user", ())),
    ("我住哪个城市你还记得吧", ("user", ())),
    ("我对啥过敏来着", ("user", ())),
    ("你还记得我住哪吗", ("user", ())),
    ("用户的工作是什么？", ("user", ())),
    ("我们公司在哪", ("user", ())),
    # a kin phrase: the 我/my there owns the relative
    ("我妹住哪", ("user", ("妹",))),
    ("我妹现在住哪个城市？", ("user", ("妹",))),
    ("我姐姐在哪家公司上班来着", ("user", ("姐姐",))),
    ("where does my sister live?", ("user", ("sister",))),
    ("My sister lives where?", ("user", ("sister",))),
    ("what's my sister's hobby?", ("user", ("sister",))),
    ("my sister's husband works where?", ("user", ("sister", "husband"))),
    ("我老婆的哥哥在哪上班", ("user", ("老婆", "哥哥"))),
    ("用户的妹妹住哪", ("user", ("妹妹",))),
    ("where does the user's sister live?", ("user", ("sister",))),
    ("老妈最近在忙什么？", ("user", ("老妈",))),
    # first person that only frames the question
    ("remind me who my sis works for", ("user", ("sis",))),
    ("I forgot where my sister lives", ("user", ("sister",))),
    ("I can't remember where my sister works", ("user", ("sister",))),
    ("帮我查下我妹住哪", ("user", ("妹",))),
    ("我忘了我妹住哪了", ("user", ("妹",))),
    ("告诉我Bob在哪工作", ("Bob", ())),
    ("你跟我说过Alice住哪吗", ("Alice", ())),
    # a named person
    ("where does Bob live?", ("Bob", ())),
    ("Bob在哪工作来着", ("Bob", ())),
    ("小明住哪儿来着", ("小明", ())),
    ("Which city is 小明 in?", ("小明", ())),
    ("what's 小明's favorite drink?", ("小明", ())),
    ("Tom's manager's email?", ("Tom", ("manager",))),
    ("张伟的老婆在哪上班", ("张伟", ("老婆",))),
    ("Who does Tom work for?", ("Tom", ())),  # a name the store does not know is still someone else
    # the clause that asks, not the one that explains
    ("Alice对什么过敏来着，我家有宠物得注意", ("Alice", ())),
    ("what's Alice's diet, I'm cooking Saturday", ("Alice", ())),
    ("hey quick q — what do you remember about Bob?", ("Bob", ())),
    ("where do I live? my sister keeps asking", ("user", ())),
    # a topic said before the question, a name after the kin word
    ("My allergies — what were they again?", ("user", ())),
    ("My sister — where does she live?", ("user", ("sister",))),
    ("我妹，她现在住哪", ("user", ("妹",))),
    ("Bob — where does he work?", ("Bob", ())),
    ("what does my friend Tom do?", ("Tom", ())),
    ("我同事小明在哪上班", ("小明", ())),
    # a thing of the user's the store knows
    ("我的猫叫什么", ("user", ("猫",))),
    # no one, two people, or a pronoun: no subject
    ("where do Bob and I live?", None),
    ("Bob和我住哪", None),
    ("我和我妹住哪", None),
    ("where does she live?", None),
    ("他在哪上班", None),
    ("几点了", None),
])
def test_asked_subject(question: str, expected) -> None:
    assert read(question) == expected


def test_a_name_is_found_only_when_the_store_or_the_capital_says_so() -> None:
    assert read("小明住哪", names=[]) is None
    assert read("小明住哪") == ("小明", ())


@pytest.mark.parametrize(("subject", "expected"), [
    ("用户", ("user", ())), ("user", ("user", ())), ("我", ("user", ())),
    ("user's sister", ("user", ("sister",))), ("用户的妹妹", ("user", ("妹妹",))),
    ("用户的老婆的哥哥", ("user", ("老婆", "哥哥"))), ("Priya's husband", ("Priya", ("husband",))),
    ("Bob", ("Bob", ())),
])
def test_subject_chain(subject: str, expected) -> None:
    assert subject_chain(subject) == expected


@pytest.mark.parametrize(("asked", "subject", "expected"), [
    (AskedSubject("user"), "用户", True),
    (AskedSubject("user"), "user", True),
    (AskedSubject("user"), "user's sister", False),
    (AskedSubject("user", ("妹",)), "user's sister", True),
    (AskedSubject("user", ("妹",)), "用户的妹妹", True),
    (AskedSubject("user", ("妹",)), "用户的姐姐", False),  # 妹 is the younger one
    (AskedSubject("user", ("姐姐",)), "user's sister", True),
    (AskedSubject("user", ("sis",)), "user's sister", True),
    (AskedSubject("user", ("sister",)), "user's brother", False),
    (AskedSubject("user", ("sister",)), "用户", False),
    (AskedSubject("user", ("cousin",)), "用户的表哥", True),
    (AskedSubject("user", ("wife", "brother")), "用户的老婆的哥哥", True),
    (AskedSubject("Bob"), "Bob", True),
    (AskedSubject("Bob"), "bob", True),
    (AskedSubject("Bob"), "Bob Smith", True),
    (AskedSubject("Bob"), "Bobby", False),
    (AskedSubject("Bob"), "用户", False),
    (AskedSubject("Tom", ("manager",)), "Tom's manager", True),
    (AskedSubject("Tom", ("manager",)), "Tom", False),
])
def test_is_asked(asked: AskedSubject, subject: str, expected: bool) -> None:
    assert is_asked(asked, subject) is expected


KIN = sorted({*EN_KIN, *ZH_KIN})


@given(st.sampled_from(KIN), st.sampled_from(KIN))
@example("sister", "妹妹")
@example("姐姐", "妹妹")
def test_same_kin_is_symmetric_and_reflexive(a: str, b: str) -> None:
    assert same_kin(a, a)
    assert same_kin(a, b) == same_kin(b, a)


@given(st.sampled_from(["Bob", "Alice", "Anna Lee", "小明", "张伟", "Priya"]),
       st.sampled_from(["where does {} live?", "{}住在哪", "What is {}'s job title?", "{}对什么过敏"]))
def test_a_named_subject_reads_back_as_itself(name: str, template: str) -> None:
    found = asked_subject(template.format(name), [name, "用户"])
    assert found is not None and is_asked(found, name) and not is_asked(found, "用户")


@given(st.text(max_size=80))
def test_any_text_reads_without_error(text: str) -> None:
    found = asked_subject(text, STORE)
    assert found is None or isinstance(found, AskedSubject)


@pytest.mark.parametrize(("text", "expected"), [
    ("开学第二天，他已经能自己背书包进校门了，上一年级了", True),
    ("He started first grade last week", True),
    ("我妈说她买了一只虎皮鹦鹉", False),  # first person too: who is who is the extractor's to say
    ("上周搬到杭州了", False),  # no one named: the user, as Chinese drops the 我
    ("I moved to Hangzhou", False),
])
def test_speaks_of_another(text: str, expected: bool) -> None:
    assert speaks_of_another(text) is expected
