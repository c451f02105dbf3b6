"""The rule extractor: tables of Chinese and English statements and what they must (not) yield."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from hlmem.application.extraction.rules import extract
from hlmem.domain.candidates import CandidateClaim, SourceEvent
from hlmem.domain.events import Cardinality, Scope
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

#: Wednesday 3 June 2026, 10:00 UTC.
AT = datetime(2026, 6, 3, 10, 0, tzinfo=timezone.utc)


def _event(text: str, role: str = "user", at: datetime = AT, event_id: str = "ev_1") -> SourceEvent:
    return SourceEvent(event_id=event_id, text=text, role=role, session_id="s1", origin_class="direct_user",
                       session_kind="interactive", occurred_at=at)


def run(text: str, role: str = "user", at: datetime = AT) -> list[CandidateClaim]:
    """Extract from one event and check the invariants every candidate keeps."""
    event = _event(text, role, at)
    found = extract([event], DEFAULT_REGISTRY)
    for c in found:
        assert c.evidence == ("ev_1",)
        assert c.evidence_quote and c.evidence_quote in text, c.evidence_quote
        assert c.extractor == "rules"
        assert c.valid_from is not None
        assert c.valid_to is None or c.valid_to > c.valid_from
    return found


def triples(text: str, role: str = "user") -> list[tuple[str, str, str, bool]]:
    return [(c.subject, c.predicate, c.value, c.polarity) for c in run(text, role)]


def one(text: str) -> CandidateClaim:
    found = run(text)
    assert len(found) == 1, found
    return found[0]


ZH_POSITIVE = [
    ("我现在主要用深色模式", ("用户", "preferred_ui_theme", "深色模式", True)),
    ("暂时换成浅色模式", ("用户", "preferred_ui_theme", "浅色模式", True)),
    ("把主题改成暗色", ("用户", "preferred_ui_theme", "暗色", True)),
    ("我更喜欢用中文交流", ("用户", "preferred_language", "中文", True)),
    ("我叫张伟", ("用户", "name", "张伟", True)),
    ("我的名字是李雷", ("用户", "name", "李雷", True)),
    ("我住在北京", ("用户", "lives_in", "北京", True)),
    ("我从北京搬到上海了", ("用户", "lives_in", "上海", True)),
    ("我在上海工作", ("用户", "works_in", "上海", True)),
    ("我在腾讯公司工作", ("用户", "employer", "腾讯公司", True)),
    ("我是一名软件工程师", ("用户", "job_title", "软件工程师", True)),
    ("我今年25岁", ("用户", "age", "25岁", True)),
    ("我是北京人", ("用户", "hometown", "北京", True)),
    ("我的生日是5月3日", ("用户", "birthday", "5月3日", True)),
    ("我的上司叫王强", ("用户", "boss", "王强", True)),
    ("我老婆是李娜", ("用户", "spouse", "李娜", True)),
    ("张三是我的朋友", ("用户", "friend", "张三", True)),
    ("我喜欢吃辣", ("用户", "likes", "吃辣", True)),
    ("component-00 当前版本是 v1.2", ("component-00", "version", "v1.2", True)),
    ("X 的版本升级到 1.3", ("X", "version", "1.3", True)),
    ("X 回滚到 v1.0", ("X", "version", "v1.0", True)),
    ("把 payments 回滚到 v1.0", ("payments", "version", "v1.0", True)),
    ("X 的版本从 v1.2 升级到 v1.3", ("X", "version", "v1.3", True)),
    ("api-gateway 部署了 v1.2", ("api-gateway", "version", "v1.2", True)),
    ("component-04 现在运行 release v1.2", ("component-04", "version", "v1.2", True)),
    ("nginx 端口是 8080", ("nginx", "port", "8080", True)),
    ("nginx 的端口改成了 9090", ("nginx", "port", "9090", True)),
    ("服务 A 监听 3000 端口", ("服务 A", "port", "3000", True)),
    ("客服机器人的模型是 qwen-max", ("客服机器人", "model", "qwen-max", True)),
    ("hlmem 的数据目录是 ~/.local/share/hlmem", ("hlmem", "path", "~/.local/share/hlmem", True)),
    ("service-04 的 API 服务 当前状态为 healthy", ("service-04", "status", "healthy", True)),
    ("小王的妻子是李华", ("小王", "spouse", "李华", True)),
    ("control-01 的角色是维护者", ("control-01", "角色", "维护者", True)),
]

EN_POSITIVE = [
    ("I prefer dark mode.", ("user", "preferred_ui_theme", "dark mode", True)),
    ("I switched to light mode for now.", ("user", "preferred_ui_theme", "light mode", True)),
    ("My name is Alice Chen.", ("user", "name", "Alice Chen", True)),
    ("I live in Berlin.", ("user", "lives_in", "Berlin", True)),
    ("I moved to New York last year.", ("user", "lives_in", "New York", True)),
    ("I work in Seattle.", ("user", "works_in", "Seattle", True)),
    ("I'm a data scientist.", ("user", "job_title", "data scientist", True)),
    ("I'm 32 years old.", ("user", "age", "32", True)),
    ("I'm originally from Toronto.", ("user", "hometown", "Toronto", True)),
    ("My boss is John Smith.", ("user", "boss", "John Smith", True)),
    ("Sarah is my colleague.", ("user", "colleague", "Sarah", True)),
    ("My wife's name is Emma.", ("user", "spouse", "Emma", True)),
    ("I love jazz.", ("user", "likes", "jazz", True)),
    ("nginx version is 1.25.3", ("nginx", "version", "1.25.3", True)),
    ("We upgraded postgres from 15.4 to 16.2", ("postgres", "version", "16.2", True)),
    ("The API server was rolled back to v1.0.", ("API server", "version", "v1.0", True)),
    ("api-gateway runs on port 8080.", ("api-gateway", "port", "8080", True)),
    ("The app's model is gpt-4o.", ("app", "model", "gpt-4o", True)),
    ("redis is running", ("redis", "status", "running", True)),
    ("Alice's birthday is May 3", ("Alice", "birthday", "May 3", True)),
]


@pytest.mark.parametrize(("text", "expected"), ZH_POSITIVE + EN_POSITIVE, ids=[t for t, _ in ZH_POSITIVE + EN_POSITIVE])
def test_positive(text: str, expected: tuple[str, str, str, bool]) -> None:
    assert triples(text) == [expected]


NOTHING = [
    # questions
    "我住在哪里？", "我住在哪里", "我的上司叫什么", "你喜欢深色模式吗", "Where do I live?", "Do I prefer dark mode?",
    # hypotheticals and uncertainty
    "如果我搬去北京，我会很开心", "要是我住在上海就好了", "If I moved to Tokyo, I'd be happy.", "我可能住在北京",
    "Maybe I live in Berlin.",
    # reported or quoted speech by others
    "他说他住在上海", "老王说他叫张伟", "文档写道：counter-07 当前版本是 v2.0", "回顾材料提到 2025 年时 X 当前版本是 v0.9",
    "He said he lives in Rome.", "According to the docs, nginx version is 1.25", "他问：“你住在北京吗”",
    # requirements, habitual past
    "要求 counter-06 必须保持 v2.0", "X 必须是 v2.0", "这条描述不得改变 X 的当前状态", "我以前住在上海",
    "I used to live in Boston.", "You should use dark mode.",
    # chatter and things no rule covers
    "好的，谢谢", "今天天气不错", "control-02 采用本地优先架构", "control-03 包含三个模块", "I live in fear.",
    "我在家工作", "<HAN:2>的<ASCII:4>是<HAN:3>",
    # opinions, deixis and vague plans are not attributes
    "这个函数的返回值是 None", "问题的关键是缓存没有失效", "模型的效果是不错的", "I love this idea!",
    "My question is how to fix this.", "My code is broken.", "We'll see tomorrow.", "Tomorrow is Friday.",
]


@pytest.mark.parametrize("text", NOTHING)
def test_nothing(text: str) -> None:
    assert run(text) == []


def test_a_hospital_stay_is_a_state_for_now_not_a_home() -> None:
    [c] = run("我住院了")
    assert (c.predicate, c.value, c.scope) == ("health_condition", "住院", Scope.TEMPORAL)


def test_an_assistants_first_person_is_not_the_user() -> None:
    assert run("我住在北京", role="assistant") == []
    assert run("I prefer dark mode.", role="assistant") == []
    # Facts about things keep their subject, whoever states them.
    assert triples("nginx 端口是 8080", role="assistant") == [("nginx", "port", "8080", True)]


NEGATIONS = [
    ("我不喜欢香菜", ("用户", "likes", "香菜", False)),
    ("我讨厌加班", ("用户", "likes", "加班", False)),
    ("我不住在北京了", ("用户", "lives_in", "北京", False)),
    ("我不叫李雷", ("用户", "name", "李雷", False)),
    ("我不用深色模式了", ("用户", "preferred_ui_theme", "深色模式", False)),
    ("关闭深色模式", ("用户", "preferred_ui_theme", "深色模式", False)),
    ("王强不是我的上司", ("用户", "boss", "王强", False)),
    ("counter-08 并不是 running 状态", ("counter-08", "status", "running", False)),
    ("I don't like cilantro.", ("user", "likes", "cilantro", False)),
    ("I hate meetings.", ("user", "likes", "meetings", False)),
    ("I no longer live in London.", ("user", "lives_in", "London", False)),
    ("I don't use dark mode anymore.", ("user", "preferred_ui_theme", "dark mode", False)),
    ("John isn't my boss.", ("user", "boss", "John", False)),
    ("redis is not running", ("redis", "status", "running", False)),
]


@pytest.mark.parametrize(("text", "expected"), NEGATIONS, ids=[t for t, _ in NEGATIONS])
def test_negation_sets_polarity(text: str, expected: tuple[str, str, str, bool]) -> None:
    assert expected in triples(text)
    if text in ("我讨厌加班", "I hate meetings."):  # a strong dislike is also a value of its own (ADR 0065)
        assert (expected[0], "dislikes", expected[2], True) in triples(text)


def test_versions_are_different_values_of_one_slot() -> None:
    a, b = one("api 部署了 v1.2"), one("api 部署了 v1.3")
    assert (a.subject, a.predicate, a.coordinates) == (b.subject, b.predicate, b.coordinates)
    assert (a.value, b.value) == ("v1.2", "v1.3")


def test_dark_then_light_land_in_one_slot_and_temporary_is_kept() -> None:
    dark, light = one("我现在主要用深色模式"), one("暂时换成浅色模式")
    assert (dark.subject, dark.predicate, dark.coordinates) == (light.subject, light.predicate, light.coordinates)
    assert DEFAULT_REGISTRY.cardinality(dark.predicate, dark.cardinality) is Cardinality.SINGLE
    assert dark.qualifiers == () and dark.scope is Scope.PERMANENT
    assert light.qualifiers == (("temporary", "暂时"),) and light.scope is Scope.TEMPORAL


def test_the_temporary_choice_supersedes_the_lasting_one_in_memory() -> None:
    from hlmem import Memory

    with Memory(":memory:", embedder="none", now=AT) as mem:
        ids = []
        for i, text in enumerate(["我现在主要用深色模式", "暂时换成浅色模式"]):
            at = AT + timedelta(hours=i)
            mem.clock.set(at)  # type: ignore[attr-defined]
            ev = mem.add(text, occurred_at=at, extract=False).id
            (c,) = extract([_event(text, at=at, event_id=ev)], DEFAULT_REGISTRY)
            ids.append(mem.remember(c.subject, c.predicate, c.value, qualifiers=dict(c.qualifiers),
                                    valid_from=c.valid_from, scope=c.scope, evidence=list(c.evidence)).id)
        claims = mem.storage.get_claims(ids)
        assert claims[ids[0]].superseded_by == ids[1]
        assert claims[ids[1]].qualifiers == (("temporary", "暂时"),)


RELATION_CARDINALITY = [
    ("我的上司叫王强", "boss", Cardinality.SINGLE),
    ("我的同事是李娜", "colleague", Cardinality.MULTI),
    ("我的朋友叫小明", "friend", Cardinality.MULTI),
    ("我的妻子叫李娜", "spouse", Cardinality.SINGLE),
    ("My coworker is Dana.", "colleague", Cardinality.MULTI),
]


@pytest.mark.parametrize(("text", "predicate", "cardinality"), RELATION_CARDINALITY)
def test_relations_declare_their_cardinality(text: str, predicate: str, cardinality: Cardinality) -> None:
    c = one(text)
    assert (c.predicate, c.cardinality) == (predicate, cardinality)


def test_relation_needs_a_name_not_a_description() -> None:
    assert run("我的上司是一个很严格的人") == []
    # a description is the colleague's job, never the colleague's name
    assert [(c.subject, c.predicate, c.value) for c in run("我的同事是程序员")] == [("用户的同事", "job_title", "程序员")]


# -- valid time ------------------------------------------------------------------------------

def test_a_reported_change_holds_from_its_date_and_is_marked_a_change() -> None:
    # ADR 0059: "其实5月就搬去北京了" said on 3 June holds from May, and is a change, so the
    # domain still lets it supersede what was said before it.
    c = one("其实5月就搬去北京了")
    assert (c.predicate, c.value) == ("lives_in", "北京")
    assert c.valid_from == datetime(2026, 5, 1, tzinfo=AT.tzinfo) and c.valid_to is None and c.change
    assert not any(k == "since" for k, _ in c.qualifiers)


def test_a_month_after_the_anchor_month_is_last_years() -> None:
    c = run("其实8月就搬去北京了")[0]
    assert c.valid_from == datetime(2025, 8, 1, tzinfo=AT.tzinfo)


@pytest.mark.parametrize(("text", "start"), [
    ("I moved to Seattle in May.", datetime(2026, 5, 1)), ("I moved to Seattle in August.", datetime(2025, 8, 1)),
    ("I started at Shopify on Monday.", datetime(2026, 6, 1)), ("我周五搬到了杭州。", datetime(2026, 5, 29)),
])
def test_a_month_or_weekday_in_a_statement_is_the_nearest_past_one(text: str, start: datetime) -> None:
    # AT is Wednesday 3 June 2026: Monday is 1 June, 周五 the Friday before (29 May).
    c = run(text)[0]
    assert c.valid_from == start.replace(tzinfo=AT.tzinfo) and c.valid_to is None and c.change


@pytest.mark.parametrize("text", ["我去年查出高血压。", "I was diagnosed with celiac disease last year.", "我前年确诊了糖尿病"])
def test_a_diagnosis_in_the_past_still_holds(text: str) -> None:
    c = run(text)[0]
    assert c.predicate == "health_condition" and c.valid_from < AT and c.valid_to is None


def test_without_time_words_validity_starts_when_the_event_occurred() -> None:
    assert one("我住在北京").valid_from == AT


def test_a_state_pinned_to_a_past_year_holds_only_then() -> None:
    c = one("历史记录：2024 年时 counter-04 当前版本是 v0.8")
    assert (c.subject, c.value) == ("counter-04", "v0.8")
    assert (c.valid_from, c.valid_to) == (datetime(2024, 1, 1, tzinfo=timezone.utc),
                                          datetime(2025, 1, 1, tzinfo=timezone.utc))


def test_a_late_record_of_a_day_holds_from_that_day() -> None:
    c = one("补录：2026 年 6 月 1 日时 component-02 当前版本是 v1.0")
    assert (c.valid_from, c.valid_to) == (datetime(2026, 6, 1, tzinfo=timezone.utc), None)
    assert c.evidence_quote.startswith("2026 年 6 月 1 日时")


PLANS = [
    ("下周三开会", "开会", datetime(2026, 6, 10, tzinfo=timezone.utc), datetime(2026, 6, 11, tzinfo=timezone.utc)),
    ("我下个月要搬去上海", "搬去上海", datetime(2026, 7, 1, tzinfo=timezone.utc), datetime(2026, 8, 1, tzinfo=timezone.utc)),
    ("计划下周把 counter-05 升级到 v2.0", "把 counter-05 升级到 v2.0", datetime(2026, 6, 8, tzinfo=timezone.utc),
     datetime(2026, 6, 15, tzinfo=timezone.utc)),
    ("I'm meeting Sarah next Friday.", "meeting Sarah", datetime(2026, 6, 5, tzinfo=timezone.utc),
     datetime(2026, 6, 6, tzinfo=timezone.utc)),
    ("I have a dentist appointment tomorrow", "a dentist appointment", datetime(2026, 6, 4, tzinfo=timezone.utc),
     datetime(2026, 6, 5, tzinfo=timezone.utc)),
]


@pytest.mark.parametrize(("text", "value", "start", "end"), PLANS, ids=[p[0] for p in PLANS])
def test_dated_plans(text: str, value: str, start: datetime, end: datetime) -> None:
    c = one(text)
    assert (c.predicate, c.value, c.valid_from, c.valid_to) == ("plan", value, start, end)
    assert c.scope is Scope.TEMPORAL and c.cardinality is Cardinality.MULTI
    assert c.subject in ("用户", "user")


def test_a_plan_never_becomes_the_current_state() -> None:
    assert [c.predicate for c in run("计划下周把 counter-05 升级到 v2.0")] == ["plan"]
    assert [c.predicate for c in run("我下个月要搬去上海")] == ["plan"]


def test_plans_of_others_and_past_dates_are_not_plans() -> None:
    assert run("昨天开会") == []
    assert run("他下周三出差") == []


# -- structure: coordinates, compound clauses, topics, quotes --------------------------------

@pytest.mark.parametrize(("text", "coordinates"), [
    ("counter-09 的 blue 部署当前版本是 v2.0", (("deployment", "blue"),)),
    ("counter-10 实例 node-a 当前版本是 v2.0", (("instance", "node-a"),)),
    ("component-03 服务 当前版本是 v1.1", ()),
    ("service-07 的 API 连接 当前状态为 reachable", (("connection", "API"),)),
    ("service-08 的 sync 任务 当前状态为 queued", (("job", "sync"),)),
    ("app 的日志路径是 /var/log/app", (("target", "日志"),)),
])
def test_parts_of_a_subject_become_coordinates(text: str, coordinates: tuple[tuple[str, str], ...]) -> None:
    assert one(text).coordinates == coordinates


def test_compound_clauses_share_their_subject() -> None:
    text = "compound-00 的 API 服务 当前 healthy；worker 进程 当前 running"
    found = run(text)
    assert [(c.subject, c.predicate, c.value, c.coordinates) for c in found] == [
        ("compound-00", "status", "healthy", (("service", "API"),)),
        ("compound-00", "status", "running", (("process", "worker"),)),
    ]
    # The second quote reaches back to the clause that named the subject.
    assert found[1].evidence_quote == text


def test_an_elided_subject_comes_from_the_previous_clause() -> None:
    assert triples("component-01 已回滚，当前版本是 v1.0") == [("component-01", "version", "v1.0", True)]
    assert triples("Redis 装好了，端口是 6379") == [("Redis", "port", "6379", True)]


def test_a_part_borrows_the_subject_of_its_own_sentence_only() -> None:
    # Across a sentence end, "nginx 服务" is a subject of its own, not a part of Redis.
    assert [(c.subject, c.coordinates) for c in run("Redis 装好了。nginx 服务 当前状态 正常")] == [("nginx", ())]


def test_english_clauses_may_open_with_discourse_words() -> None:
    assert triples("Hi, and I live in Paris.") == [("user", "lives_in", "Paris", True)]
    assert triples("btw my name is Carol") == [("user", "name", "Carol", True)]


def test_without_a_subject_a_config_fact_yields_nothing() -> None:
    assert run("端口是 8080") == []


def test_quotes_are_exact_substrings_in_long_mixed_text() -> None:
    text = "【上下文】<ASCII:4> (<VERSION>) <HAN:4>,<HAN:2>是 <ASCII:6>。\n【当前事件】\n我叫张伟。nginx 端口是 8080！"
    found = run(text)
    assert [(c.predicate, c.evidence_quote) for c in found] == [("name", "我叫张伟"), ("port", "nginx 端口是 8080")]


def test_window_of_several_events_keeps_each_events_evidence() -> None:
    events = [_event("我住在北京", event_id="ev_a"), _event("I live in Berlin.", event_id="ev_b")]
    found = extract(events, DEFAULT_REGISTRY)
    assert [(c.subject, c.value, c.evidence) for c in found] == [("用户", "北京", ("ev_a",)),
                                                                  ("user", "Berlin", ("ev_b",))]


def test_extraction_is_deterministic() -> None:
    text = "我现在主要用深色模式。其实5月就搬去北京了，我的上司叫王强。nginx 端口是 8080"
    assert run(text) == run(text)


def test_a_named_participants_first_person_is_about_that_name() -> None:
    """A group chat's roles are names (LoCoMo's Caroline and Melanie): "I" is the speaker, by name."""
    assert triples("I moved to Lisbon last year.", role="Caroline") == [("Caroline", "lives_in", "Lisbon", True)]
    assert triples("我住在杭州", role="王芳") == [("王芳", "lives_in", "杭州", True)]
    kin = {c.subject for c in run("My sister is a nurse.", role="Melanie")}
    assert kin == {"Melanie's sister"}
    assert {c.subject for c in run("我表哥是医生", role="王芳")} == {"王芳的表哥"}
    # A third party the participant names stays that third party.
    assert ("Alice", "lives_in", "Porto", True) in triples("Alice lives in Porto.", role="Caroline")
    # Spacing in the role is normalised; user roles stay the user, speaking roles say nothing.
    assert triples("I live in Madrid.", role="  Jean  Luc ") == [("Jean Luc", "lives_in", "Madrid", True)]
    assert triples("I live in Madrid.", role="Human") == [("user", "lives_in", "Madrid", True)]
    for role in ("assistant", "Tool", "system", "developer", ""):
        assert triples("I live in Madrid.", role=role) == [], role


def test_named_speakers_do_not_collide_with_the_user_in_memory() -> None:
    from hlmem import Memory

    with Memory(":memory:", embedder="none") as mem:
        mem.add("I live in Berlin.", session="group", role="user")
        mem.add("I live in Lisbon.", session="group", role="Caroline")
        mem.add("I live in Oslo.", session="group", role="Melanie")
        current = {(c.subject, c.value) for c in mem.claims(predicate="lives_in", status="active").items}
        assert current == {("user", "Berlin"), ("Caroline", "Lisbon"), ("Melanie", "Oslo")}


@pytest.mark.parametrize("text", [
    "I'll keep you posted!", "I'll let you know how it goes.", "I'll definitely check it out.",
    "I'm sure you'll do great.", "I'll send it to you later.", "I'll keep pushing forward.",
    "I'll keep that in mind.", "I'll try my best.", "I'll give it a try.", "Talk to you soon, I'll see you around.",
    "I'll make sure to spread the word about it.",
])
def test_conversational_promises_are_not_plans(text: str) -> None:
    """Chat small talk phrased as a future ("I'll keep you posted") is no plan worth a claim (LoCoMo)."""
    assert [c for c in run(text, role="Caroline") if c.predicate == "plan"] == []
    assert [c for c in run(text) if c.predicate == "plan"] == []


def test_real_plans_of_a_named_speaker_stay_plans() -> None:
    assert triples("I'm going to visit Rome next month.", role="Caroline") == [("Caroline", "plan", "visit Rome", True)]
    assert triples("I'll call my mom tomorrow.", role="Melanie") == [("Melanie", "plan", "call my mom", True)]
    assert ("Melanie", "plan", "thinking about going camping", True) in triples(
        "I'm thinking about going camping next weekend, I'll take the kids.", role="Melanie")
