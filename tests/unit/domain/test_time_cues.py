"""More of a question's time words (domain/time_cues.py, domain/holidays.py, month parts in time_intent.py)."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from hlmem.domain import temporal
from hlmem.domain.holidays import easter, find
from hlmem.domain.query_understanding import TimeMode, understand

Z = timezone(timedelta(hours=8))
NOW = datetime(2026, 7, 1, 12, 0, tzinfo=Z)


def read(q: str, now: datetime = NOW):
    return understand(q, now=now, times=temporal)


def days(q: str, now: datetime = NOW) -> tuple[date | None, date | None]:
    r = read(q, now).valid_range
    return (r.start.date() if r.start else None, r.end.date() if r.end else None)


@pytest.mark.parametrize(
    ("question", "start", "end", "cleaned"),
    [
        ("3月中旬我用什么手机", date(2026, 3, 11), date(2026, 3, 21), "我用什么手机"),
        ("三月中我用什么手机", date(2026, 3, 11), date(2026, 3, 21), "我用什么手机"),
        ("2月初那会儿我住哪个城市来着？", date(2026, 2, 1), date(2026, 2, 11), "我住哪个城市来着?"),
        ("5月底那会儿我住哪？", date(2026, 5, 21), date(2026, 6, 1), "我住哪?"),
        ("二月份下旬我在哪", date(2026, 2, 21), date(2026, 3, 1), "我在哪"),
        ("where was I living in mid-March?", date(2026, 3, 11), date(2026, 3, 21), "where was I living in?"),
        ("what car did I drive at the end of February?", date(2026, 2, 21), date(2026, 3, 1), None),
        ("what was I using in early April?", date(2026, 4, 1), date(2026, 4, 11), None),
        ("during late January", date(2026, 1, 21), date(2026, 2, 1), None),
        ("in the middle of March", date(2026, 3, 11), date(2026, 3, 21), None),
        ("4月中国队赢了吗", date(2026, 4, 1), date(2026, 5, 1), None),  # 中国, not 月中
        ("in March", date(2026, 3, 1), date(2026, 4, 1), None),
    ],
)
def test_a_part_of_a_month_narrows_the_period(question: str, start: date, end: date, cleaned: str | None) -> None:
    intent = read(question)
    assert intent.time_mode is TimeMode.AT and days(question) == (start, end)
    if cleaned is not None:
        assert intent.cleaned_query == cleaned


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("五一那阵子我是做什么工作的？", date(2026, 5, 1), date(2026, 5, 6)),
        ("五一的时候我多少公斤？", date(2026, 5, 1), date(2026, 5, 6)),
        ("where was I working around Valentine's Day?", date(2026, 2, 14), date(2026, 2, 15)),
        ("what pets did we have at Easter?", date(2026, 4, 5), date(2026, 4, 6)),
        ("春节那会儿我在哪", date(2026, 2, 17), date(2026, 2, 24)),
        ("国庆的时候我住哪", date(2025, 10, 1), date(2025, 10, 8)),  # the latest one begun by now
        ("what did I drive at Christmas?", date(2025, 12, 25), date(2025, 12, 26)),
        ("四五月份我戴的是隐形还是框架？", date(2026, 4, 1), date(2026, 6, 1)),
        ("4、5月我在哪上班", date(2026, 4, 1), date(2026, 6, 1)),
    ],
)
def test_holidays_and_month_pairs_are_periods(question: str, start: date, end: date) -> None:
    assert read(question).time_mode is TimeMode.AT and days(question) == (start, end)


def test_holidays_follow_their_rules() -> None:
    assert [easter(y) for y in (2024, 2025, 2026, 2027)] == [date(2024, 3, 31), date(2025, 4, 20), date(2026, 4, 5),
                                                            date(2027, 3, 28)]
    thanksgiving = find("thanksgiving", datetime(2026, 12, 1, tzinfo=Z))[0]
    assert thanksgiving.period[0].date() == date(2026, 11, 26)
    assert find("春节", datetime(2040, 3, 1, tzinfo=Z)) == []  # off the lunar table: not guessed
    assert find("newyorker easterly", NOW) == []  # parts of longer words
    assert find("十一月", NOW) == [] and read("十一月我在哪").valid_range.start.month == 11


@pytest.mark.parametrize(
    "question",
    ["What town did we live in before Florida?", "where was I working before Costco?", "where did I work before that?",
     "what was my rent before Dan moved in?", "what was I earning before team lead?", "what was my old phone?",
     "what was my old salary?", "涨价前我房租是多少来着？", "降薪前我工资多少？", "戒烟前我一天抽多少？", "买车前我怎么通勤？",
     "骑车之前我周末都在干嘛？", "我前阵子用的配色是什么", "what was my usual mode before this?",
     "remind me what my old display setting was"],
)
def test_the_value_before_a_change_is_history(question: str) -> None:
    assert read(question).time_mode is TimeMode.HISTORY, read(question).reasons


@pytest.mark.parametrize(
    ("question", "mode"),
    [
        ("what do I do before bed?", TimeMode.UNSPECIFIED),  # a habit, in the present tense
        ("how old is my dog?", TimeMode.UNSPECIFIED),
        ("my old friend Tom, where does he live?", TimeMode.UNSPECIFIED),
        ("我周末一般干嘛", TimeMode.UNSPECIFIED),  # every weekend, not this one
        ("四月份我周末一般玩什么？", TimeMode.AT),  # April only, not April to this weekend
        ("三天前我在哪", TimeMode.AT),
        ("以前我住哪", TimeMode.HISTORY),
    ],
)
def test_habits_and_ages_are_not_changes(question: str, mode: TimeMode) -> None:
    assert read(question).time_mode is mode, read(question).reasons


def test_a_habitual_weekend_leaves_the_month_alone() -> None:
    assert days("四月份我周末一般玩什么？") == (date(2026, 4, 1), date(2026, 5, 1))
