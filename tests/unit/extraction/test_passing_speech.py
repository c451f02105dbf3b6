"""Facts said in passing (issue 34, round 2): dropped "I'm", amounts that move, tools one is on or
has left, work said as a noun phrase, schools, pets named as they are counted, partners by name,
the one moved, and habits changed without a verb of learning — in English and Chinese.

Each class: what the clause yields, and (for the risky ones) what it must not. Sentences here are
neither the benchmark's nor the fresh sets'.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from hlmem import Memory
from hlmem.application.extraction.rules import extract
from hlmem.domain.candidates import CandidateClaim, SourceEvent
from hlmem.domain.reversal import replaces
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

AT = datetime(2026, 6, 3, 10, 0, tzinfo=timezone.utc)


def run(text: str) -> list[CandidateClaim]:
    event = SourceEvent(event_id="ev_1", text=text, role="user", session_id="s", origin_class="direct_user",
                        session_kind="interactive", occurred_at=AT)
    found = extract([event], DEFAULT_REGISTRY)
    for c in found:
        assert c.evidence_quote in text and c.rule, c
    return found


def has(text: str, subject: str, predicate: str, value: str, polarity: bool = True) -> bool:
    return any(c.subject == subject and c.predicate == predicate and value in c.value and c.polarity == polarity
               for c in run(text))


@pytest.mark.parametrize(("text", "subject", "predicate", "value", "polarity"), [
    # dropped "I'm" / "I", im for I'm
    ("allergic to latex, found out at the dentist", "user", "allergy", "latex", True),
    ("based in Leipzig, freelance mostly", "user", "lives_in", "Leipzig", True),
    ("can't stand mayonnaise, never have", "user", "dislikes", "mayonnaise", True),
    ("im 16 and in 11th grade", "user", "age", "16", True),
    # amounts that move, money
    ("down to 183 this week!", "user", "weight", "183", True),
    ("Mochi is down to 9 lbs", "Mochi", "weight", "9", True),
    ("paying $980 a month for a tiny studio", "user", "rent", "$980", True),
    ("I make about 70k before taxes", "user", "salary", "70k", True),
    ("春节胖回一百二十八了", "用户", "weight", "一百二十八", True),
    ("房租涨到三千二了", "用户", "rent", "三千二", True),
    ("减肥一个月了!! 现在一百一十五", "用户", "weight", "一百一十五", True),
    # tools one is on, left, moved to
    ("we're still on Java 8 at work", "user", "uses", "Java 8", True),
    ("I'm not on Twitter anymore, too toxic", "user", "uses", "Twitter", False),
    ("gave up on Spotify, the ads got worse", "user", "uses", "Spotify", False),
    ("everything's in Notion now", "user", "uses", "Notion", True),
    ("my Galaxy S22 fell in the sink", "user", "owns", "Galaxy S22", True),
    ("我们组文档都放Confluence上", "用户", "uses", "Confluence", True),
    ("公司统一迁到飞书了", "用户", "uses", "飞书", True),
    # work said in passing
    ("Night shift paramedic at County General, four on four off", "user", "job_title", "paramedic", True),
    ("Freelance translator here, mostly legal stuff", "user", "job_title", "translator", True),
    ("I'm at Figma on the design systems team", "user", "employer", "Figma", True),
    ("signed with Atlassian, start in two weeks", "user", "employer", "Atlassian", True),
    ("Now I drive for Lyft", "user", "job_title", "driver", True),
    ("我堂哥在杭州做电商", "用户的堂哥", "job_title", "电商", True),
    ("本人一名小编辑", "用户", "job_title", "编辑", True),
    ("我开出租的，开了二十年", "用户", "job_title", "出租", True),
    ("我在县三院当医生", "用户", "employer", "县三院", True),
    # schools
    ("my daughter Zoe is at Maple Grove Elementary", "Zoe", "education", "Maple Grove Elementary", True),
    ("我外甥在实验小学上学", "用户的外甥", "education", "实验小学", True),
    ("我闺女在幼儿园小班", "用户的女儿", "education", "小班", True),
    # pets counted and named, given away
    ("家里养了只布偶叫雪球", "用户", "owns", "雪球", True),
    ("我们养了两只兔子，一只叫团团一只叫圆圆", "用户", "owns", "圆圆", True),
    ("雪球送给我同事了", "用户", "owns", "雪球", False),
    ("我家猫咪大橘今年五岁了", "大橘", "age", "5", True),
    # languages, partners
    ("I speak Hindi and English, and a little French from school", "user", "speaks", "French", True),
    ("我会说客家话和普通话", "用户", "speaks", "客家话", True),
    ("I've been married to Omar for six years", "user", "spouse", "Omar", True),
    ("跟阿杰吹了", "用户", "partner", "阿杰", False),
    ("现在女朋友是小敏", "用户", "partner", "小敏", True),
    # the one moved lives there
    ("把我妈接到深圳来了", "用户的妈妈", "lives_in", "深圳", True),
    ("we moved Dad into a care home in Reno", "user's dad", "lives_in", "Reno", True),
    # habits and hobbies said in passing
    ("I do a lot of woodworking on weekends", "user", "hobby", "woodworking", True),
    ("Board games are my thing now", "user", "hobby", "board games", True),
    ("游泳早就不游了", "用户", "habit", "游泳", False),
    ("现在改跳绳了", "用户", "habit", "跳绳", True),
    ("下班去打台球", "用户", "habit", "台球", True),
])
def test_a_fact_said_in_passing(text: str, subject: str, predicate: str, value: str, polarity: bool) -> None:
    assert has(text, subject, predicate, value, polarity), run(text)


@pytest.mark.parametrize("text", [
    "can't you check the weather for me?",
    "on the other hand it might rain",
    "Coffee here is terrible",
    "如果房租涨到五千我就搬走",
    "my friend says she's down to 120 now",
])
def test_what_stays_silent(text: str) -> None:
    assert run(text) == []


def test_a_name_replaces_its_placeholder() -> None:
    found = run("I'm seeing someone new, his name is Felix.")
    assert [(c.predicate, c.value) for c in found if c.predicate == "partner"] == [("partner", "Felix")]
    found = run("对象是大学同学，叫王磊")
    assert [(c.predicate, c.value) for c in found if c.predicate == "partner"] == [("partner", "王磊")]


def test_a_pet_counted_after_a_named_one_is_the_owners() -> None:
    found = run("家里养了只柯基叫可乐，还有只橘猫叫饼干")
    assert {(c.subject, c.value) for c in found if c.predicate == "owns"} == {("用户", "柯基（可乐）"), ("用户", "橘猫（饼干）")}


def test_usually_makes_a_time_a_frequency() -> None:
    (claim,) = [c for c in run("周末一般去爬山") if c.predicate == "habit"]
    assert claim.valid_from == AT and claim.valid_to is None


@pytest.mark.parametrize(("new", "old", "expected"), [
    ("Linear", "Jira", True), ("GitHub", "GitLab", True), ("GitHub", "Jira", False), ("Gitee", "Bitbucket", True),
])
def test_trackers_and_code_hosts_are_kinds(new: str, old: str, expected: bool) -> None:
    assert replaces("uses", new, old, change=True) is expected


@pytest.mark.parametrize(("texts", "subject", "predicate", "current", "gone"), [
    (["I'm 201 right now", "back down to 194"], "user", "weight", "194", "201"),
    (["我们用GitLab管代码", "上个月统一迁到GitHub了"], "用户", "uses", "GitHub", "GitLab"),
    (["我男朋友叫小杨", "跟小杨分了", "现在男朋友是阿凯"], "用户", "partner", "阿凯", "小杨"),
])
def test_a_change_said_in_passing_ends_the_old_value(texts: list[str], subject: str, predicate: str, current: str,
                                                      gone: str) -> None:
    with Memory(":memory:", embedder="none", now=AT) as mem:
        for i, text in enumerate(texts):
            at = AT + timedelta(days=i)
            mem.clock.set(at)  # type: ignore[attr-defined]
            mem.add(text, session="s", occurred_at=at)
        live = [c for c in mem.claims(limit=200).items if c.status.value == "active" and c.polarity
                and c.subject == subject and c.predicate == predicate]
    assert [c.value for c in live if current in c.value] and not [c.value for c in live if gone in c.value], live


def test_a_capitalised_key_names_an_account_or_a_credential_as_a_class() -> None:
    """"My Spotify username is…" is an attribute; "My Netflix password is…" and "my API key is…" go on as
    candidates so admission refuses them with its reason code; "My Christmas is ruined" is no attribute."""
    assert has("My Spotify username is jazzcat", "user", "spotify_username", "jazzcat")
    assert run("My Christmas is ruined") == []
    with Memory(":memory:", embedder="none", now=AT) as mem:
        for text in ("My Netflix password is hunter22", "my API key is sk-abc123def456", "My GitHub handle is octo-kat"):
            mem.add(text)
        live = {(c.predicate, c.value) for c in mem.claims(limit=50).items}
    assert live == {("github_handle", "octo-kat")}, live
