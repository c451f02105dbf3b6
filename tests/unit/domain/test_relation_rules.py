"""Candidate relations by deterministic rules (ADR 0081): from claims, and from apposition in what
the user said, in English and Chinese; and what the rules leave alone."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from attrs import evolve

from hlmem.domain.events import Cardinality, Scope
from hlmem.domain.relation_rules import claim_candidates, kin_type, speaker_entity, subject_entity, text_candidates
from hlmem.domain.relations import ORGANISATION, PERSON, PET, PLACE, THING, USER, USER_ENTITY, Entity
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY
from hlmem.domain.state import ClaimState, ClaimStatus, ClaimVersion

T0 = datetime(2026, 3, 1, 9, tzinfo=UTC)


def claim(subject: str, predicate: str, value: str, **changes) -> ClaimState:
    c = ClaimState(claim_id="cl_1", namespace="default", subject=subject, predicate=predicate, value=value,
                   qualifiers=(), coordinates=(), polarity=True, importance=0.5, scope=Scope.PERMANENT,
                   cardinality=Cardinality.MULTI, source="rules", recorded_at=T0, version=1, evidence=("ev_1",),
                   versions=(ClaimVersion(T0, None, T0),))
    return evolve(c, **changes)


def edges(found) -> list[tuple]:
    return [(c.source.kind, c.source.name, c.relation, c.target.kind, c.target.name) for c in found]


@pytest.mark.parametrize(("subject", "predicate", "value", "expected"), [
    ("user", "sibling", "Anna", [(USER, "user", "sibling", PERSON, "Anna")]),
    ("用户", "cousin", "张伟", [(USER, "user", "cousin", PERSON, "张伟")]),
    ("Tom", "boss", "Sarah", [(PERSON, "Tom", "manager", PERSON, "Sarah")]),
    ("user", "manager", "Sarah", [(USER, "user", "manager", PERSON, "Sarah")]),
    ("Tom", "employer", "Acme", [(PERSON, "Tom", "works_at", ORGANISATION, "Acme")]),
    ("Tom", "works at", "Acme", [(PERSON, "Tom", "works_at", ORGANISATION, "Acme")]),  # an alias
    ("user", "lives_in", "上海", [(USER, "user", "lives_in", PLACE, "上海")]),
    ("user", "hometown", "成都", [(USER, "user", "hometown", PLACE, "成都")]),
    ("user", "owns", "cat (Miso)", [(USER, "user", "owns", PET, "Miso")]),
    ("用户", "owns", "猫（咪咪）", [(USER, "user", "owns", PET, "咪咪")]),
    ("user", "owns", "a red bike", [(USER, "user", "owns", THING, "a red bike")]),
    ("用户的表哥", "lives_in", "杭州", [(USER, "user", "cousin", PERSON, "用户的表哥"),
                                   (PERSON, "用户的表哥", "lives_in", PLACE, "杭州")]),
    ("user's brother", "employer", "Google", [(USER, "user", "sibling", PERSON, "user's brother"),
                                             (PERSON, "user's brother", "works_at", ORGANISATION, "Google")]),
    ("user", "likes", "tea", []),
    ("user", "friend", "a guy from work, I think", []),  # not a name
    ("user", "friend", "user", []),  # an edge needs two ends
    ("Tom", "boss", "me", [(PERSON, "Tom", "manager", USER, "user")]),
])
def test_claims_become_edges(subject, predicate, value, expected) -> None:
    found = claim_candidates(claim(subject, predicate, value), DEFAULT_REGISTRY)
    assert edges(found) == expected
    assert all(c.evidence == ("cl_1", "ev_1") and c.valid_from == T0 for c in found)


@pytest.mark.parametrize("change", [
    {"status": ClaimStatus.SUPERSEDED}, {"status": ClaimStatus.RETRACTED}, {"status": ClaimStatus.FORGOTTEN},
    {"polarity": False}, {"versions": (ClaimVersion(T0, T0, T0),)}])
def test_only_a_current_positive_claim_carries_an_edge(change) -> None:
    assert claim_candidates(claim("user", "sibling", "Anna", **change), DEFAULT_REGISTRY) == []


@pytest.mark.parametrize(("text", "expected"), [
    ("My coworker Tom works at Acme.", [("colleague", PERSON, "Tom")]),
    ("my best friend, Sarah Lee, came over", [("friend", PERSON, "Sarah Lee")]),
    ("Our cat Miso loves tuna.", [("owns", PET, "Miso")]),
    ("I walked my dog named Rex", [("owns", PET, "Rex")]),
    ("我表哥张伟在阿里巴巴工作。", [("cousin", PERSON, "张伟")]),
    ("我的同事李雷住在上海", [("colleague", PERSON, "李雷")]),
    ("我同事王小明今天请假", [("colleague", PERSON, "王小明")]),
    ("我和我哥李明去了北京", [("sibling", PERSON, "李明")]),
    ("我家的猫叫咪咪。", [("owns", PET, "咪咪")]),
    ("我妈妈叫王丽。", [("mother", PERSON, "王丽")]),
    ("I told my boss I quit.", []),
    ("我表哥住在杭州", []),  # no name: the extractor's "用户的表哥" subject covers it
    ("my friend and I went out", []),
    ("his sister Anna is here", []),  # not the user's
])
def test_apposition_in_what_the_user_said(text, expected) -> None:
    found = text_candidates("ev_7", text, T0)
    assert [(c.relation, c.target.kind, c.target.name) for c in found] == expected
    assert all(c.source.kind == USER and c.evidence == ("ev_7",) and c.rule == "text.apposition" for c in found)


def test_kin_words_and_subjects() -> None:
    assert (kin_type("表哥"), kin_type("Brother"), kin_type("co-worker"), kin_type("蛋糕")) == (
        "cousin", "sibling", "colleague", None)
    assert subject_entity("我")[0].kind == USER and subject_entity("用户的妈妈") == (subject_entity("用户的妈妈")[0],
                                                                                    "mother")
    assert subject_entity("Tom")[1] is None


@pytest.mark.parametrize(("text", "expected"), [
    ("Priya's husband Raj is a dentist.", [("Priya", "spouse", "Raj")]),
    ("Tom’s manager, Sarah Lee, quit", [("Tom", "manager", "Sarah Lee")]),
    ("my boss's husband Raj fixed my tooth", [("user", "manager", "user's boss"), ("user's boss", "spouse", "Raj")]),
    ("My older sis Anna moved to Denver", [("user", "sibling", "Anna")]),
    ("我老婆的哥哥李强在华为上班。", [("user", "spouse", "用户的老婆"), ("用户的老婆", "sibling", "李强")]),
    ("昨天张伟的老婆小雨来了", [("张伟", "spouse", "小雨")]),
    ("我表哥张伟的老婆叫小雨", [("user", "cousin", "张伟"), ("张伟", "spouse", "小雨")]),
    ("我妹妹小雨考上了浙大", [("user", "sibling", "小雨")]),
    ("我表哥张伟下个月来上海出差", [("user", "cousin", "张伟")]),
    ("我邻居王阿姨养了一只柯基", [("user", "neighbor", "王阿姨")]),
    ("我妹妹小时候很乖", []),
    ("老公叫陈浩，在字节做后端开发。", [("user", "spouse", "陈浩")]),
    ("今天好累。女儿叫小雨，今年五岁", [("user", "child", "小雨")]),
    ("我老公叫陈浩", [("user", "spouse", "陈浩")]),
    ("老师叫我们去开会", []),
    ("It's Tom's turn to cook", []),
    # no name: the relative is named as the extractor names one (its claims read this one badly)
    ("我老婆的哥哥在华为上班。", [("user", "spouse", "用户的老婆"), ("用户的老婆", "sibling", "用户的老婆的哥哥")]),
])
def test_apposition_of_a_named_persons_and_a_kins_tie(text, expected) -> None:
    found = text_candidates("ev_7", text, T0)
    assert [(c.source.name, c.relation, c.target.name) for c in found] == expected


def test_my_is_the_speakers_in_a_conversation_between_people() -> None:
    assert speaker_entity("user") == USER_ENTITY and speaker_entity("我") == USER_ENTITY
    assert speaker_entity("Caroline") == Entity(PERSON, "Caroline") and speaker_entity("张伟") == Entity(PERSON, "张伟")
    assert [speaker_entity(r) for r in ("assistant", "tool", "system", "", "bot 7", "lowercase")] == [None] * 6
    found = text_candidates("ev_7", "Caroline: my boss's husband Raj and my sister Anna", T0, Entity(PERSON, "Caroline"))
    assert [(c.source.name, c.relation, c.target.name) for c in found] == [
        ("Caroline", "sibling", "Anna"), ("Caroline", "manager", "Caroline's boss"),
        ("Caroline's boss", "spouse", "Raj")]
