"""Recall of compound questions and corrections (domain/query_parts.py, ADR 0057), through ``Memory``."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from hlmem import Memory

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)

NOTES = [
    "我上司的邮箱地址是wangsiqi@shxf.com。",
    "我上司的旧邮箱地址是wsq@old.com。",
    "我上司的私人邮箱地址是siqi@home.com。",
    "我表姐的邮箱地址是zhanglihua@star.com。",
    "我舅舅的邮箱地址是zhangwei@qd.com。",
    "我的手机是苹果的iPhone13。",
    "今天的天气真是变幻莫测，下午就乌云密布了。",
    "我朋友最近刚过完生日。",
]


def notes(mem: Memory) -> dict[str, str]:
    ids = {}
    for text in NOTES:
        mem.clock.advance(timedelta(minutes=5))
        ids[text] = mem.add(text, extract=False).id
    return ids


@pytest.fixture
def mem():
    with Memory(":memory:", embedder="none", now=T0) as m:
        yield m


def test_each_part_of_a_compound_question_gets_its_share(mem: Memory) -> None:
    ids = notes(mem)
    query = "我上司的邮箱地址是多少来着？另外，我手里拿的这部手机是什么型号来着？"
    whole = [i.id for i in mem.recall(query, k=3, understand_query=False).items]
    assert ids["我的手机是苹果的iPhone13。"] not in whole  # searched as one text, the e-mails take every slot
    result = mem.recall(query, k=3)
    got = [i.id for i in result.items]
    assert got[:2] == [ids["我上司的邮箱地址是wangsiqi@shxf.com。"], ids["我的手机是苹果的iPhone13。"]]
    assert len(got) == len(set(got)) == 3
    assert any(n.startswith("compound question: 2 parts") for n in result.notes)


def test_a_part_with_nothing_to_find_leaves_its_slots_to_the_others(mem: Memory) -> None:
    ids = notes(mem)
    result = mem.recall("我上司的邮箱地址是多少？另外，量子色动力学的拉格朗日量是什么？", k=4)
    got = [i.id for i in result.items]
    assert got[0] == ids["我上司的邮箱地址是wangsiqi@shxf.com。"]
    assert len(got) == len(set(got))
    assert sum(1 for i in got if "邮箱" in next(t for t, v in ids.items() if v == i)) >= 3


def test_a_correction_searches_only_what_follows_it(mem: Memory) -> None:
    ids = notes(mem)
    query = "今天的天气真是变幻莫测，我朋友最近刚过完生日。不好意思，我真正想问的是：我的手机是什么型号？"
    result = mem.recall(query, k=2)
    assert [i.id for i in result.items][0] == ids["我的手机是苹果的iPhone13。"]
    weather = ids["今天的天气真是变幻莫测，下午就乌云密布了。"]
    # The disowned words are not searched (the note may still come as the phone note's neighbour).
    assert all("text" not in i.ranks for i in result.items if i.id == weather)
    assert "correction: only what follows it is searched: '我的手机是什么型号?'" in result.notes
    plain = mem.recall(query, k=2, understand_query=False)
    assert next(i for i in plain.items if i.id == weather).ranks["text"] <= 2


def test_the_session_filter_and_k_hold_for_compound_questions(mem: Memory) -> None:
    a = mem.add("我上司的邮箱地址是boss@a.com。", session="s1", extract=False).id
    mem.add("我的手机是华为Mate60。", session="s2", extract=False)
    b = mem.add("我的手机是苹果的iPhone13。", session="s1", extract=False).id
    result = mem.recall("我上司的邮箱是多少？另外，我的手机是什么型号？", k=5, session="s1")
    assert [i.id for i in result.items] == [a, b]
    assert len(mem.recall("我上司的邮箱是多少？另外，我的手机是什么型号？", k=1).items) == 1


def test_a_bad_compound_query_is_refused_whole(mem: Memory) -> None:
    from hlmem.domain.errors import ValidationError

    with pytest.raises(ValidationError):
        mem.recall("我上司的邮箱是多少？另外，我的手机是什么型号？" * 200)


def test_a_question_about_the_one_whose_follows_the_note_that_names_them(mem: Memory) -> None:
    ids = {}
    for text in ["我表弟叫张伟。", "我舅舅叫李强。", "我同事叫王芳。", "我上司叫赵敏。", "我表姐叫陈静。",
                 "我表弟的电话号码是13225162475。", "我舅舅的电话号码是13800000000。"]:
        mem.clock.advance(timedelta(hours=3))  # hours apart: no neighbour turns
        ids[text] = mem.add(text, extract=False).id
    question = "那个联系电话是13225162475的人，其姓名是什么？"
    result = mem.recall(question, k=2)
    got = [i.id for i in result.items]
    assert got == [ids["我表弟的电话号码是13225162475。"], ids["我表弟叫张伟。"]]
    assert any(n.startswith("bridge: the question asks of '联系电话是13225162475'; followed 表弟") for n in result.notes)
    without = mem.recall(question, k=2, understand_query=False)
    assert ids["我表弟叫张伟。"] not in {i.id for i in without.items}


def test_bridge_top_zero_turns_the_bridge_off() -> None:
    with Memory(":memory:", embedder="none", now=T0, ranking={"bridge_top": 0}) as mem:
        mem.add("我表弟叫张伟。", extract=False)
        mem.clock.advance(timedelta(hours=3))
        mem.add("我表弟的电话号码是13225162475。", extract=False)
        result = mem.recall("那个联系电话是13225162475的人，其姓名是什么？", k=2)
        assert not any(n.startswith("bridge:") for n in result.notes)


def test_question_parts_off_searches_the_query_as_written() -> None:
    with Memory(":memory:", embedder="none", now=T0, ranking={"question_parts": False}) as mem:
        ids = notes(mem)
        result = mem.recall("我上司的邮箱地址是多少来着？另外，我手里拿的这部手机是什么型号来着？", k=3)
        assert ids["我的手机是苹果的iPhone13。"] not in {i.id for i in result.items}
        assert not any(n.startswith(("compound question", "correction")) for n in result.notes)
