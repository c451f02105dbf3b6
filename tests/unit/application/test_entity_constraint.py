"""Entity constraint: a query naming an entity never gets another entity's memory first (张伟/张卫, v1.2/v1.3).

Each case stores memories about the named entity and about a near-homonym or another entity,
through ``Memory`` with the hash embedder, and asks about one of them. The measured figure is the
number of cases whose top item is about another entity (the target, and the assertion, is zero);
``off`` shows what the constraint prevents.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from hlmem import Memory
from hlmem.application.entity_constraint import constrain, mentions
from hlmem.application.ranking import Scored
from hlmem.domain.errors import ValidationError

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)

#: (claims as (subject, predicate, value), query, the entity asked about)
CASES = [
    ([("张伟", "likes", "咖啡"), ("张卫", "likes", "绿茶")], "张伟喜欢喝什么？", "张伟"),
    ([("张伟", "likes", "咖啡"), ("张卫", "likes", "绿茶")], "张卫喜欢喝什么？", "张卫"),
    ([("张伟", "lives_in", "北京"), ("张卫", "lives_in", "上海")], "张伟住在哪里", "张伟"),
    ([("张卫", "lives_in", "上海"), ("张伟", "works_at", "阿里巴巴")], "张伟住在哪里", "张伟"),
    ([("王芳", "job_title", "医生"), ("王方", "job_title", "律师")], "王芳是做什么工作的", "王芳"),
    ([("王芳", "job_title", "医生"), ("王方", "job_title", "律师")], "王方的职业", "王方"),
    ([("李娜", "birthday", "3月5日"), ("李纳", "birthday", "7月9日")], "李娜的生日是哪天", "李娜"),
    ([("陈晨", "allergy", "花生"), ("陈琛", "allergy", "海鲜")], "陈晨对什么过敏", "陈晨"),
    ([("刘洋", "hobby", "围棋"), ("刘杨", "hobby", "篮球")], "刘杨的爱好是什么", "刘杨"),
    ([("赵磊", "employer", "腾讯"), ("赵雷", "employer", "百度")], "赵磊在哪家公司上班", "赵磊"),
    ([("Jon Smith", "employer", "Acme"), ("John Smith", "employer", "Initech")], "Who is Jon Smith's employer?",
     "Jon Smith"),
    ([("Jon Smith", "employer", "Acme"), ("John Smith", "employer", "Initech")], "Who is John Smith's employer?",
     "John Smith"),
    ([("Anna Lee", "hobby", "jazz"), ("Ana Lee", "hobby", "opera")], "What is the hobby of Ana Lee?", "Ana Lee"),
    ([("Mark Chen", "employer", "Google"), ("Marc Chen", "employer", "Meta")], "Mark Chen employer", "Mark Chen"),
    ([("Sara Kim", "allergy", "peanuts"), ("Sarah Kim", "allergy", "shellfish")], "Sarah Kim allergy", "Sarah Kim"),
    ([("hlmem v1.2", "status", "released"), ("hlmem v1.3", "status", "in beta")], "hlmem v1.2 的状态", "v1.2"),
    ([("hlmem v1.2", "status", "released"), ("hlmem v1.3", "status", "in beta")], "what is the status of v1.3?",
     "v1.3"),
    ([("api v2.0", "deprecated", "yes"), ("api v2.1", "deprecated", "no")], "is api v2.1 deprecated?", "v2.1"),
    ([("python 3.11", "support", "until 2027"), ("python 3.12", "support", "until 2028")],
     "python 3.12 支持到什么时候", "3.12"),
    ([("release v1.2", "date", "2026-03-01"), ("release v1.2.1", "date", "2026-04-01")], "release v1.2 date", "v1.2"),
    ([("张伟", "pet", "猫"), ("张伟华", "pet", "狗")], "张伟养了什么宠物", "张伟"),
    ([("Tom", "pet", "parrot"), ("Tim", "pet", "rabbit")], "Tim's pet?", "Tim"),
]


def _about(text: str, entity: str) -> bool:
    return mentions(text, entity)


def _top1_errors(mode: str) -> tuple[int, int, int]:
    """Cases whose first item is about another entity, cases answered at all, and cases whose
    unconstrained recall holds an item about the entity asked (what enforce may bring first)."""
    errors = answered = reachable = 0
    for claims, query, entity in CASES:
        mem = Memory(":memory:", embedder="hash", now=NOW)
        for subject, predicate, value in claims:
            mem.remember(subject, predicate, value)
        items = mem.recall(query, entity_constraint=mode).items
        reachable += any(_about(i.text, entity) for i in mem.recall(query, entity_constraint="off").items)
        mem.close()
        if items:
            answered += 1
            errors += not _about(items[0].text, entity)
    return errors, answered, reachable


def test_at_least_twenty_cases_in_chinese_and_english() -> None:
    assert len(CASES) >= 20
    assert any("\u4e00" <= q[0] <= "\u9fff" for _c, q, _e in CASES)
    assert any(q[0].isascii() for _c, q, _e in CASES)


def test_enforce_makes_no_cross_entity_top1_error() -> None:
    """Enforce answers every question whose unconstrained recall holds something about the entity
    asked. (Whether it does is the relevance floor's: "张伟住在哪里" with only 张伟's employer stored
    reached it through the hash vectors' one shared character, 里 of 阿里巴巴 and 哪里 — 0.213 against
    the floor's 0.2, 0.174 once the employer slot's labels grew; ADR 0098.)"""
    errors, answered, reachable = _top1_errors("enforce")
    assert errors == 0
    assert answered >= reachable >= len(CASES) - 1


def test_off_shows_what_the_constraint_prevents() -> None:
    # Without the constraint the near-homonym takes the top in some cases (measured: see docs/recall.md).
    errors, answered, _ = _top1_errors("off")
    assert answered == len(CASES) and errors > 0


def test_observe_reports_without_reordering() -> None:
    mem = Memory(":memory:", embedder="hash", now=NOW)
    mem.remember("张伟", "likes", "咖啡")
    mem.remember("张卫", "likes", "绿茶")
    observed = mem.recall("张伟喜欢喝什么？", entity_constraint="observe")
    off = mem.recall("张伟喜欢喝什么？", entity_constraint="off")
    assert [i.id for i in observed.items] == [i.id for i in off.items]
    assert any("entity constraint (observe) on 张伟: 1" in n for n in observed.notes)


def test_an_unknown_mode_is_refused() -> None:
    mem = Memory(":memory:", embedder="hash", now=NOW)
    with pytest.raises(ValidationError):
        mem.recall("张伟", entity_constraint="strict")


@pytest.mark.parametrize(
    ("text", "name", "expected"),
    [("张伟 · likes · 咖啡", "张伟", True), ("张卫 · likes · 绿茶", "张伟", False), ("release v1.2.1", "v1.2", False),
     ("release v1.2 is out", "v1.2", True), ("see V1.2.", "v1.2", True), ("Jon Smith", "John Smith", False),
     ("ｊｏｈｎ ｓｍｉｔｈ", "John Smith", True), ("Timothy", "Tim", False)],
)
def test_mentions(text: str, name: str, expected: bool) -> None:
    assert mentions(text, name) is expected


def test_constrain_partitions_and_counts() -> None:
    items = [Scored(item_id=i, kind="claim", relevance=1.0) for i in "abcd"]
    texts = {"a": "张卫 likes tea", "b": "unrelated", "c": "张伟 likes coffee", "d": "张卫 again"}
    kept, n = constrain(items, texts, ["张伟"], ["张卫"], "enforce")
    assert [s.item_id for s in kept] == ["c", "b"] and n == 2
    same, n = constrain(items, texts, ["张伟"], ["张卫"], "observe")
    assert same == items and n == 2
