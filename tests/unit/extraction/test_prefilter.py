"""The prefilter never skips a rule that would match: every match contains one of its words."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hlmem.application.extraction import frames_en, frames_zh
from hlmem.application.extraction.prefilter import required

RULES = (*frames_zh.RULES, *frames_en.RULES)


@pytest.mark.parametrize("rule", RULES, ids=[r.name for r in RULES])
def test_every_example_match_contains_a_required_word(rule) -> None:
    words = required(rule.regex)
    if words is None:
        return
    text = rule.example.lower()
    assert any(w in text for w in words), (rule.name, sorted(words))


@pytest.mark.parametrize(("pattern", "expected"), [
    (r"\s+(?:quit|left)\s+X", {"quit", "left"}), (r"(?:a|b)?c+d", {"c"}), (r"(?:ab)*", None), (r"x(?:y|)z", {"x"}),
    (r"(?:好几年|多年)了", {"好几年", "多年"}),
])
def test_required_words_of_small_patterns(pattern: str, expected: set[str] | None) -> None:
    found = required(re.compile(pattern))
    assert (set(found) if found else None) == expected or (expected and found and set(found) & expected)


_PIECES = st.sampled_from([
    " I", "'m", " am", " quit", " left", " Target", " Acme", " my", " job", " at", " a", " nurse", " and", " now",
    " moved", " to", " Denver", " in", " May", " have", " two", " cats", " dog", " named", " Otis", " not", " anymore",
    "我", "不", "了", "在", "上班", "腾讯", "辞职", "养了", "一只", "猫", "叫", "咪咪", "每天", "跑步", "过敏", "花生", "住在",
    "杭州", "岁", "三", "房租", "两千", "改成", "学", "钢琴", "课", "退休", "戒", "烟", ",", "，", " ",
])


@given(st.lists(_PIECES, min_size=1, max_size=10).map("".join), st.sampled_from(RULES))
def test_a_text_without_the_words_never_matches(text: str, rule) -> None:
    words = required(rule.regex)
    if words and not any(w in text.lower() for w in words):
        assert rule.regex.match(text) is None and rule.regex.match(" " + text) is None
