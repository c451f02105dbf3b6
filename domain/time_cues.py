"""More time words of a question, beyond the calendar grammar (pure; used by :mod:`hlmem.domain.time_intent`).

- **Holidays** (五一那阵子, around Valentine's Day, at Easter): the days they fall on
  (:mod:`hlmem.domain.holidays`).
- **Two months at once** (四五月份, 4、5月): both months.
- **Habits, not dates**: a weekday or 周末 followed by 都/一般/通常/经常/总 ("我周末都在干嘛") is what
  happens every such day, not one date.
- **The value before a change**, named by what changed: "before Costco", "before Dan moved in", "before
  this" in a question in the past tense; 涨价前我…, 戒烟前我… (two characters of a change, then 前);
  "my old phone"; 前阵子, 前段时间 (a while back).

Each finder returns spans ``(start, end)`` (and a period where there is one); the caller makes hits.
"""

from __future__ import annotations

import re
from datetime import datetime

from hlmem.domain import holidays
from hlmem.domain.query_lexicon import _A, _HAN, _PAST, _Z

_ZH_MONTH = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10,
             "十一": 11, "十二": 12}
_MONTH_PAIR = re.compile(r"(?<![\d一二三四五六七八九十])(?:(?P<a>十[一二]?|[一二三四五六七八九])\s*[、,，\-~到至]?\s*"
                         r"(?P<b>十[一二]?|[一二三四五六七八九])|(?P<c>1[0-2]|[1-9])\s*[、,，\-~到至]\s*(?P<d>1[0-2]|[1-9]))"
                         r"\s*月份?(?![\d一二三四五六七八九十]+[日号])")
_HABIT_AFTER = re.compile(r"^\s*(?:都|一般|通常|经常|总是?|基本上?|老是?)")
_DAY_WORD = re.compile(r"^(?:个)?(?:周末|周[一二三四五六日天]|星期[一二三四五六日天]|礼拜[一二三四五六日天])$")
#: "before X" anywhere in a question asked in the past tense names the value before a change.
_BEFORE_ANY = re.compile(rf"(?i){_A}(?:before|prior to){_Z}")
#: "my old phone", "our old place": the value before the current one (not "old friend", "years old").
_OLD = re.compile(rf"(?i){_A}(?:my|our|his|her|their)\s+(?P<old>old)\s+(?!friends?{_Z}|man{_Z}|lady{_Z}|age{_Z}|days{_Z})\w")
#: 涨价前我…, 戒烟前我…: two characters of a change, 前, then who (or 的).
_SHORT_ANCHOR = re.compile(rf"(?P<ev>{_HAN}{{2}})(?<![以之从提目年月天周日号点时期节])(?P<rel>前)(?=[我你他她咱的])")
#: A while back: the value before the current one.
_WHILE_BACK = re.compile(r"前阵子|前一阵子?|前段时间|前些日子|之前那阵子?|那阵子之前")


def holiday_periods(text: str, now: datetime) -> list[tuple[int, int, tuple[datetime, datetime], str]]:
    """``(start, end, period, name)`` of each holiday named (the latest one begun by ``now``)."""
    return [(h.start, h.end, h.period, h.text) for h in holidays.find(text, now)]


def month_pairs(text: str, now: datetime) -> list[tuple[int, int, tuple[datetime, datetime], str]]:
    """Two consecutive months named at once (四五月份, 4、5月): ``(start, end, [first, after second), text)``,
    the latest such pair not after ``now``."""
    out = []
    local = now.astimezone(now.tzinfo)
    for m in _MONTH_PAIR.finditer(text):
        a, b = (int(x) if x.isdigit() else _ZH_MONTH.get(x) for x in ((m["a"], m["b"]) if m["a"] else (m["c"], m["d"])))
        if a is None or b is None or b != a + 1:
            continue
        year = local.year if (a, 1) <= (local.month, local.day) else local.year - 1
        start = datetime(year, a, 1, tzinfo=local.tzinfo)
        end = datetime(year + (b == 12), b % 12 + 1, 1, tzinfo=local.tzinfo)
        out.append((m.start(), m.end(), (start, end), m[0]))
    return out


def habitual(text: str, span_text: str, end: int) -> bool:
    """Whether a weekday or 周末 found at ``span_text`` (ending at ``end``) names a habit, not a date."""
    return bool(_DAY_WORD.match(span_text.strip())) and bool(_HABIT_AFTER.match(text[end:]))


def value_before(text: str) -> list[tuple[int, int]]:
    """The cue words that ask for the value before a change: "before" in a past-tense question, "old"
    in "my old X", 前 in 涨价前我, 前阵子 (what changed stays in the text to search)."""
    spans = [m.span() for m in _WHILE_BACK.finditer(text)]
    spans += [m.span("old") for m in _OLD.finditer(text)]
    spans += [m.span("rel") for m in _SHORT_ANCHOR.finditer(text)]
    if _PAST.search(text):
        spans += [m.span() for m in _BEFORE_ANY.finditer(text)]
    return sorted(spans)
