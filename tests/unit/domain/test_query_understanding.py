"""Query understanding: tables of Chinese and English time and entity expressions, merge, and properties."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest
from attrs import frozen
from hypothesis import given
from hypothesis import strategies as st

from hlmem.domain import temporal
from hlmem.domain.query_understanding import (
    HIGH_CONFIDENCE,
    REASON_CODES,
    EventAnchor,
    QueryIntent,
    TimeMode,
    ValidRange,
    index_subjects,
    merge,
    understand,
)

CST = timezone(timedelta(hours=8))
#: Sunday 1 March 2026, 09:30 in UTC+8.
NOW = datetime(2026, 3, 1, 9, 30, tzinfo=CST)
D = date
CUR, HIS, AT, NONE = TimeMode.CURRENT, TimeMode.HISTORY, TimeMode.AT, TimeMode.UNSPECIFIED


def _u(query: str, **kwargs) -> QueryIntent:
    return understand(query, now=NOW, times=temporal, **kwargs)


def _days(intent: QueryIntent) -> tuple[date | None, date | None] | None:
    r = intent.valid_range
    if r is None:
        return None
    return (r.start.date() if r.start else None, r.end.date() if r.end else None)


# (query, mode, valid range as dates or None)
ZH_TIME = [
    # the examples
    ("我之前偏好什么主题？", HIS, None),
    ("现在呢？", CUR, None),
    ("4月时我住哪", AT, (D(2025, 4, 1), D(2025, 5, 1))),  # the last April before now
    ("四月的时候我住哪", AT, (D(2025, 4, 1), D(2025, 5, 1))),
    ("去年我在哪工作", AT, (D(2025, 1, 1), D(2026, 1, 1))),
    ("上周我吃了什么", AT, (D(2026, 2, 16), D(2026, 2, 23))),
    ("上个月我去了哪里", AT, (D(2026, 2, 1), D(2026, 3, 1))),
    ("前年我在哪上班", AT, (D(2024, 1, 1), D(2025, 1, 1))),
    ("2023年我住哪", AT, (D(2023, 1, 1), D(2024, 1, 1))),
    # current
    ("我目前用什么编辑器", CUR, None),
    ("当前的数据库版本是多少", CUR, None),
    ("如今我住在哪里", CUR, None),
    ("我还住在北京吗，现在", CUR, None),
    ("最近我在看什么书", CUR, None),
    # history
    ("我以前住在哪", HIS, None),
    ("原来的主题是什么", HIS, None),
    ("我过去喜欢什么运动", HIS, None),
    ("我曾经养过什么宠物", HIS, None),
    ("早先我用的是哪个编辑器", HIS, None),
    ("一开始我喜欢什么颜色", HIS, None),
    ("我上一个工作是什么", HIS, None),
    ("搬家之前我住哪", HIS, None),
    ("换工作以前我在哪上班", HIS, None),
    ("我现在和以前的爱好有什么不同", HIS, None),  # both: history, which includes the current value
    # calendar
    ("三个月前我在哪", AT, (D(2025, 12, 1), D(2026, 1, 1))),
    ("两年前我住哪", AT, (D(2024, 1, 1), D(2025, 1, 1))),
    ("3天前我吃了什么", AT, (D(2026, 2, 26), D(2026, 2, 27))),
    ("半年前我在做什么", AT, (D(2025, 9, 1), D(2025, 10, 1))),
    ("前几天我买了什么", AT, (D(2026, 2, 23), D(2026, 2, 28))),
    ("昨天我去了哪", AT, (D(2026, 2, 28), D(2026, 3, 1))),
    ("2024年5月我在哪", AT, (D(2024, 5, 1), D(2024, 6, 1))),
    ("2024-05-01我在哪", AT, (D(2024, 5, 1), D(2024, 5, 2))),
    ("12月10号是谁的生日", AT, (D(2025, 12, 10), D(2025, 12, 11))),
    ("今年我多大", AT, (D(2026, 1, 1), D(2027, 1, 1))),
    ("2023年之前我住哪", AT, (None, D(2023, 1, 1))),
    ("去年以前我用什么手机", AT, (None, D(2025, 1, 1))),
    ("2024年以来我在哪工作", AT, (D(2024, 1, 1), None)),
    ("4月开始我住哪", AT, (D(2025, 4, 1), None)),
    # no time, and date-like strings that are not time
    ("我喜欢什么颜色", NONE, None),
    ("项目代号是什么", NONE, None),
    ("v1.2 和 v1.3 有什么区别", NONE, None),
    ("端口8080是谁在用", NONE, None),
    ("3个苹果多少钱", NONE, None),
    ("3点开会的是谁", NONE, None),  # a time of day: recognised, no filter
    ("版本2023.1修复了什么", NONE, None),
    ("密码是2023吗", NONE, None),
    ("12个月的会员多少钱", NONE, None),
    ("10.0.0.1:8080 是什么服务", NONE, None),
    # ambiguous: the reading without time wins
    ("原来如此，那我住哪？", NONE, None),
    ("我过去找你吧", NONE, None),
    ("上一个月的账单", NONE, None),  # 上一个月 is not in the grammar; 上一个 must not read as "previous"
]

EN_TIME = [
    ("What is my favourite colour now?", CUR, None),
    ("Where do I currently work?", CUR, None),
    ("What do I do these days?", CUR, None),
    ("Do I still live in Beijing?", CUR, None),
    ("What about now?", CUR, None),
    ("What is my current job?", CUR, None),
    ("What did I use to like?", HIS, None),
    ("Where did I live before?", HIS, None),
    ("What was my job previously?", HIS, None),
    ("What did I prefer originally?", HIS, None),
    ("What theme did I have at first?", HIS, None),
    ("Where did I work in the past?", HIS, None),
    ("Where did I live before the move?", HIS, None),
    ("Where did I work before I moved to Paris?", HIS, None),
    ("Where did I live last month?", AT, (D(2026, 2, 1), D(2026, 3, 1))),
    ("What did I do last week?", AT, (D(2026, 2, 16), D(2026, 2, 23))),
    ("Where did I travel last year?", AT, (D(2025, 1, 1), D(2026, 1, 1))),
    ("Where did I live in April?", AT, (D(2025, 4, 1), D(2025, 5, 1))),
    ("Where did I live in 2023?", AT, (D(2023, 1, 1), D(2024, 1, 1))),
    ("Where did Caroline live in April 2024?", AT, (D(2024, 4, 1), D(2024, 5, 1))),
    ("What did I buy 3 days ago?", AT, (D(2026, 2, 26), D(2026, 2, 27))),
    ("What did I read two weeks ago?", AT, (D(2026, 2, 9), D(2026, 2, 16))),
    ("What happened a month ago?", AT, (D(2026, 2, 1), D(2026, 3, 1))),
    ("Where did I work before 2023?", AT, (None, D(2023, 1, 1))),
    ("Where have I worked since 2023?", AT, (D(2023, 1, 1), None)),
    ("What did I do after March 2025?", AT, (D(2025, 4, 1), None)),
    ("What did I eat yesterday?", AT, (D(2026, 2, 28), D(2026, 3, 1))),
    ("What is my favourite colour?", NONE, None),
    ("Which port does the API use, 8080?", NONE, None),
    ("What changed between v1.2 and v1.3?", NONE, None),
    ("Is Python 3.11.7 supported?", NONE, None),
    ("What is on at 3pm?", NONE, None),
    ("May I ask where I live?", NONE, None),  # "May" the modal verb
    ("What do I do before going to bed?", NONE, None),  # a habit, not a past event
    ("I know the answer, do you?", NONE, None),  # "now" inside "know" is not a word
    ("Where does April live?", AT, (D(2025, 4, 1), D(2025, 5, 1))),  # ambiguous: low confidence
]


@pytest.mark.parametrize(("query", "mode", "days"), ZH_TIME, ids=[c[0] for c in ZH_TIME])
def test_chinese_time_expressions(query: str, mode: TimeMode, days) -> None:
    intent = _u(query)
    assert intent.time_mode is mode, intent.reasons
    assert _days(intent) == days, intent.reasons


@pytest.mark.parametrize(("query", "mode", "days"), EN_TIME, ids=[c[0] for c in EN_TIME])
def test_english_time_expressions(query: str, mode: TimeMode, days) -> None:
    intent = _u(query)
    assert intent.time_mode is mode, intent.reasons
    assert _days(intent) == days, intent.reasons


def test_the_tables_are_big_enough() -> None:
    assert len(ZH_TIME) >= 40 and len(EN_TIME) >= 30


@pytest.mark.parametrize("query", [q for q, m, _ in ZH_TIME + EN_TIME if m is TimeMode.AT])
def test_valid_at_is_the_latest_instant_of_the_range_not_after_now(query: str) -> None:
    intent = _u(query)
    assert intent.valid_range is not None and intent.valid_at is not None
    assert intent.valid_range.contains(intent.valid_at)
    assert intent.valid_at <= NOW or intent.valid_at == intent.valid_range.start
    if intent.valid_range.end is not None and intent.valid_range.end <= NOW:
        assert intent.valid_at == intent.valid_range.end - timedelta(microseconds=1)


def test_a_month_without_a_year_is_this_year_once_it_has_begun() -> None:
    in_april = datetime(2026, 4, 20, 12, 0, tzinfo=CST)
    intent = understand("4月时我住哪", now=in_april, times=temporal)
    assert _days(intent) == (D(2026, 4, 1), D(2026, 5, 1))
    assert intent.valid_at == in_april  # the range is still open at now


def test_boundaries_are_taken_in_the_zone_of_now() -> None:
    utc_now = datetime(2026, 2, 28, 17, 0, tzinfo=timezone.utc)  # already 1 March in UTC+8
    assert _days(understand("昨天我去了哪", now=utc_now, times=temporal)) == (D(2026, 2, 27), D(2026, 2, 28))
    assert _days(understand("昨天我去了哪", now=utc_now.astimezone(CST), times=temporal)) == (D(2026, 2, 28),
                                                                                         D(2026, 3, 1))


@pytest.mark.parametrize(("query", "cleaned"), [
    ("4月时我住哪", "我住哪"),
    ("我之前偏好什么主题？", "我偏好什么主题?"),
    ("Where did I live in April 2024?", "Where did I live?"),
    ("What did I use to like?", "What did I like?"),
    ("搬家之前我住哪", "搬家我住哪"),  # the event stays: it is what to search for
    ("3点开会的是谁", "3点开会的是谁"),  # a time of day is content, not a filter
    ("项目代号是什么", "项目代号是什么"),
])
def test_cleaned_query_drops_the_time_words(query: str, cleaned: str) -> None:
    assert _u(query).cleaned_query == cleaned


@pytest.mark.parametrize(("query", "elliptical"), [
    ("现在呢？", True), ("那以前呢", True), ("What about now?", True), ("And before?", True), ("去年", True),
    ("我现在住哪", False), ("Where do I live now?", False), ("项目代号", False),
])
def test_elliptical_follow_ups_are_flagged(query: str, elliptical: bool) -> None:
    assert _u(query).elliptical is elliptical


@pytest.mark.parametrize(("query", "anchor", "mode"), [
    ("搬家之前我住哪", EventAnchor("before", "搬家"), HIS),
    ("结婚以前我在哪工作", EventAnchor("before", "结婚"), HIS),
    ("搬到北京以后我住哪", EventAnchor("after", "搬到北京"), CUR),
    ("Where did I live before the move?", EventAnchor("before", "the move"), HIS),
    ("after the move where do I live", EventAnchor("after", "the move"), CUR),
    ("What do I do before going to bed?", EventAnchor("before", "going to bed"), NONE),
])
def test_event_anchors(query: str, anchor: EventAnchor, mode: TimeMode) -> None:
    intent = _u(query)
    assert intent.anchor == anchor and intent.time_mode is mode and intent.valid_range is None


@pytest.mark.parametrize(("query", "earliest"), [
    ("一开始我喜欢什么", True), ("What did I prefer originally?", True), ("最初的名字是什么", True),
    ("我之前喜欢什么", False), ("What did I like before?", False),
])
def test_earliest_asks_for_the_first_value(query: str, earliest: bool) -> None:
    intent = _u(query)
    assert intent.time_mode is HIS and intent.earliest is earliest


@pytest.mark.parametrize("query", ["上周我跟你说过我住哪？", "What did I tell you last week about my job?",
                                   "What did I say as of March 2025 about my job?",
                                   "我有点忘了。上周我跟你说过我住哪？"])
def test_asking_what_was_said_then_sets_known_at(query: str) -> None:
    intent = _u(query)
    assert intent.time_mode is AT and intent.known_at is not None and intent.known_at == intent.valid_at


@pytest.mark.parametrize("query", ["上周我住哪？", "我现在住哪", "Where did I live last week?",
                                   # A cue in another sentence than the time: chit-chat, not "what was known then".
                                   "昨天我在办公室忙了一整天。我还没记下来日程。那个生日是10月16日的人，工作地是什么？",
                                   "Last week I was busy. What did I tell you about my job?",
                                   "昨天还跟朋友聊天提到生日的事情。那个职业是程序员的人，生日是什么？"])
def test_known_at_is_not_inferred_without_a_cue(query: str) -> None:
    assert _u(query).known_at is None


def test_ambiguous_expressions_carry_low_confidence_and_a_reason() -> None:
    april = _u("Where does April live?")
    assert april.time_confidence < 0.6
    assert any(r.startswith("time.ambiguous") for r in april.reasons)
    assert "April" in april.subjects  # the other reading is kept too
    assert _u("Where did I live in April?").time_confidence == 1.0
    assert any(r.startswith("time.clock_ignored") for r in _u("3点开会的是谁").reasons)


# --- entities -------------------------------------------------------------------------------------

KNOWN = ["张伟", "Caroline", "北极星", "Melanie Smith"]
ALIASES = {"小伟": "张伟", "Mel": "Melanie Smith"}


# (query, [(key, kind)], about_user)
ENTITY_CASES = [
    ("张伟住哪", [("张伟", "subject")], False),
    ("小伟现在住哪", [("张伟", "subject")], False),
    ("张卫住哪", [("张卫", "person")], False),  # a near-homonym of a known subject is not that subject
    ("张伟华住哪", [("张伟华", "person")], False),  # nor is a longer name containing it
    ("张伟家住哪", [("张伟", "subject")], False),  # but 张伟's home is still 张伟
    ("张伟喜欢什么", [("张伟", "subject")], False),
    ("北极星项目的负责人是谁", [("北极星", "subject")], False),
    ("王小明喜欢什么", [("王小明", "person")], False),
    ("我表弟现在多大了", [("表弟", "role")], False),
    ("我的上司叫什么", [("上司", "role")], False),
    ("我和我表弟谁大", [("表弟", "role")], True),
    ("我喜欢什么颜色", [], True),
    ("我住在杭州市吗", [("杭州", "place")], True),
    ("用户的偏好主题是什么", [], True),
    ("v1.2 和 v1.3 有什么区别", [("1.2", "version"), ("1.3", "version")], False),
    ("PostgreSQL 16 的配置", [("postgresql", "product")], False),
    ("Where does Caroline live?", [("Caroline", "subject")], False),
    ("What does Mel like?", [("Melanie Smith", "subject")], False),
    ("caroline's job", [("Caroline", "subject")], False),
    ("Where does Carolina live?", [("Carolina", "person")], False),  # not the known Caroline
    ("Did John Smith visit New York?", [("John Smith", "person"), ("new york", "place")], False),
    ("What's my sister's job?", [("sister", "role")], False),
    ("Where do I live?", [], True),
    ("What did I tell Melanie Smith?", [("Melanie Smith", "subject")], True),
]


@pytest.mark.parametrize(("query", "expected", "about_user"), ENTITY_CASES, ids=[c[0] for c in ENTITY_CASES])
def test_entities_and_about_user(query: str, expected: list[tuple[str, str]], about_user: bool) -> None:
    intent = _u(query, known_subjects=KNOWN, aliases=ALIASES)
    assert [(e.key, e.kind) for e in intent.entities] == expected, intent.reasons
    assert intent.about_user is about_user
    assert intent.subjects == tuple(dict.fromkeys(k for k, kind in expected if kind != "version"))


def test_known_subjects_are_high_confidence_and_name_shapes_are_not() -> None:
    intent = _u("张伟和张卫还有王小明", known_subjects=KNOWN)
    assert intent.confident_subjects() == ("张伟",)
    assert {e.key: e.confidence for e in intent.entities}["张卫"] < HIGH_CONFIDENCE
    assert intent.subjects == ("张伟", "张卫", "王小明")
    assert _u("v1.2 有什么变化").confident_subjects() == ("1.2",)  # a literal version is unambiguous


def test_entity_spans_point_into_the_normalised_query() -> None:
    intent = _u("Ｃａｒｏｌｉｎｅ去年住哪", known_subjects=KNOWN)  # full-width letters: NFKC first
    (entity,) = intent.entities
    assert entity.key == "Caroline" and entity.text == "Caroline" and (entity.start, entity.end) == (0, 8)


def test_the_users_own_names_are_not_subjects() -> None:
    intent = _u("用户喜欢什么", known_subjects=["用户", "user", "我"])
    assert intent.entities == () and intent.about_user


def test_a_month_word_that_is_a_date_is_not_a_person() -> None:
    intent = _u("What did Caroline do in April?", known_subjects=KNOWN)
    assert intent.subjects == ("Caroline",)


def test_a_short_known_subject_only_matches_whole_words() -> None:
    assert _u("Who said it?", known_subjects=["AI", "Sa"]).subjects == ()
    assert _u("What does the AI say?", known_subjects=["AI"]).subjects == ("AI",)


def test_a_subject_index_is_built_once_and_gives_the_same_answers() -> None:
    index = index_subjects(KNOWN + ["用户", "王"], ALIASES)
    assert index.size == len(KNOWN) + len(ALIASES)  # the user's own name and one-character names are left out
    for query, *_ in ENTITY_CASES:
        assert _u(query, known_subjects=index) == _u(query, known_subjects=KNOWN, aliases=ALIASES)
    with pytest.raises(ValueError, match="aliases"):
        _u("张伟", known_subjects=index, aliases={"x": "y"})


# --- merge, validation, purity --------------------------------------------------------------------

def test_explicit_arguments_win() -> None:
    inferred = _u("我之前偏好什么主题？")
    explicit = datetime(2025, 1, 1, tzinfo=timezone.utc)
    merged = merge(inferred, valid_at=explicit)
    assert merged.time_mode is AT and merged.valid_at == explicit and merged.valid_range is None
    assert any(r.startswith("merge.valid_at") for r in merged.reasons)
    dated = merge(_u("去年我住哪"), known_at=explicit)
    assert dated.known_at == explicit and dated.valid_range == _u("去年我住哪").valid_range
    assert merge(inferred) is inferred


def test_now_must_be_aware() -> None:
    with pytest.raises(ValueError, match="timezone"):
        understand("现在呢", now=datetime(2026, 3, 1), times=temporal)


def test_understanding_is_deterministic() -> None:
    assert _u("去年我在哪工作", known_subjects=KNOWN) == _u("去年我在哪工作", known_subjects=KNOWN)


@frozen
class _Span:
    start: int
    end: int
    text: str


class _NoCalendar:
    """A TimeParser that finds nothing: markers still work, dates are not resolved."""

    calls: list[str]

    def __init__(self) -> None:
        self.calls = []

    def find(self, text: str) -> list[_Span]:
        self.calls.append(text)
        return []

    def resolve(self, expression_text: str, anchor: datetime, *, prefer: str = "past") -> None:
        raise AssertionError("nothing was found, so nothing is resolved")


def test_the_time_parser_is_a_port() -> None:
    parser = _NoCalendar()
    assert understand("去年我住哪", now=NOW, times=parser).time_mode is NONE
    assert understand("我之前住哪", now=NOW, times=parser).time_mode is HIS
    assert parser.calls == ["去年我住哪", "我之前住哪"]


def test_every_reason_has_a_known_code() -> None:
    for query, *_ in ZH_TIME + EN_TIME + ENTITY_CASES:
        for reason in _u(query, known_subjects=KNOWN).reasons:
            assert reason.split(":", 1)[0] in REASON_CODES, reason


@pytest.mark.parametrize(("start", "end", "instant", "inside"), [
    (datetime(2026, 1, 1, tzinfo=CST), datetime(2026, 2, 1, tzinfo=CST), datetime(2026, 1, 31, tzinfo=CST), True),
    (datetime(2026, 1, 1, tzinfo=CST), datetime(2026, 2, 1, tzinfo=CST), datetime(2026, 2, 1, tzinfo=CST), False),
    (None, datetime(2026, 2, 1, tzinfo=CST), datetime(1999, 1, 1, tzinfo=CST), True),
    (datetime(2026, 1, 1, tzinfo=CST), None, datetime(2099, 1, 1, tzinfo=CST), True),
])
def test_valid_range_contains(start, end, instant, inside) -> None:
    assert ValidRange(start, end).contains(instant) is inside


def test_valid_range_overlaps_half_open_intervals() -> None:
    jan = ValidRange(datetime(2026, 1, 1, tzinfo=CST), datetime(2026, 2, 1, tzinfo=CST))
    assert jan.overlaps(datetime(2025, 6, 1, tzinfo=CST), None)  # still valid in January
    assert jan.overlaps(datetime(2026, 1, 31, tzinfo=CST), datetime(2026, 3, 1, tzinfo=CST))
    assert not jan.overlaps(datetime(2026, 2, 1, tzinfo=CST), None)  # starts when the range ends
    assert not jan.overlaps(datetime(2025, 1, 1, tzinfo=CST), datetime(2026, 1, 1, tzinfo=CST))  # ended at its start
    assert ValidRange(None, None).overlaps(None, None)


_QUERY_TEXT = st.text(alphabet=st.sampled_from(list("我之前现在去年4月时的张伟住哪 v1.2 8080 3点个 before now last month in April 2024 "
                                                    "Caroline ago 天前以后之后 used to？?")), max_size=40)


@given(_QUERY_TEXT | st.text(max_size=60))
def test_any_text_is_understood_without_error(query: str) -> None:
    intent = understand(query, now=NOW, times=temporal, known_subjects=KNOWN, aliases=ALIASES)
    assert intent.time_mode in TimeMode
    for e in intent.entities:
        assert 0 < e.confidence <= 1 and 0 <= e.start < e.end
    if intent.valid_at is not None:
        assert intent.valid_range is not None and intent.valid_range.contains(intent.valid_at)
    assert (intent.valid_range is not None) == (intent.time_mode is AT)
