"""The one reading of whom a question asks about, in English and Chinese (domain/asked_subject.py,
domain/subject_match.py; ADR 0089, ADR 0098): whose fact a value question asks for, and whose profile
a profile question asks for (domain/profile_reading.py's read_subject reads through it)."""

from __future__ import annotations

import pytest
from hypothesis import example, given, strategies as st

from hlmem.domain.asked_subject import (AskedSubject, asked_clause, asked_subject, is_asked, is_plural_self,
                                         people_named, refers_back, same_kin, speaks_of_another, strip_first_person,
                                         subject_chain)
from hlmem.domain.profile_reading import mentions_user, read_subject
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
    ("Bob", ("Bob", ())), ("my mom", ("user", ("mom",))), ("our dog", ("user", ("dog",))),
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



# --- around the asking clause: wrappers, pronouns, plans, reported questions (ADR 0098) ---------------

@pytest.mark.parametrize(("question", "expected"), [
    # a wrapper before a dash or a colon hands the asking on
    ("hey, remind me — who do I work for?", ("user", ())),
    ("remind me: where does my sister live?", ("user", ("sister",))),
    ("quick question: where does Bob live?", ("Bob", ())),
    ("帮我想想：我妹住哪", ("user", ("妹",))),
    ("问一下——Alice对什么过敏？", ("Alice", ())),
    ("at 3:30 where am I?", ("user", ())),  # a colon inside a time splits nothing
    # a pronoun is the person a clause before names, never the user
    ("下周要跟 Bob 吃饭，帮我回忆下他的情况", ("Bob", ())),
    ("下周要跟小明吃饭，他喜欢喝什么", ("小明", ())),
    ("I'm meeting Alice later, what does she eat?", ("Alice", ())),
    ("我明天见我姐，她住哪来着", ("user", ("姐",))),
    ("I forgot, where does she live?", None),  # "she" is not the one who forgot
    ("Bob and Alice are coming, what does she eat?", None),  # two people before: not known which
    ("My allergies — what were they again?", ("user", ())),  # "they" may be things
    # a full stop before a space ends a sentence (fresh_p3: the sister, not the user who owes a visit)
    ("I owe my sister a visit. where's she living these days?", ("user", ("sister",))),
    ("I met Bob. What does he do?", ("Bob", ())),
    ("What is v1.2 of my app?", ("user", ())),  # a full stop inside a version splits nothing
    # the first person as the one asking or planning, not the one asked about
    ("I'm seeing Leo tomorrow, what should I know?", ("Leo", ())),
    ("refresh my memory on Bob before the call, would you?", ("Bob", ())),
    ("what should I know about Alice?", ("Alice", ())),
    # a question put to the user is about the user
    ("朋友问我在哪高就", ("user", ())),
    ("朋友问我在哪高就，我东家是哪家来着", ("user", ())),
    ("Bob asked me where I live", ("user", ())),
])
def test_around_the_asking_clause(question: str, expected) -> None:
    assert read(question) == expected


@pytest.mark.parametrize(("question", "clause"), [
    ("下周要跟 Bob 吃饭，帮我回忆下他的情况", "帮我回忆下Bob的情况"),
    ("I'm meeting Alice later, what do you know about her?", "what do you know about Alice?"),
    ("Bob's coming over — what are his hobbies?", "what are Bob's hobbies?"),
    ("我妹 — 她住哪？", "我妹住哪?"),
    ("where does Bob live?", None),  # no pronoun to resolve
    ("where does she live?", None),  # nothing before names her
    ("My allergies — what were they again?", None),  # "they": not a person
])
def test_asked_clause_reads_the_pronoun_as_the_person_named_before(question: str, clause: str | None) -> None:
    assert asked_clause(question, STORE) == clause


def test_refers_back_needs_a_personal_pronoun_after_a_clause() -> None:
    assert refers_back("下周要跟 Bob 吃饭，帮我回忆下他的情况")
    assert refers_back("I'm meeting Alice later, what does she eat?")
    assert not refers_back("他在哪上班") and not refers_back("where does Bob live?")
    assert not refers_back("My allergies — what were they again?")


def test_people_named_gives_the_asked_subject_first_then_the_others() -> None:
    people = people_named("what does my boss think of Alice?", STORE)
    assert [(p.anchor, p.hops) for p in people] == [("user", ("boss",)), ("Alice", ())]
    assert [p.anchor for p in people_named("tell me about Carol", STORE)] == ["Carol"]
    assert people_named("", STORE) == []


def test_plural_first_person_and_stripping_the_singular() -> None:
    assert is_plural_self(asked_subject("我们团队怎么样"))
    assert not is_plural_self(asked_subject("我住哪"))
    assert strip_first_person("我的情况").strip() == "的情况"
    assert "我们" in strip_first_person("我们的项目")
    assert strip_first_person("what am I into, my stuff").split() == ["what", "am", "into,", "stuff"]


# --- a profile question's subject, read through the same reading (ADR 0090, ADR 0098) -------------

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
    ("what does my boss think of Alice?", "Alice"),  # the asked subject has no profile: the next one named
    ("下周要跟 Bob 吃饭，帮我回忆下他的情况", "Bob"),  # the pronoun takes up the person the plan names
    ("hey, remind me — what do you know about me?", "用户"),
    ("refresh my memory on Bob before the call, would you?", "Bob"),
    ("Bob Smith Jr's hobbies?", "Bob Smith Jr"),
])
def test_read_subject(question: str, subject: str) -> None:
    assert read_subject(question, SUBJECTS) == subject


@pytest.mark.parametrize("question", ["what's the weather like?", "Bobby's car", "我们团队怎么样", "tell me about Carol",
                                      "I'm seeing Leo tomorrow, anything I should know?", "where does she live?"])
def test_no_subject_with_a_profile_is_read(question: str) -> None:
    assert read_subject(question, SUBJECTS) is None


def test_a_longer_stored_name_is_found_by_its_first_word_and_the_user_needs_the_first_person() -> None:
    assert read_subject("what about Jack?", ["Jack Smith", "用户"]) == "Jack Smith"
    assert read_subject("tell me everything", ["用户"]) is None
    assert mentions_user("what am I into") and mentions_user("我的情况") and not mentions_user("我们的项目")


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
