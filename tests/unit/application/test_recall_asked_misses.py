"""The held-out misses fresh_p2 left (docs/benchmarks/derived-recall.md, ADR 0098), through recall on
the benchmark's facts (benchmarks/profile_recall.py), with the hash embedder and with none: a profile
ask wrapped in a plan and taken up by a pronoun, a "remind me —" wrapper, role vs employer, and how
people ask about an employer in Chinese (高就, 东家)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone

import pytest

from hlmem import Memory

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
FACTS = [
    ("用户", "diet", "素食"), ("用户", "allergy", "花生"), ("用户", "employer", "字节跳动"), ("用户", "job_title", "产品经理"),
    ("用户", "likes", "爬山"), ("用户", "lives_in", "杭州"),
    ("Bob", "employer", "Acme"), ("Bob", "lives_in", "Paris"), ("Bob", "likes", "jazz"), ("Bob", "job_title", "engineer"),
    ("user's sister", "lives_in", "Berlin"), ("user's sister", "employer", "Siemens"),
    ("Alice", "employer", "Globex"), ("Alice", "allergy", "cats"),
]


@pytest.fixture(scope="module", params=["hash", "none"])
def mem(request: pytest.FixtureRequest) -> Iterator[Memory]:
    with Memory(":memory:", embedder=request.param, now=T0) as m:
        for subject, predicate, value in FACTS:
            m.remember(subject, predicate, value)
        m.derived.build()
        yield m


@pytest.mark.parametrize(("question", "value"), [
    ("hey, remind me — who do I work for?", "字节跳动"),
    ("what's my role at work, the official one?", "产品经理"),
    ("what's my position at the company?", "产品经理"),
    ("朋友问我在哪高就，我东家是哪家来着", "字节跳动"),
    ("我东家是哪家", "字节跳动"),
    ("我现在在哪高就？", "字节跳动"),
    ("who does Bob work for?", "Acme"),
    ("我岗位是啥来着", "产品经理"),
])
def test_the_value_asked_for_comes_first(mem: Memory, question: str, value: str) -> None:
    items = mem.recall(question, k=5).items
    assert items and items[0].kind == "claim" and items[0].value == value, [i.text[:40] for i in items]


def test_a_profile_ask_wrapped_in_a_plan_gets_the_profile_of_whom_the_pronoun_takes_up(mem: Memory) -> None:
    result = mem.recall("下周要跟 Bob 吃饭，帮我回忆下他的情况", k=5)
    first = result.items[0]
    assert first.kind == "mental_model" and first.subject == "Bob", [i.text[:40] for i in result.items]
    assert any("帮我回忆下Bob的情况" in n for n in result.notes), result.notes


def test_a_plan_with_a_pronoun_that_asks_for_one_value_still_gets_the_value(mem: Memory) -> None:
    items = mem.recall("下周要跟 Bob 吃饭，他住在哪个城市？", k=5).items
    assert items[0].kind == "claim" and items[0].value == "Paris", [i.text[:40] for i in items]


def test_a_past_period_still_gets_no_profile(mem: Memory) -> None:
    items = mem.recall("上周跟 Bob 吃过饭，帮我回忆下他的情况", k=5).items
    assert all(i.kind not in ("mental_model", "observation_summary") for i in items)
