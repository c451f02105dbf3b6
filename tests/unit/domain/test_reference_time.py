"""Questions read against a reference time (not the wall clock): tables of English and Chinese
cases at fixed reference times, "as of" as a valid time, and a property over past-tense phrases."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hlmem.domain import temporal
from hlmem.domain.query_understanding import QueryIntent, TimeMode, merge, understand

#: Saturday 20 May 2023, noon UTC: the last session of an imported 2023 conversation.
REF = datetime(2023, 5, 20, 12, 0, tzinfo=timezone.utc)
#: Friday 5 April 2024, 07:24 China time: a MemDaily question's own time.
CST = timezone(timedelta(hours=8))
REF_ZH = datetime(2024, 4, 5, 7, 24, tzinfo=CST)
D = date


def _u(query: str, now: datetime = REF) -> QueryIntent:
    return understand(query, now=now, times=temporal)


def _days(intent: QueryIntent) -> tuple[date | None, date | None]:
    r = intent.valid_range
    assert r is not None
    return (r.start.date() if r.start else None, r.end.date() if r.end else None)


PERIODS = [
    # English, reference Saturday 2023-05-20
    (REF, "What did Caroline do in March?", D(2023, 3, 1), D(2023, 4, 1)),
    (REF, "What did Caroline do in May?", D(2023, 5, 1), D(2023, 6, 1)),
    (REF, "Where did Melanie travel in August?", D(2022, 8, 1), D(2022, 9, 1)),
    (REF, "What did John buy on Tuesday?", D(2023, 5, 16), D(2023, 5, 17)),
    (REF, "What did John buy yesterday?", D(2023, 5, 19), D(2023, 5, 20)),
    (REF, "What happened last week?", D(2023, 5, 8), D(2023, 5, 15)),
    (REF, "What did we talk about last month?", D(2023, 4, 1), D(2023, 5, 1)),
    (REF, "What did Nate cook 3 days ago?", D(2023, 5, 17), D(2023, 5, 18)),
    # Chinese, reference Friday 2024-04-05 (China time)
    (REF_ZH, "三月我去了哪里？", D(2024, 3, 1), D(2024, 4, 1)),
    (REF_ZH, "十二月我在做什么", D(2023, 12, 1), D(2024, 1, 1)),
    (REF_ZH, "上周二我见了谁？", D(2024, 3, 26), D(2024, 3, 27)),
    (REF_ZH, "周三我吃了什么", D(2024, 4, 3), D(2024, 4, 4)),
    (REF_ZH, "周日我去了哪", D(2024, 3, 31), D(2024, 4, 1)),  # this week's Sunday (7 April) is still to come
    (REF_ZH, "昨天我买了什么", D(2024, 4, 4), D(2024, 4, 5)),
    (REF_ZH, "上个月我住在哪", D(2024, 3, 1), D(2024, 4, 1)),
]


#: Questions about plans read a bare weekday or month forwards from the reference time.
PLANS = [
    (REF_ZH, "我周五要做什么？", D(2024, 4, 5), D(2024, 4, 6)),  # asked on Friday: today
    (REF_ZH, "周三我打算去哪？", D(2024, 4, 10), D(2024, 4, 11)),  # this week's Wednesday is past
    (REF_ZH, "周日我要见谁", D(2024, 4, 7), D(2024, 4, 8)),
    (REF_ZH, "三月我计划去哪里？", D(2025, 3, 1), D(2025, 4, 1)),
    (REF, "What will Caroline do on Tuesday?", D(2023, 5, 23), D(2023, 5, 24)),
    (REF, "Where is Melanie going to travel in August?", D(2023, 8, 1), D(2023, 9, 1)),
    (REF, "What did John plan to do in March?", D(2023, 3, 1), D(2023, 4, 1)),  # asked in the past tense
    (REF_ZH, "周三我主要吃了什么", D(2024, 4, 3), D(2024, 4, 4)),  # 主要 is no plan
]


@pytest.mark.parametrize(("now", "query", "start", "end"), PLANS, ids=[row[1] for row in PLANS])
def test_questions_about_plans_read_forwards(now: datetime, query: str, start: date, end: date) -> None:
    assert _days(_u(query, now)) == (start, end)


@pytest.mark.parametrize(("now", "query", "start", "end"), PERIODS, ids=[row[1] for row in PERIODS])
def test_relative_words_resolve_against_the_reference_time(now: datetime, query: str, start: date, end: date) -> None:
    intent = _u(query, now)
    assert intent.time_mode is TimeMode.AT
    assert _days(intent) == (start, end)
    assert intent.valid_at is not None and intent.valid_at <= now


def test_the_same_question_moves_with_its_reference_time() -> None:
    assert _days(_u("What did Caroline do in August?", REF)) == (D(2022, 8, 1), D(2022, 9, 1))
    later = datetime(2026, 12, 3, tzinfo=timezone.utc)
    assert _days(_u("What did Caroline do in August?", later)) == (D(2026, 8, 1), D(2026, 9, 1))


AS_OF = [
    ("How many pets did Andrew have, as of September 2023?", D(2023, 10, 1)),
    ("What instrument is John learning to play as of 27 March, 2022?", D(2022, 3, 28)),
    ("What was true as of 2022?", D(2023, 1, 1)),
    ("How long has Tim been playing piano, as of May?", D(2023, 6, 1)),
    ("截至2023年3月我住在哪里？", D(2023, 4, 1)),
    ("截止到去年我在哪工作", D(2023, 1, 1)),
    ("到3月为止我养了几只猫？", D(2023, 4, 1)),
    ("截至5月底我住哪", D(2023, 6, 1)),
    ("直到去年我在哪工作", D(2023, 1, 1)),
]


@pytest.mark.parametrize(("query", "end"), AS_OF, ids=[row[0] for row in AS_OF])
def test_as_of_a_date_is_the_state_then_in_valid_time(query: str, end: date) -> None:
    intent = _u(query)
    assert intent.as_of and intent.known_at is None  # valid time: nothing asks what was known then
    assert _days(intent) == (None, end)
    expected = min(datetime(end.year, end.month, end.day, tzinfo=timezone.utc) - timedelta(microseconds=1), REF)
    assert intent.valid_at == expected
    assert any(r.startswith("time.as_of:") for r in intent.reasons)


@pytest.mark.parametrize("query", ["What did I tell you as of March 2023 about my job?",
                                   "What did you know as of March about my job?",
                                   "What was believed as of March 2023?",
                                   "截至3月我跟你说过我住哪？",
                                   "截至3月你记得我住哪吗"])
def test_as_of_with_a_cue_of_knowing_is_a_knowledge_time(query: str) -> None:
    intent = _u(query)
    assert intent.known_at is not None and intent.known_at == intent.valid_at and not intent.as_of


@pytest.mark.parametrize("query", ["我到5月才搬走", "What did I do in May?", "到3月我们去了哪"])
def test_a_plain_date_is_not_as_of(query: str) -> None:
    intent = _u(query)
    assert intent.time_mode is TimeMode.AT and not intent.as_of and intent.known_at is None


def test_an_explicit_valid_at_replaces_as_of() -> None:
    explicit = datetime(2021, 1, 1, tzinfo=timezone.utc)
    merged = merge(_u("How many pets did Andrew have, as of September 2023?"), valid_at=explicit)
    assert merged.valid_at == explicit and not merged.as_of and merged.valid_range is None


_MONTHS_EN = "January February March April May June July August September October November December".split()
_MONTHS_ZH = ("一", "二", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二")
_DAYS_EN = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_PAST_PHRASES = st.one_of(
    st.sampled_from(_MONTHS_EN).map(lambda m: f"What did Caroline do in {m}?"),
    st.sampled_from(_MONTHS_EN).map(lambda m: f"Where did I travel in {m}?"),
    st.sampled_from(_MONTHS_ZH).map(lambda m: f"{m}月我去了哪里？"),
    st.integers(1, 12).map(lambda m: f"我{m}月买了什么"),
    st.sampled_from(_DAYS_EN).map(lambda d: f"What did John buy on {d}?"),
    st.sampled_from("一二三四五六日").map(lambda d: f"周{d}我吃了什么"),
    st.sampled_from("一二三四五六日").map(lambda d: f"星期{d}我见了谁"),
    st.sampled_from("一二三四五六日").map(lambda d: f"上周{d}我去了哪"),
)
_REFERENCES = st.datetimes(min_value=datetime(1995, 1, 1), max_value=datetime(2085, 12, 31),
                           timezones=st.sampled_from([timezone.utc, CST, timezone(timedelta(hours=-5))]))


@given(_PAST_PHRASES, _REFERENCES)
def test_a_past_tense_month_or_weekday_never_lies_after_the_reference(query: str, reference: datetime) -> None:
    intent = _u(query, reference)
    assert intent.time_mode is TimeMode.AT, query
    r = intent.valid_range
    assert r is not None and r.start is not None and r.end is not None
    assert r.start <= reference  # the period begins by the reference time: it is not a future one
    assert intent.valid_at is not None and intent.valid_at <= reference
    assert r.end - r.start <= timedelta(days=31)
    # and it is the nearest such period: a year (month) or a week (weekday) later would begin after it
    step = timedelta(weeks=1) if "周" in query or "星期" in query or " on " in query else None
    later = r.start + step if step else r.start.replace(year=r.start.year + 1)
    assert later > reference or "上周" in query
