"""Relations the LLM names are checked against the text before they are proposed (ADR 0093)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from hlmem.domain.candidates import SourceEvent
from hlmem.domain.relation_decisions import RelationCandidate
from hlmem.domain.relation_mentions import RelationMention, check_mention
from hlmem.domain.relations import ORGANISATION, PERSON, PET, PLACE, USER_ENTITY, Entity

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)


def event(text: str, *, role: str = "user", origin: str = "direct_user") -> SourceEvent:
    return SourceEvent(event_id="ev_1", text=text, role=role, session_id="s", origin_class=origin,
                       session_kind="chat", occurred_at=T0)


def mention(source: str, relation: str, target: str, kind: str, quote: str) -> RelationMention:
    return RelationMention(event_id="ev_1", source=source, relation=relation, target=target, target_kind=kind,
                           quote=quote, extractor="llm:local:m")


def test_the_users_sister_by_name_is_a_candidate_resting_on_the_event() -> None:
    got = check_mention(mention("user", "sibling", "Anna", PERSON, "my sister Anna"),
                        event("Yesterday my sister Anna moved to Berlin."))
    assert got == RelationCandidate("sibling", USER_ENTITY, Entity(PERSON, "Anna"), ("ev_1",), "llm:local:m", T0)


@pytest.mark.parametrize("source", ["user", "我", "User"])
def test_every_name_of_the_user_is_the_user(source: str) -> None:
    got = check_mention(mention(source, "works_at", "字节跳动", ORGANISATION, "我在字节跳动上班"),
                        event("我在字节跳动上班，做产品"))
    assert isinstance(got, RelationCandidate) and got.source == USER_ENTITY
    assert got.target == Entity(ORGANISATION, "字节跳动")


def test_a_named_speakers_my_is_theirs() -> None:
    got = check_mention(mention("user", "owns", "Miso", PET, "our cat Miso"),
                        event("Caroline: our cat Miso is sick", role="Caroline", origin="unknown"))
    assert isinstance(got, RelationCandidate)
    assert got.source == Entity(PERSON, "Caroline") and got.target == Entity(PET, "Miso")


def test_the_users_relative_without_a_name_needs_no_name_in_the_text() -> None:
    got = check_mention(mention("用户的表哥", "lives_in", "杭州", PLACE, "我表哥现在住杭州"), event("我表哥现在住杭州"))
    assert isinstance(got, RelationCandidate) and got.source == Entity(PERSON, "用户的表哥")


@pytest.mark.parametrize(("m", "text", "reason"), [
    (mention("user", "sibling", "Anna", PERSON, "my sister Anna"), "My sister moved to Berlin.",
     "relation.quote_not_found"),
    (mention("user", "sibling", "Anna", PERSON, "My sister"), "My sister moved to Berlin.",
     "relation.name_not_in_text"),
    (mention("Tom", "manager", "Sarah", PERSON, "Sarah"), "Sarah is great", "relation.name_not_in_text"),
    (mention("user", "works_at", "Berlin", PLACE, "work in Berlin"), "I work in Berlin", "relation.kind_mismatch"),
    (mention("user", "sibling", "Acme", ORGANISATION, "Acme"), "Acme hired me", "relation.kind_mismatch"),
    (mention("Anna", "friend", "anna", PERSON, "Anna"), "Anna and anna", "relation.self"),
])
def test_what_the_text_does_not_bear_out_is_refused(m: RelationMention, text: str, reason: str) -> None:
    got = check_mention(m, event(text))
    assert isinstance(got, tuple) and reason in got


@pytest.mark.parametrize(("role", "origin"), [("assistant", "unknown"), ("user", "external"), ("tool", "agent"), ("user", "system")])
def test_only_what_a_person_said_directly(role: str, origin: str) -> None:
    got = check_mention(mention("user", "sibling", "Anna", PERSON, "my sister Anna"),
                        event("my sister Anna", role=role, origin=origin))
    assert got == ("relation.provenance",) or "relation.provenance" in got


def test_the_reason_codes_doc_lists_exactly_these() -> None:
    import re
    from pathlib import Path

    from hlmem.domain.relation_mentions import REASON_CODES

    doc = (Path(__file__).resolve().parents[3] / "docs" / "reason-codes.md").read_text(encoding="utf-8")
    start = doc.index("## Relations the LLM named")
    section = doc[start:doc.find("\n## ", start)]
    assert set(re.findall(r"^\| `([a-z_.]+)` \|", section, re.MULTILINE)) == set(REASON_CODES)
