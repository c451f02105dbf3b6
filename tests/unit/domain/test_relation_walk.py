"""Walking accepted edges (domain/relation_walk.py, ADR 0085): directions, statuses, which relative."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from hlmem.domain.relation_walk import Reached, mentions, prefer, step
from hlmem.domain.relations import ACCEPTED, FORGOTTEN, PROPOSED, REJECTED, RETIRED, RelationState

T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)
USER = Reached("en_user", "user", "user", ())


def edge(source: str, relation: str, target: str, *, status: str = ACCEPTED, day: int = 0,
         evidence: tuple[str, ...] = ("ev_1",)) -> RelationState:
    at = T0 + timedelta(days=day)
    return RelationState(relation_id=f"rl_{source}_{relation}_{target}", namespace="default", relation=relation,
                         source_id=f"en_{source}", source_kind="user" if source == "user" else "person",
                         source_name=source, target_id=f"en_{target}", target_kind="person", target_name=target,
                         evidence=evidence, rules=("test",), status=status, valid_from=at, proposed_at=at, version=2)


def names(found: list[Reached]) -> list[str]:
    return [r.name for r in found]


def test_a_hop_follows_the_type_from_the_source_newest_edge_first() -> None:
    edges = [edge("user", "sibling", "Anna"), edge("user", "sibling", "Sam", day=3), edge("user", "friend", "Cleo")]
    found = step(edges, [USER], "sibling")
    assert names(found) == ["Sam", "Anna"]
    assert found[1].path == (edges[0],) and found[1].entity_id == "en_Anna"


@pytest.mark.parametrize("status", [PROPOSED, REJECTED, RETIRED, FORGOTTEN])
def test_only_accepted_edges_are_walked(status) -> None:
    assert step([edge("user", "sibling", "Anna", status=status)], [USER], "sibling") == []


def test_symmetric_and_inverse_edges_are_walked_backwards() -> None:
    edges = [edge("Anna", "sibling", "user"), edge("Sarah", "subordinate", "user"), edge("Mia", "child", "user"),
             edge("Bob", "manager", "user")]
    assert names(step(edges, [USER], "sibling")) == ["Anna"]
    assert names(step(edges, [USER], "manager")) == ["Sarah"]  # Sarah —subordinate→ user: Sarah is the user's boss
    assert names(step(edges, [USER], "mother")) == ["Mia"]  # the user is Mia's child
    assert names(step(edges, [USER], "subordinate")) == ["Bob"]  # the user is Bob's manager
    assert step([edge("Raj", "manager", "user")], [USER], "manager") == []  # the user manages Raj: not "my manager"


def test_compatible_types_and_two_hops_never_return_to_the_start() -> None:
    edges = [edge("user", "parent", "Mum"), edge("user", "partner", "Lee")]
    assert names(step(edges, [USER], "mother")) == ["Mum"] and names(step(edges, [USER], "spouse")) == ["Lee"]
    first = step([edge("user", "manager", "Priya")], [USER], "manager")
    second = step([edge("user", "manager", "Priya"), edge("Priya", "spouse", "Raj"), edge("Priya", "spouse", "user")],
                  first, "spouse")
    assert names(second) == ["Raj"] and [e.relation for e in second[0].path] == ["manager", "spouse"]


def test_prefer_keeps_the_relative_the_evidence_names() -> None:
    anna, sam = step([edge("user", "sibling", "Anna"), edge("user", "sibling", "Sam", day=1)], [USER], "sibling")[::-1]
    texts = {anna.path[-1].relation_id: ["My sister Anna is visiting."],
             sam.path[-1].relation_id: ["My brother Sam and my sister's dog", "Sam"]}
    assert names(prefer([anna, sam], "sister", texts)) == ["Anna"]
    assert names(prefer([anna, sam], "bro", texts)) == ["Sam"]
    assert names(prefer([anna, sam], "sibling", texts)) == ["Anna", "Sam"]  # the word says no more than the type
    assert names(prefer([anna, sam], "sister", {})) == ["Anna", "Sam"]  # no evidence names either: both


def test_mentions_reads_chinese_cousins_apart() -> None:
    assert mentions("我表哥张伟", "表哥") and not mentions("我表哥张伟", "哥哥") and mentions("我哥李明", "哥哥")
    assert mentions("my older sis Anna", "sister") and not mentions("sisterhood", "sister")
