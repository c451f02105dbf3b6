"""Time expressions: resolution against an anchor (tables), finding them in text, and edge cases."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hlmem.domain.temporal import cn_int, find, resolve

CST = timezone(timedelta(hours=8))
#: Wednesday 3 June 2026, 10:00 in UTC+8.
ANCHOR = datetime(2026, 6, 3, 10, 0, tzinfo=CST)


def _days(expr: str, anchor: datetime = ANCHOR, prefer: str = "past") -> tuple[date, date] | None:
    period = resolve(expr, anchor, prefer=prefer)
    if period is None:
        return None
    start, end = period
    assert start.tzinfo is anchor.tzinfo and end.tzinfo is anchor.tzinfo
    assert start.time() == end.time() == datetime.min.time()
    return start.date(), end.date()


D = date
PAST_TABLE = [
    # relative days
    ("今天", D(2026, 6, 3), D(2026, 6, 4)),
    ("昨天", D(2026, 6, 2), D(2026, 6, 3)),
    ("前天", D(2026, 6, 1), D(2026, 6, 2)),
    ("明天", D(2026, 6, 4), D(2026, 6, 5)),
    ("后天", D(2026, 6, 5), D(2026, 6, 6)),
    ("大前天", D(2026, 5, 31), D(2026, 6, 1)),
    # weeks start on Monday (1 June 2026)
    ("这周", D(2026, 6, 1), D(2026, 6, 8)),
    ("本周", D(2026, 6, 1), D(2026, 6, 8)),
    ("上周", D(2026, 5, 25), D(2026, 6, 1)),
    ("下周", D(2026, 6, 8), D(2026, 6, 15)),
    ("下周三", D(2026, 6, 10), D(2026, 6, 11)),
    ("上周五", D(2026, 5, 29), D(2026, 5, 30)),
    ("下个星期一", D(2026, 6, 8), D(2026, 6, 9)),
    ("周三", D(2026, 6, 3), D(2026, 6, 4)),
    ("星期日", D(2026, 6, 7), D(2026, 6, 8)),
    ("周末", D(2026, 6, 6), D(2026, 6, 8)),
    # months
    ("上个月", D(2026, 5, 1), D(2026, 6, 1)),
    ("下个月", D(2026, 7, 1), D(2026, 8, 1)),
    ("这个月", D(2026, 6, 1), D(2026, 7, 1)),
    ("本月", D(2026, 6, 1), D(2026, 7, 1)),
    ("上个月5号", D(2026, 5, 5), D(2026, 5, 6)),
    ("5月", D(2026, 5, 1), D(2026, 6, 1)),
    ("五月", D(2026, 5, 1), D(2026, 6, 1)),
    ("十二月", D(2025, 12, 1), D(2026, 1, 1)),  # after the anchor month: last year's
    ("7月", D(2025, 7, 1), D(2025, 8, 1)),
    ("去年5月", D(2025, 5, 1), D(2025, 6, 1)),
    ("今年三月", D(2026, 3, 1), D(2026, 4, 1)),
    ("去年", D(2025, 1, 1), D(2026, 1, 1)),
    # absolute dates
    ("2026年6月1日", D(2026, 6, 1), D(2026, 6, 2)),
    ("2026 年 6 月 1 日", D(2026, 6, 1), D(2026, 6, 2)),
    ("2025年12月", D(2025, 12, 1), D(2026, 1, 1)),
    ("2024年", D(2024, 1, 1), D(2025, 1, 1)),
    ("6月1日", D(2026, 6, 1), D(2026, 6, 2)),
    ("6月1号", D(2026, 6, 1), D(2026, 6, 2)),
    ("6月5日", D(2025, 6, 5), D(2025, 6, 6)),  # not after the anchor: last year's
    ("2026-06-01", D(2026, 6, 1), D(2026, 6, 2)),
    ("2026/6/1", D(2026, 6, 1), D(2026, 6, 2)),
    # English
    ("yesterday", D(2026, 6, 2), D(2026, 6, 3)),
    ("Tomorrow", D(2026, 6, 4), D(2026, 6, 5)),
    ("today", D(2026, 6, 3), D(2026, 6, 4)),
    ("last week", D(2026, 5, 25), D(2026, 6, 1)),
    ("next week", D(2026, 6, 8), D(2026, 6, 15)),
    ("this week", D(2026, 6, 1), D(2026, 6, 8)),
    ("last month", D(2026, 5, 1), D(2026, 6, 1)),
    ("next year", D(2027, 1, 1), D(2028, 1, 1)),
    ("next Friday", D(2026, 6, 5), D(2026, 6, 6)),  # the first Friday after the anchor's day
    ("last Friday", D(2026, 5, 29), D(2026, 5, 30)),
    ("next Wednesday", D(2026, 6, 10), D(2026, 6, 11)),  # "next" never means today
    ("last Wednesday", D(2026, 5, 27), D(2026, 5, 28)),
    ("this Friday", D(2026, 6, 5), D(2026, 6, 6)),
    ("Friday", D(2026, 5, 29), D(2026, 5, 30)),  # bare weekday: prefer past
    ("last May", D(2026, 5, 1), D(2026, 6, 1)),
    ("next May", D(2027, 5, 1), D(2027, 6, 1)),
    ("in May", D(2026, 5, 1), D(2026, 6, 1)),
    ("in 2023", D(2023, 1, 1), D(2024, 1, 1)),
    ("on June 1", D(2026, 6, 1), D(2026, 6, 2)),
    ("June 1, 2025", D(2025, 6, 1), D(2025, 6, 2)),
    ("the 3rd of May", D(2026, 5, 3), D(2026, 5, 4)),
    ("the day before yesterday", D(2026, 6, 1), D(2026, 6, 2)),
]


@pytest.mark.parametrize(("expr", "start", "end"), PAST_TABLE, ids=[row[0] for row in PAST_TABLE])
def test_resolve(expr: str, start: date, end: date) -> None:
    assert _days(expr) == (start, end)


FUTURE_TABLE = [
    ("5月", D(2027, 5, 1), D(2027, 6, 1)),
    ("6月", D(2026, 6, 1), D(2026, 7, 1)),
    ("7月", D(2026, 7, 1), D(2026, 8, 1)),
    ("6月1日", D(2027, 6, 1), D(2027, 6, 2)),
    ("6月5日", D(2026, 6, 5), D(2026, 6, 6)),
    ("on June 1", D(2027, 6, 1), D(2027, 6, 2)),
    ("Friday", D(2026, 6, 5), D(2026, 6, 6)),
    ("周三", D(2026, 6, 3), D(2026, 6, 4)),  # 周三 is this week's, whatever is preferred
]


@pytest.mark.parametrize(("expr", "start", "end"), FUTURE_TABLE, ids=[row[0] for row in FUTURE_TABLE])
def test_resolve_prefer_future(expr: str, start: date, end: date) -> None:
    assert _days(expr, prefer="future") == (start, end)


@pytest.mark.parametrize("expr", ["最近", "近期", "recently", "lately", "", "随便", "13月", "2月30日", "32号",
                                  "someday"])
def test_vague_or_invalid_expressions_resolve_to_none(expr: str) -> None:
    assert resolve(expr, ANCHOR) is None


def test_day_boundaries_follow_the_anchor_offset() -> None:
    # 01:30 on 3 June in UTC+8 is still 2 June in UTC: "today" is the 3rd in the anchor's zone.
    early = datetime(2026, 6, 2, 17, 30, tzinfo=timezone.utc).astimezone(CST)
    start, end = resolve("今天", early)  # type: ignore[misc]
    assert start == datetime(2026, 6, 3, tzinfo=CST) and end == datetime(2026, 6, 4, tzinfo=CST)
    utc_start, _ = resolve("今天", early.astimezone(timezone.utc))  # type: ignore[misc]
    assert utc_start == datetime(2026, 6, 2, tzinfo=timezone.utc)


def test_naive_anchor_is_refused() -> None:
    with pytest.raises(ValueError):
        resolve("今天", datetime(2026, 6, 3))


def test_month_rollover_across_years() -> None:
    january = datetime(2026, 1, 15, tzinfo=timezone.utc)
    assert _days("上个月", january) == (D(2025, 12, 1), D(2026, 1, 1))
    assert _days("next month", datetime(2026, 12, 2, tzinfo=timezone.utc)) == (D(2027, 1, 1), D(2027, 2, 1))


@pytest.mark.parametrize(("text", "found"), [
    ("其实5月就搬去北京了", ["5月"]),
    ("计划下周把 counter-05 升级到 v2.0", ["下周"]),
    ("补录：2026 年 6 月 1 日时 X 当前版本是 v1.0", ["2026 年 6 月 1 日"]),
    ("I'm meeting Ann next Friday and flying on June 1.", ["next Friday", "on June 1"]),
    ("May I ask? I may go.", []),
    ("日志在 /var/log/2026/06/01/app.log", []),
    ("部署 v1.2 到 8080 端口", []),
    ("我们用了三个月", []),
])
def test_find(text: str, found: list[str]) -> None:
    mentions = find(text)
    assert [m.text for m in mentions] == found
    assert all(text[m.start:m.end] == m.text for m in mentions)


@pytest.mark.parametrize(("text", "value"), [("5", 5), ("五", 5), ("十", 10), ("十二", 12), ("二十五", 25),
                                             ("三十一", 31), ("两", 2), ("", None), ("百", None), ("五五五", None)])
def test_cn_int(text: str, value: int | None) -> None:
    assert cn_int(text) == value


#: Saturday 20 May 2023, noon UTC: the reference time of an imported LoCoMo-like history.
REFERENCE = datetime(2023, 5, 20, 12, 0, tzinfo=timezone.utc)
NEAREST_PAST_TABLE = [
    ("in March", D(2023, 3, 1), D(2023, 4, 1)),
    ("in May", D(2023, 5, 1), D(2023, 6, 1)),  # the reference's own month is the latest not after it
    ("in August", D(2022, 8, 1), D(2022, 9, 1)),
    ("December", D(2022, 12, 1), D(2023, 1, 1)),
    ("on June 1", D(2022, 6, 1), D(2022, 6, 2)),
    ("on Tuesday", D(2023, 5, 16), D(2023, 5, 17)),
    ("Saturday", D(2023, 5, 20), D(2023, 5, 21)),  # today is the latest Saturday not after today
    ("Sunday", D(2023, 5, 14), D(2023, 5, 15)),
    ("三月", D(2023, 3, 1), D(2023, 4, 1)),
    ("8月", D(2022, 8, 1), D(2022, 9, 1)),
    ("5月21日", D(2022, 5, 21), D(2022, 5, 22)),
    ("上周二", D(2023, 5, 9), D(2023, 5, 10)),
    ("周三", D(2023, 5, 17), D(2023, 5, 18)),
    ("星期日", D(2023, 5, 14), D(2023, 5, 15)),  # this week's Sunday (21 May) is after the reference
    ("周六", D(2023, 5, 20), D(2023, 5, 21)),
    ("这周日", D(2023, 5, 21), D(2023, 5, 22)),  # 这周 names the week: not moved
    ("下周三", D(2023, 5, 24), D(2023, 5, 25)),  # an explicit future stays in the future
    ("next month", D(2023, 6, 1), D(2023, 7, 1)),
]


@pytest.mark.parametrize(("expr", "start", "end"), NEAREST_PAST_TABLE, ids=[row[0] for row in NEAREST_PAST_TABLE])
def test_resolve_nearest_past_against_a_reference_time(expr: str, start: date, end: date) -> None:
    assert _days(expr, REFERENCE, prefer="nearest_past") == (start, end)


def test_nearest_past_differs_from_past_only_for_a_bare_chinese_weekday() -> None:
    monday = datetime(2026, 6, 1, 9, 0, tzinfo=CST)
    assert _days("周三", monday, prefer="past") == (D(2026, 6, 3), D(2026, 6, 4))  # extraction: this week's
    assert _days("周三", monday, prefer="nearest_past") == (D(2026, 5, 27), D(2026, 5, 28))  # a question: the last one
    for expr in ("5月", "Friday", "in August", "上周三", "6月5日"):
        assert _days(expr, monday, prefer="past") == _days(expr, monday, prefer="nearest_past"), expr


def test_an_unknown_preference_is_refused() -> None:
    with pytest.raises(ValueError, match="prefer"):
        resolve("5月", ANCHOR, prefer="latest")


_MONTH_WORDS = ("January February March April May June July August September October November December").split()
_ZH_MONTHS = ("一", "二", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二")
_WEEKDAY_WORDS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_ZH_WEEKDAYS = "一二三四五六日"
_BARE = st.one_of(
    st.integers(0, 11).map(lambda i: (f"in {_MONTH_WORDS[i]}", "month")),
    st.integers(0, 11).map(lambda i: (f"{_ZH_MONTHS[i]}月", "month")),
    st.integers(1, 12).map(lambda i: (f"{i}月", "month")),
    st.integers(0, 6).map(lambda i: (f"on {_WEEKDAY_WORDS[i]}", "week")),
    st.integers(0, 6).map(lambda i: (f"周{_ZH_WEEKDAYS[i]}", "week")),
    st.integers(0, 6).map(lambda i: (f"星期{_ZH_WEEKDAYS[i]}", "week")),
)
_REFERENCES = st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2090, 12, 31),
                           timezones=st.sampled_from([timezone.utc, CST, timezone(timedelta(hours=-7))]))


@given(_BARE, _REFERENCES)
def test_a_bare_month_or_weekday_is_the_latest_one_not_after_the_reference(case: tuple[str, str],
                                                                           reference: datetime) -> None:
    expr, unit = case
    period = resolve(expr, reference, prefer="nearest_past")
    assert period is not None, expr
    start, end = period
    # Never after the reference: it starts by the reference's day, in the reference's zone.
    assert start.date() <= reference.date()
    # The latest such: the same month a year later, or the same weekday a week later, starts after it.
    later = start.replace(year=start.year + 1) if unit == "month" else start + timedelta(weeks=1)
    assert later.date() > reference.date()
    assert end - start == timedelta(days=1) if unit == "week" else end.day == 1
