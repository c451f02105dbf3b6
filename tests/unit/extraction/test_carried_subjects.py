"""Whose fact a clause states when it names no one, and facts joined in one sentence.

A clause that names no subject continues the one before it in its sentence (a relative, a pet,
a named person); names listed after a pet or kin name them; "and" joins two facts of one
subject. Sentences here are not the benchmark's.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from hlmem.application.extraction.rules import extract
from hlmem.domain.candidates import CandidateClaim, SourceEvent
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

AT = datetime(2026, 6, 3, 10, 0, tzinfo=timezone.utc)


def run(text: str) -> list[CandidateClaim]:
    event = SourceEvent(event_id="ev_1", text=text, role="user", session_id="s", origin_class="direct_user",
                        session_kind="interactive", occurred_at=AT)
    found = extract([event], DEFAULT_REGISTRY)
    for c in found:
        assert c.evidence_quote in text and c.rule, c
    return found


def triples(text: str) -> set[tuple[str, str, str, bool]]:
    return {(c.subject, c.predicate, c.value, c.polarity) for c in run(text)}


@pytest.mark.parametrize(("text", "subject", "predicate", "value"), [
    ("我姐在医院当护士，经常值夜班", "用户的姐姐", "habit", "经常值夜班"),
    ("我爸爸住在大连，每天早上去海边跑步", "用户的爸爸", "habit", "每天早上去海边跑步"),
    ("我表妹在成都读大二，今年二十岁", "用户的表妹", "age", "20岁"),
    ("我们家那只布偶猫叫团子，今年五岁了", "团子", "age", "5岁"),
    ("我有个儿子叫小宇，今年上三年级，每周日学围棋", "小宇", "habit", "每周日学围棋"),
    ("My grandma is 88 and still lives on her own in Dublin", "user's grandma", "lives_in", "Dublin"),
    ("My cousin Leo works at Siemens and plays bass in a band on weekends", "Leo", "employer", "Siemens"),
    ("Our cat Pepper is nine and has kidney disease", "Pepper", "health_condition", "kidney disease"),
    ("My son, who is 14, plays chess every Friday", "user's son", "habit", "chess"),
])
def test_a_clause_that_names_no_one_continues_the_subject_before_it(text: str, subject: str, predicate: str,
                                                                    value: str) -> None:
    found = run(text)
    assert any(c.subject == subject and c.predicate == predicate and value in c.value for c in found), found
    assert not any(c.subject in ("用户", "user") and c.predicate == predicate for c in found), found


@pytest.mark.parametrize("text", ["我老公是老师，我在银行上班", "My wife is a nurse and I work at a bank"])
def test_a_clause_that_names_the_speaker_is_the_speakers(text: str) -> None:
    found = run(text)
    assert any(c.subject in ("用户", "user") and c.predicate in ("employer", "works_in") for c in found), found


def test_the_carried_subject_stops_at_the_sentence_end() -> None:
    found = run("我姐住在武汉。经常加班。")
    assert {c.subject for c in found if c.predicate == "habit"} == {"用户"}


@pytest.mark.parametrize(("text", "expected"), [
    ("I'm 180 cm and weigh about 75 kg", {("user", "height"), ("user", "weight")}),
    ("My brother is 31 and works as an electrician", {("user's brother", "age"), ("user's brother", "job_title")}),
    ("I live in Leeds and teach maths at Roundhay School", {("user", "lives_in"), ("user", "employer")}),
    ("我今年四十二，在杭州开出租车", {("用户", "age")}),
    ("我有糖尿病，还有点高血压", {("用户", "health_condition")}),
])
def test_two_facts_in_one_sentence_are_both_read(text: str, expected: set[tuple[str, str]]) -> None:
    assert expected <= {(c.subject, c.predicate) for c in run(text)}, run(text)


@pytest.mark.parametrize(("text", "values"), [
    ("We have two dogs, Bella and Max", {"dog (Bella)", "dog (Max)"}),
    ("我养了两只兔子，一只叫雪球", {"兔子（雪球）"}),
    ("I have three kids, Ava, Mia and Leo", {"Ava", "Mia", "Leo"}),
    ("我有两个女儿，大的叫朵朵，小的叫果果", {"朵朵", "果果"}),
    ("I'm allergic to cats, dust and penicillin", {"cats", "dust", "penicillin"}),
    ("I speak French and some German", {"French", "German"}),
])
def test_names_and_lists_after_what_the_clause_introduced(text: str, values: set[str]) -> None:
    assert values <= {c.value for c in run(text)}, run(text)


def test_a_named_pet_or_child_becomes_the_subject_after_it() -> None:
    found = triples("我养了一只猫，叫咪咪，今年两岁")
    assert ("咪咪", "age", "2岁", True) in found and ("用户", "owns", "猫（咪咪）", True) in found


@pytest.mark.parametrize(("text", "subject"), [
    ("我妈身体挺好的", None), ("我妈妈有高血压", "用户的妈妈"), ("我妈有高血压", "用户的妈妈"), ("My mum has asthma", "user's mom"),
])
def test_kin_words_name_one_person_however_they_are_said(text: str, subject: str | None) -> None:
    found = run(text)
    assert {c.subject for c in found} == ({subject} if subject else set()), found
