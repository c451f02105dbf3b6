"""The relation phrase of a question, in English and Chinese (domain/relation_query.py, ADR 0085)."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from hlmem.domain.kin_words import kin_type, same_relative
from hlmem.domain.relation_query import relation_phrases


def first(question: str) -> tuple[str, str, tuple[tuple[str, str], ...]] | None:
    found = relation_phrases(question)
    if not found:
        return None
    p = found[0]
    return p.span, p.anchor, tuple((h.word, h.relation) for h in p.hops)


@pytest.mark.parametrize(("question", "expected"), [
    ("where does my sister work?", ("my sister", "user", (("sister", "sibling"),))),
    ("Where does my older sis live now?", ("my older sis", "user", (("sis", "sibling"),))),
    ("what does my boss's husband do?", ("my boss's husband", "user", (("boss", "manager"), ("husband", "spouse")))),
    ("what's Tom's manager's name?", ("Tom's manager", "Tom", (("manager", "manager"),))),
    ("Does Anna Lee's husband still work at Acme?", ("Anna Lee's husband", "Anna Lee", (("husband", "spouse"),))),
    ("what does my sister-in-law do?", ("my sister-in-law", "user", (("sister-in-law", "sister_in_law"),))),
    ("is mom still working?", ("mom", "user", (("mom", "mother"),))),
    ("我表哥现在住哪？", ("我表哥", "user", (("表哥", "cousin"),))),
    ("我老婆的哥哥在哪上班", ("我老婆的哥哥", "user", (("老婆", "spouse"), ("哥哥", "sibling")))),
    ("张伟的老婆在哪工作？", ("张伟的老婆", "张伟", (("老婆", "spouse"),))),
    ("你知道小雨的男朋友是做什么的吗", ("小雨的男朋友", "小雨", (("男朋友", "partner"),))),
    ("老妈最近在忙什么？", ("老妈", "user", (("老妈", "mother"),))),
    ("我对门邻居的儿子是做什么的？", ("我对门邻居的儿子", "user", (("邻居", "neighbor"), ("儿子", "child")))),
    ("我们年级组长的女儿在哪读博？", ("我们年级组长的女儿", "user", (("组长", "manager"), ("女儿", "child")))),
    ("我们组现在的组长是谁？", ("我们组现在的组长", "user", (("组长", "manager"),))),
    ("我老婆她哥在哪", ("我老婆她哥", "user", (("老婆", "spouse"), ("哥", "sibling")))),
    ("跟我下棋的那个同事，他儿子在哪留学？", ("跟我下棋的那个同事，他儿子", "user", (("同事", "colleague"),
                                                                  ("儿子", "child")))),
    ("我那个一起跑单的老乡现在干嘛？", ("我那个一起跑单的老乡", "user", (("老乡", "knows"),))),
    ("带我的师傅以前在哪家公司干过？", ("带我的师傅", "user", (("师傅", "advisor"),))),
    ("大舅哥的女儿最后去哪读研？", ("大舅哥的女儿", "user", (("大舅哥", "brother_in_law"), ("女儿", "child")))),
    ("What does my Army buddy's fiancée do?", ("my Army buddy's fiancée", "user", (("buddy", "friend"),
                                                                                  ("fiancée", "partner")))),
    ("我和老婆去哪玩了", None),
    ("我家的猫几岁了", None),
    ("What activity did Caroline used to do with her dad?", None),
    ("where do I work?", None),
    ("What's the weather in Boston?", None),
    ("今天天气怎么样", None),
])
def test_the_phrase_a_question_names_someone_by(question, expected) -> None:
    assert first(question) == expected


def test_a_name_before_的_is_read_both_ways_and_the_walk_decides() -> None:
    anchors = [p.anchor for p in relation_phrases("昨天张伟明的老婆来了吗")]
    assert anchors == ["伟明", "张伟明"]


def test_a_chain_is_never_read_as_a_clause() -> None:
    """"我老婆的哥哥" is the wife's brother; never "my brother" (a clause "我老婆" + 的 + 哥哥)."""
    assert [tuple(h.word for h in p.hops) for p in relation_phrases("我老婆的哥哥在哪上班")] == [("老婆", "哥哥")]


def test_kin_names_as_the_extractor_writes_them() -> None:
    en, = relation_phrases("where does my Sister work?")
    zh, = relation_phrases("我妹妹在哪上班")
    two = relation_phrases("what does my boss's husband do?")[0]
    assert (en.kin_name("user"), zh.kin_name("user"), two.kin_name("Priya")) == (
        "user's sister", "用户的妹妹", "Priya's husband")


def test_same_relative_tells_a_sister_from_a_brother() -> None:
    assert "sis" in same_relative("sister") and "brother" not in same_relative("sister")
    assert same_relative("表哥") == {"表哥"} and same_relative("cousin") == frozenset()
    assert kin_type("Hubby") == "spouse" and kin_type("舍友") == "roommate" and kin_type("蛋糕") is None


@given(st.text(max_size=60))
def test_any_text_reads_without_error_and_every_span_is_in_it(text) -> None:
    for phrase in relation_phrases(text):
        assert phrase.span and phrase.span in text and phrase.hops and len(phrase.hops) <= 2
