"""Count and list questions (domain/list_intent.py)."""

from __future__ import annotations

import pytest

from hlmem.domain.list_intent import asks_for_many


@pytest.mark.parametrize(("query", "cue"), [
    ("How many times has Melanie gone to the beach in 2023?", "How many"),
    ("What books has Melanie read?", "What books has"),
    ("What musical artists/bands has Melanie seen?", "What musical artists/bands has"),
    ("Which cities have both Jean and John visited?", "Which cities have"),
    ("What kinds of pottery do they make?", "What kinds of"),
    ("有几个活动都是在上海举行的呀？", "有几个"),
    ("我用的美妆产品是哪些呢？", "哪些"),
    ("我一共去过几次北京？", "一共"),
    ("ｗｈａｔ ｂｏｏｋｓ ｈａｓ she read", "what books has"),  # NFKC
])
def test_count_and_list_questions(query: str, cue: str) -> None:
    assert asks_for_many(query) == cue


@pytest.mark.parametrize("query", [
    "What is my boss's name?",
    "How many weeks passed between Maria adopting Coco and Shadow?",  # a span of time, not a count
    "What does Melanie's daughter like?",
    "那个联系电话是13225162475的人，其姓名的有几个字？",  # the length of a name
    "我的上司叫什么名字？",
    "",
])
def test_questions_about_one_thing(query: str) -> None:
    assert asks_for_many(query) is None
