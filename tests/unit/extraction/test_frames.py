"""The frame rules, class by class in both languages: what they extract, for whom, and what they refuse.

Sentences here are not the benchmark's (benchmarks/extraction/dev.jsonl): the tables test the
rules, the benchmark measures them.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from hlmem.application.extraction.frames import clean_value
from hlmem.application.extraction.guard import place_like, value_ok
from hlmem.application.extraction.rules import extract
from hlmem.domain.candidates import CandidateClaim, SourceEvent
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

AT = datetime(2026, 6, 3, 10, 0, tzinfo=timezone.utc)


def run(text: str, role: str = "user") -> list[CandidateClaim]:
    event = SourceEvent(event_id="ev_1", text=text, role=role, session_id="s", origin_class="direct_user",
                        session_kind="interactive", occurred_at=AT)
    found = extract([event], DEFAULT_REGISTRY)
    for c in found:
        assert c.evidence_quote in text and c.rule, c
    return found


def has(text: str, subject: str, predicate: str, value: str, polarity: bool = True) -> bool:
    return any(c.subject == subject and c.predicate == predicate and value in c.value and c.polarity == polarity
               for c in run(text))


CASES = [
    # health / allergy
    ("health", "我对头孢过敏", "用户", "allergy", "头孢", True),
    ("health", "我对尘螨有点过敏", "用户", "allergy", "尘螨", True),
    ("health", "我患有慢性胃炎", "用户", "health_condition", "胃炎", True),
    ("health", "I'm severely allergic to wasps", "user", "allergy", "wasps", True),
    ("health", "I suffer from chronic back pain", "user", "health_condition", "back pain", True),
    ("health", "I'm asthmatic", "user", "health_condition", "asthmatic", True),
    # schedules and habits
    ("habit", "我每周四晚上去练拳击", "用户", "habit", "拳击", True),
    ("habit", "我通常六点半起床", "用户", "habit", "起床", True),
    ("habit", "I cycle to work every weekday", "user", "habit", "cycle", True),
    ("habit", "On Saturdays I volunteer at the shelter", "user", "habit", "volunteer", True),
    # possessions and pets
    ("owns", "我养了一条柯基", "用户", "owns", "柯基", True),
    ("owns", "我刚买了一台索尼电视", "用户", "owns", "索尼电视", True),
    ("owns", "I adopted a rescue greyhound", "user", "owns", "greyhound", True),
    ("owns", "We have a tortoise named Sheldon", "user", "owns", "tortoise (Sheldon)", True),
    ("owns", "I own a Vespa", "user", "owns", "Vespa", True),
    # negations
    ("negation", "我不再熬夜了", "用户", "habit", "熬夜", False),
    ("negation", "我已经不吃羊肉了", "用户", "diet", "羊肉", False),
    ("negation", "I don't drink soda anymore", "user", "diet", "soda", False),
    ("negation", "I no longer own a car", "user", "owns", "car", False),
    # third parties
    ("third", "我姑姑住在西安", "用户的姑姑", "lives_in", "西安", True),
    ("third", "我爸爸对花粉过敏", "用户的爸爸", "allergy", "花粉", True),
    ("third", "My aunt lives in Glasgow", "user's aunt", "lives_in", "Glasgow", True),
    ("third", "Priya works at Deloitte", "Priya", "employer", "Deloitte", True),
    # tools switched
    ("tools", "我从Windows换到了macOS", "用户", "uses", "macOS", True),
    ("tools", "我从Windows换到了macOS", "用户", "uses", "Windows", False),
    ("tools", "I moved from Trello to Asana", "user", "uses", "Asana", True),
    ("tools", "I moved from Trello to Asana", "user", "uses", "Trello", False),
    # diet
    ("diet", "我现在吃素", "用户", "diet", "吃素", True),
    ("diet", "I'm pescatarian these days", "user", "diet", "pescatarian", True),
    # numbers beyond age
    ("numbers", "我身高一米六八", "用户", "height", "一米六八", True),
    ("numbers", "我年薪二十万", "用户", "salary", "二十万", True),
    ("numbers", "My monthly budget is $900", "user", "budget", "900", True),
    ("numbers", "I weigh 62 kg", "user", "weight", "62", True),
    # residence, work, kinship
    ("residence", "I live in Lisbon with my partner", "user", "lives_in", "Lisbon", True),
    ("residence", "我在长沙住了三年", "用户", "lives_in", "长沙", True),
    ("work", "I left Initrode and joined Hooli", "user", "employer", "Hooli", True),
    ("work", "我表哥在京东上班", "用户的表哥", "employer", "京东", True),
    ("kinship", "我舅妈叫刘芳", "用户", "aunt", "刘芳", True),
    ("kinship", "Marta is my sister-in-law", "user", "sister_in_law", "Marta", True),
    # reported speech about the user, hedges
    ("reported", "医生说我尿酸偏高", "用户", "health_condition", "尿酸偏高", True),
    ("reported", "My doctor told me I have high blood pressure", "user", "health_condition", "blood pressure", True),
    ("hedge", "我体重大概七十公斤", "用户", "weight", "七十", True),
    ("hedge", "My rent is roughly 1,100 euros", "user", "rent", "1,100", True),
]


@pytest.mark.parametrize(("cls", "text", "subject", "predicate", "value", "polarity"), CASES,
                         ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_frame_cases(cls: str, text: str, subject: str, predicate: str, value: str, polarity: bool) -> None:
    assert has(text, subject, predicate, value, polarity), run(text)


NON_FACTS = [
    "你觉得我应该养猫还是养狗？", "如果我对青霉素过敏怎么办", "我朋友觉得杭州比上海好", "这家民宿住着挺舒服的",
    "哈哈我住在公司算了", "住在附近的人都说这家店好吃", "我妈说我小时候对牛奶过敏", "帮我订一张去成都的票",
    "Would I need a visa if I moved to Canada?", "My friend says I should get a dog", "The hotel was great to stay in",
    "I basically live at the gym lol", "Can you recommend a vegetarian place?", "Thanks, that helps a lot",
]


@pytest.mark.parametrize("text", NON_FACTS)
def test_non_facts_give_no_claim(text: str) -> None:
    assert run(text) == []


def test_the_assistants_first_person_is_not_the_user() -> None:
    assert run("我对青霉素过敏", role="assistant") == []
    assert run("I live in Porto", role="assistant") == []


def test_a_third_party_is_the_claims_subject_and_pronouns_follow_them() -> None:
    found = run("陈浩是我的同事，他住在苏州，其学历是硕士")
    assert ("用户", "colleague", "陈浩") in [(c.subject, c.predicate, c.value) for c in found]
    assert ("陈浩", "lives_in", "苏州") in [(c.subject, c.predicate, c.value) for c in found]
    assert ("陈浩", "education", "硕士") in [(c.subject, c.predicate, c.value) for c in found]


def test_a_named_relation_states_the_relation_too() -> None:
    found = {(c.subject, c.predicate, c.value) for c in run("My roommate Jonas is vegan")}
    assert found == {("Jonas", "diet", "vegan"), ("user", "roommate", "Jonas")}


def test_hedges_and_reports_are_marked() -> None:
    [c] = run("预算大概三万")
    assert (c.predicate, c.value, c.qualifiers) == ("budget", "三万", (("confidence", "hedged"),))
    [c] = run("My doctor says I have eczema")
    assert ("source", "My doctor") in c.qualifiers


def test_a_value_is_a_phrase_not_the_message() -> None:
    """Values are bounded (guard.MAX_VALUE_CHARS) and cleaned of quantifiers and particles."""
    for text in ("我对一种我也说不上名字但是每次吃完都会浑身发痒的热带水果过敏", "我的想法是我们下周再讨论这个问题吧"):
        assert all(len(c.value) <= 24 for c in run(text))
    assert clean_value("一只小猫了", "zh") == "小猫"
    assert clean_value("a brand new Kindle now", "en") == "Kindle"
    assert clean_value("New York", "en") == "New York"


@pytest.mark.parametrize(("predicate", "value", "lang", "ok"), [
    ("lives_in", "成都", "zh", True), ("lives_in", "北京朝阳区", "zh", True), ("lives_in", "附近的人都爱来", "zh", False),
    ("lives_in", "冰箱里", "zh", True), ("lives_in", "家里", "zh", False), ("lives_in", "Porto", "en", True),
    ("lives_in", "fear", "en", False), ("lives_in", "the hotel", "en", False), ("model", "3", "en", False),
    ("model", "qwen-max", "en", True), ("boss", "张伟", "zh", True), ("boss", "一个很严格的人", "zh", False),
    ("age", "七", "zh", True), ("age", "old", "en", False), ("job_title", "护士", "zh", True),
    ("job_title", "好人", "zh", False), ("uses", "深色模式", "zh", False), ("uses", "Python 3.12", "en", False),
    ("habit", "平时拍照用挺不错", "zh", False), ("email", "someone.long.name+tag@example-company.com", "en", True),
    ("设计", "简洁又时尚", "zh", False),
])
def test_the_precision_guard(predicate: str, value: str, lang: str, ok: bool) -> None:
    assert value_ok(predicate, value, lang) is ok


def test_a_tagger_can_veto_a_place_and_is_cached() -> None:
    calls: list[str] = []

    def tagger(text: str) -> list[tuple[str, str]]:
        calls.append(text)
        return [(text, "ns")] if text == "成都" else [(text, "n")]

    assert place_like("成都", "zh", tagger) and place_like("成都", "zh", tagger)
    assert not place_like("冰箱里", "zh", tagger) and place_like("冰箱里", "zh")  # lexically fine, tagged not a place
    assert place_like("朝阳区", "zh", lambda t: [(t, "n")])  # a place suffix is enough
    assert calls == ["成都", "冰箱里"]  # one tagger call per distinct value


def test_jiebas_tagger_reads_places_and_descriptions() -> None:
    from hlmem.adapters.text.pos import jieba_tagger

    tagger = jieba_tagger()
    assert place_like("成都", "zh", tagger) and place_like("北京朝阳区", "zh", tagger)
    assert not place_like("冰箱里", "zh", tagger)
