"""Shortcuts in the text helpers of atoms and query understanding give what their plain definitions give."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hlmem.domain import temporal
from hlmem.domain import atoms
from hlmem.domain.query_entities import _fold
from hlmem.domain.query_understanding import index_subjects, understand

TEXTS = [
    "", "no atoms here", "张伟下周三搬到杭州市", "meet May on May 5th, not in may", "see https://x.io/a. and /etc/hosts",
    "2024年5月15日 v1.2.3 端口 8443", "明天 tomorrow 上周 last week", "\0already\0blanked", "「引号」 \"quoted\"",
]
PATTERNS = [atoms._URL_RE, atoms._PERIOD_RE, atoms._REL_RE, *(p for p, _ in atoms._DATE_RES)]


def _take_reference(pattern: re.Pattern[str], text: str, canon) -> tuple[list[str], str]:
    found = [v for m in pattern.finditer(text) if (v := canon(m))]
    return found, pattern.sub(lambda m: "\0" * len(m.group(0)), text)


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("pattern", PATTERNS, ids=lambda p: p.pattern[:20])
def test_take_equals_find_then_blank(pattern: re.Pattern[str], text: str) -> None:
    # A match whose canonical form is None (bare "may", the modal verb) is blanked all the same.
    canon = lambda m: None if m.group(0).lower() == "may" else m.group(0).upper()  # noqa: E731
    assert atoms._take(pattern, text, canon) == _take_reference(pattern, text, canon)


def _fold_reference(text: str) -> str:
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


@pytest.mark.parametrize("text", ["Tom DAVIS v1.2", "İstanbul", "ΑΣ ΟΔΟΣ", "Straße ẞ", "张伟 Tom", "ǅ ǈ"])
def test_fold_keeps_every_position(text: str) -> None:
    assert _fold(text) == _fold_reference(text)
    assert len(_fold(text)) == len(text)


@given(st.text())
def test_fold_equals_its_definition(text: str) -> None:
    assert _fold(text) == _fold_reference(text)


NOW = datetime(2026, 3, 1, 9, 30, tzinfo=timezone(timedelta(hours=8)))


@pytest.mark.parametrize("query", ["张伟现在住哪", "What is Tom Davis's job?", "who knows 彭华华?", "我表弟之前在哪工作"])
def test_no_known_subjects_reads_like_an_empty_index(query: str) -> None:
    default = understand(query, now=NOW, times=temporal)
    assert default == understand(query, now=NOW, times=temporal, known_subjects=index_subjects(()))
    assert default == understand(query, now=NOW, times=temporal, known_subjects=[])
    # and subjects, when given, are still found
    known = understand(query, now=NOW, times=temporal, known_subjects=("张伟", "Tom Davis", "彭华华"))
    assert any(e.source == "known_subject" for e in known.entities) or "表弟" in query
