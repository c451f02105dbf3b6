"""Changes people report without the "switched from A to B" template, and everyday forms.

Each class: what the clause yields (a reversal is polarity false, a change is marked ``change``
so the domain lets it replace what it took over from, ADR 0059), and what it must not yield.
Sentences here are not the benchmark's.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from hlmem import Memory
from hlmem.application.extraction.rules import extract
from hlmem.domain.candidates import CandidateClaim, SourceEvent
from hlmem.domain.events import Scope
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

AT = datetime(2026, 6, 3, 10, 0, tzinfo=timezone.utc)


def run(text: str) -> list[CandidateClaim]:
    event = SourceEvent(event_id="ev_1", text=text, role="user", session_id="s", origin_class="direct_user",
                        session_kind="interactive", occurred_at=AT)
    found = extract([event], DEFAULT_REGISTRY)
    for c in found:
        assert c.evidence_quote in text and c.rule, c
    return found


def has(text: str, predicate: str, value: str, polarity: bool = True, *, change: bool | None = None) -> bool:
    return any(c.predicate == predicate and value in c.value and c.polarity == polarity
               and (change is None or c.change == change) for c in run(text))


@pytest.mark.parametrize(("text", "predicate", "value", "polarity"), [
    # leaving a job, a new one
    ("I resigned from Oracle last spring", "employer", "Oracle", False),
    ("I got laid off from Meta in November", "employer", "Meta", False),
    ("我从美团辞职了", "employer", "美团", False),
    ("我已经不在银行上班了", "employer", "银行", False),
    ("我妈今年退休了", "job_title", "退休", True),
    ("Dad retired last year", "job_title", "retired", True),
    ("I started a new job at Canva", "employer", "Canva", True),
    ("我跳槽去了一家外企", "employer", "外企", True),
    # selling, buying, not having
    ("We finally sold our old Prius", "owns", "Prius", False),
    ("我把旧电脑卖了", "owns", "电脑", False),
    ("I just picked up a used Kindle", "owns", "Kindle", True),
    ("我刚换了一台MacBook", "owns", "MacBook", True),
    ("I don't own a car", "owns", "car", False),
    ("我家没有宠物", "owns", "宠物", False),
    ("We don't have any children", "child", "children", False),
    # stopping a habit or a tool, going back
    ("I quit going to yoga after the baby came", "habit", "yoga", False),
    ("I don't go to church anymore", "habit", "church", False),
    ("吉他我早就不弹了", "habit", "吉他", False),
    ("我儿子不去补习班了", "habit", "补习班", False),
    ("抖音我已经不用了", "uses", "抖音", False),
    ("我戒了可乐", "habit", "可乐", False),
    ("我戒了可乐", "diet", "可乐", False),
    ("I've switched back to Firefox", "uses", "Firefox", True),
    ("我又用回Windows了", "uses", "Windows", True),
    ("改成每周三去练瑜伽", "habit", "瑜伽", True),
])
def test_reversals_and_changes_without_a_template(text: str, predicate: str, value: str, polarity: bool) -> None:
    assert has(text, predicate, value, polarity), run(text)


@pytest.mark.parametrize("text", ["今天不去健身房了", "I'm not going to the gym today", "明天不上课"])
def test_a_day_off_is_not_a_habit_that_ended(text: str) -> None:
    assert not any(c.predicate == "habit" and not c.polarity for c in run(text)), run(text)


@pytest.mark.parametrize(("text", "predicate", "value"), [
    ("我是做销售的", "job_title", "销售"), ("我爸是干装修的", "job_title", "装修"),
    ("My sister works as a dental hygienist in Leeds", "job_title", "dental hygienist"),
    ("I'm a cashier at Walmart", "employer", "Walmart"), ("I'm a cashier at Walmart", "job_title", "cashier"),
    ("I teach English at a high school", "job_title", "teacher"),
    ("我在中山大学读研", "education", "中山大学"), ("I'm a sophomore at Rutgers", "education", "Rutgers"),
    ("我会讲一点日语", "speaks", "日语"), ("My husband speaks fluent Korean", "speaks", "Korean"),
    ("我单身", "relationship_status", "单身"), ("We got engaged last month", "relationship_status", "engaged"),
    ("I'm 6'1\"", "height", "6'1"), ("I have a pet snake named Noodle", "owns", "snake"),
    ("我家养了一条比熊", "owns", "比熊"), ("We adopted two guinea pigs", "owns", "guinea pigs"),
    ("我们组每周五下午开周会", "habit", "周会"), ("We have a retro every other Friday", "habit", "retro"),
    ("每个月房贷要还六千", "mortgage", "六千"), ("The rent for our flat is £950 a month", "rent", "950"),
    ("我搬到新乡了", "lives_in", "新乡"), ("I moved to New Zealand", "lives_in", "New Zealand"),
])
def test_everyday_forms(text: str, predicate: str, value: str) -> None:
    assert has(text, predicate, value), run(text)


@pytest.mark.parametrize(("text", "forbidden"), [
    ("每个月房租是三千二", "habit"), ("今天天气好热啊", "plan"), ("今天股市又跌了", "plan"), ("周末快乐", "plan"),
    ("We have a 1:1 every Tuesday", "plan"), ("我住在新加坡", None),
])
def test_slot_mix_ups_do_not_happen(text: str, forbidden: str | None) -> None:
    found = run(text)
    assert not any(c.predicate == forbidden for c in found), found
    assert all(not c.value.startswith(("加坡", "西兰")) for c in found), found


@pytest.mark.parametrize(("text", "predicate", "value"), [
    ("我这两天发烧了", "health_condition", "发烧"), ("I'm down with the flu this week", "health_condition", "flu"),
    ("我下周在北京出差", None, None), ("I'm staying with my sister until the lease starts", "status", "sister"),
])
def test_states_for_now_are_temporal(text: str, predicate: str | None, value: str | None) -> None:
    found = [c for c in run(text) if c.predicate != "plan"]
    if predicate is None:
        assert not any(c.predicate == "status" and c.valid_from == AT for c in found), found
        return
    [c] = [c for c in found if c.predicate == predicate and value in c.value]
    assert c.scope is Scope.TEMPORAL


def _current(mem: Memory, subject: str, predicate: str) -> set[tuple[str, bool]]:
    return {(c.value, c.polarity) for c in mem.claims(subject=subject, predicate=predicate).items
            if c.status.value == "active"}


def _say(mem: Memory, *texts: str) -> None:
    for i, text in enumerate(texts):
        at = AT + timedelta(days=i)
        mem.clock.set(at)  # type: ignore[attr-defined]
        mem.add(text, session="s", occurred_at=at)


@pytest.mark.parametrize(("texts", "subject", "predicate", "now", "gone"), [
    (["I'm vegan.", "I eat fish again, so I'm pescatarian now."], "user", "diet", "pescatarian", "vegan"),
    (["我开的是一辆丰田卡罗拉。", "我卖了卡罗拉，换了一辆特斯拉。"], "用户", "owns", "特斯拉", "卡罗拉"),
    (["I use Todoist for tasks.", "These days I track my tasks in TickTick."], "user", "uses", "TickTick", "Todoist"),
    (["我女儿每周日上舞蹈课。", "我女儿舞蹈课不上了，改成周日学画画。"], "用户的女儿", "habit", "画画", "舞蹈"),
])
def test_a_change_retires_the_value_it_replaced(texts: list[str], subject: str, predicate: str, now: str,
                                                 gone: str) -> None:
    with Memory(":memory:", embedder="none", now=AT) as mem:
        _say(mem, *texts)
        current = _current(mem, subject, predicate)
        assert any(now in v and pol for v, pol in current), current
        assert not any(gone in v and pol for v, pol in current), current


@pytest.mark.parametrize(("text", "predicate", "value", "change"), [
    # a contraction ('ve, 's) right after the subject reads like the full form
    ("I've been diagnosed with asthma", "health_condition", "asthma", True),
    ("my uncle's been diagnosed with gout, so he's careful now", "health_condition", "gout", True),
    ("I've gone vegetarian", "diet", "vegetarian", True),
    ("I've relocated to Porto", "lives_in", "Porto", True),
    ("I've switched from Notion to Obsidian", "uses", "Obsidian", True),
    # 've got is having, not getting
    ("I've got a kayak", "owns", "kayak", False),
    ("I just got a kayak", "owns", "kayak", True),
    # a duration after the value, a preamble before a colon
    ("been running the same bakery for ten years, sourdough mostly", "owns", "bakery", None),
    ("quick background before my question: I'm a welder at a shipyard", "job_title", "welder", None),
])
def test_contractions_durations_and_preambles(text: str, predicate: str, value: str, change: bool | None) -> None:
    assert has(text, predicate, value, change=change), run(text)


@pytest.mark.parametrize("text", ["我的狗才是家里的老大", "我的工作就是每天开会"])
def test_an_adverb_ending_the_noun_is_a_remark_not_an_attribute(text: str) -> None:
    assert not any(c.predicate.endswith(("才", "就")) for c in run(text)), run(text)


def test_a_phone_maker_replaces_a_phone_in_use() -> None:
    with Memory(":memory:", embedder="none", now=AT) as mem:
        _say(mem, "我现在用iPhone。", "我现在用小米了")
        current = _current(mem, "用户", "uses")
        assert ("小米", True) in current and not any("iPhone" in v and p for v, p in current), current
