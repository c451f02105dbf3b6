"""Relations, purely (ADR 0081): ids, the reducer, proposals, review, the lifecycle that follows
evidence, redaction; tables of cases and a Hypothesis property (any order of decisions folds to a
state every store must equal, and never raises)."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest
from attrs import evolve
from hypothesis import given
from hypothesis import strategies as st

from hlmem.domain.errors import DomainRuleViolation, NotFound
from hlmem.domain.events import ClaimExpired, ClaimRetracted, ClaimSuperseded, ItemForgotten
from hlmem.domain.redaction import is_redacted, redact
from hlmem.domain.relation_decisions import (
    RelationCandidate,
    Trigger,
    decide_lifecycle,
    decide_proposals,
    decide_review,
    relation_triggers,
)
from hlmem.domain.relation_events import RelationCorroborated, RelationProposed, RelationRetired
from hlmem.domain.relations import (
    PERSON,
    PET,
    USER,
    USER_ENTITY,
    Entity,
    entity_id,
    matches_entity,
    project_relations,
    reduce_relation,
    relation_id,
)

T0 = datetime(2026, 3, 1, 9, tzinfo=UTC)
KEY = b"s" * 32


def ids():
    n = itertools.count(1)
    return lambda prefix: f"{prefix}_{next(n):04d}"


def cand(name="Anna", relation="sibling", evidence=("cl_1",), rule="claim.sibling") -> RelationCandidate:
    return RelationCandidate(relation, USER_ENTITY, Entity(PERSON, name), evidence, rule, T0)


def propose(*candidates, existing=None, new_id=None, forgotten=()):
    return decide_proposals(candidates, existing or {}, forgotten=forgotten, namespace="default", key=KEY,
                            new_id=new_id or ids(), recorded_at=T0)


def test_ids_are_keyed_stable_and_fold_case_and_width() -> None:
    assert entity_id(PERSON, "Anna", KEY) == entity_id(PERSON, " anna ", KEY) == entity_id(PERSON, "ＡＮＮＡ", KEY)
    assert entity_id(PERSON, "Anna", KEY) != entity_id(PET, "Anna", KEY)  # kind is part of an entity
    assert entity_id(PERSON, "Anna", KEY) != entity_id(PERSON, "Anna", b"t" * 32)  # keyed: names do not leak
    assert entity_id(USER, "user", KEY) == entity_id(USER, "我", KEY)  # every name of the user is one entity
    a, b = entity_id(USER, "user", KEY), entity_id(PERSON, "Anna", KEY)
    assert relation_id("default", a, "sibling", b, KEY) != relation_id("work", a, "sibling", b, KEY)
    assert relation_id("default", a, "sibling", b, KEY) != relation_id("default", b, "sibling", a, KEY)
    assert relation_id("default", a, "sibling", b, KEY).startswith("rl_") and "Anna" not in b
    with pytest.raises(ValueError):
        entity_id(PERSON, "Anna", b"")


def test_two_proposals_of_one_edge_are_one_stream_with_their_evidence_merged() -> None:
    first, = propose(cand(evidence=("ev_1",), rule="text.apposition"), cand(name="anna", evidence=("cl_1",)))
    assert isinstance(first, RelationProposed) and first.evidence == ("ev_1", "cl_1")
    assert first.rule == "text.apposition,claim.sibling" and first.version == 1
    state = reduce_relation(None, first)
    again = propose(cand(evidence=("cl_1", "cl_2")), existing={first.stream_id: state})
    assert [type(e) for e in again] == [RelationCorroborated] and again[0].evidence == ("cl_2",)
    assert propose(cand(evidence=("cl_1",)), existing={first.stream_id: state}) == ()  # nothing new


@pytest.mark.parametrize(("status", "expected"), [
    ("proposed", RelationCorroborated), ("accepted", RelationCorroborated), ("retired", RelationProposed),
    ("rejected", None), ("forgotten", None)])
def test_what_a_new_finding_does_to_an_edge_in_each_status(status, expected) -> None:
    state = evolve(reduce_relation(None, propose(cand())[0]), status=status)
    found = propose(cand(evidence=("cl_9",)), existing={state.relation_id: state})
    assert [type(e) for e in found] == ([expected] if expected else [])
    if expected is RelationProposed:  # a retired edge found again waits for review again
        assert reduce_relation(state, found[0]).status == "proposed" and found[0].version == state.version + 1


def test_an_edge_whose_stream_only_the_ledger_knows_is_never_proposed_again() -> None:
    """A restore to a backup older than the edge leaves its tombstone and no stream: found again,
    it stays forgotten, as an edge whose forgotten state is in the log does."""
    rid = propose(cand())[0].stream_id
    assert propose(cand(evidence=("cl_9",)), forgotten={rid}) == ()
    other, = propose(cand(name="Bo"), forgotten={rid})  # only the forgotten edge is held back
    assert other.stream_id != rid


def test_review_accepts_and_rejects_and_refuses_what_it_must() -> None:
    state = reduce_relation(None, propose(cand())[0])
    rid = state.relation_id
    accepted, = decide_review(state, rid, accept=True, actor="me", reason="yes", live=True, new_id=ids(), recorded_at=T0)
    after = reduce_relation(state, accepted)
    assert (after.status, after.reviewed_by, after.review_reason, after.reviewed_at) == ("accepted", "me", "yes", T0)
    assert decide_review(after, rid, accept=True, actor="me", reason="", live=True, new_id=ids(), recorded_at=T0) == ()
    rejected, = decide_review(after, rid, accept=False, actor="me", reason="no", live=False, new_id=ids(),
                              recorded_at=T0)
    assert reduce_relation(after, rejected).status == "rejected"  # rejecting needs no live evidence
    with pytest.raises(DomainRuleViolation, match="no live evidence"):
        decide_review(state, rid, accept=True, actor="me", reason="", live=False, new_id=ids(), recorded_at=T0)
    for status in ("retired", "forgotten"):
        with pytest.raises(DomainRuleViolation, match=status):
            decide_review(evolve(state, status=status), rid, accept=False, actor="me", reason="", live=True,
                          new_id=ids(), recorded_at=T0)
    with pytest.raises(NotFound):
        decide_review(None, "rl_x", accept=True, actor="me", reason="", live=True, new_id=ids(), recorded_at=T0)


def test_triggers_name_each_change_and_a_forget_outweighs_the_rest() -> None:
    later = T0 + timedelta(days=2)
    env = dict(version=2, recorded_at=later, namespace="default")
    events = [ClaimSuperseded(event_id="lg_1", stream_id="cl_1", superseded_by="cl_9", valid_to=T0, **env),
              ClaimRetracted(event_id="lg_2", stream_id="cl_2", **env),
              ClaimExpired(event_id="lg_3", stream_id="cl_3", valid_to=T0 + timedelta(days=1), **env),
              ItemForgotten(event_id="lg_4", stream_id="ev_4", **env),
              ClaimRetracted(event_id="lg_5", stream_id="cl_4", **env),
              ItemForgotten(event_id="lg_6", stream_id="cl_4", version=3, recorded_at=later, namespace="default"),
              ItemForgotten(event_id="lg_7", stream_id="dv_1", **env)]
    assert relation_triggers(events) == {
        "cl_1": Trigger("superseded", T0), "cl_2": Trigger("retracted", later),
        "cl_3": Trigger("expired", T0 + timedelta(days=1)), "ev_4": Trigger("forgotten"), "cl_4": Trigger("forgotten")}


def test_lifecycle_retires_open_edges_and_forgets_any_edge_whose_evidence_was_forgotten() -> None:
    new_id = ids()
    states = {}
    for name, status, evidence in (("A", "accepted", ("cl_1", "ev_1")), ("B", "proposed", ("cl_2",)),
                                   ("C", "rejected", ("cl_1",)), ("D", "retired", ("ev_1",)),
                                   ("E", "accepted", ("cl_3",)), ("F", "forgotten", ("cl_1",))):
        s = evolve(reduce_relation(None, propose(cand(name=name, evidence=evidence))[0]), status=status)
        states[s.relation_id] = s
    by_name = {s.target_name: s.relation_id for s in states.values()}
    decision = decide_lifecycle({"cl_1": Trigger("superseded", T0), "cl_2": Trigger("retracted", T0),
                                 "ev_1": Trigger("forgotten")}, states, new_id=new_id, recorded_at=T0,
                                cascade_of="fg_1")
    kinds = {e.stream_id: type(e).__name__ for e in decision.events}
    assert kinds == {by_name["A"]: "ItemForgotten", by_name["B"]: "RelationRetired", by_name["D"]: "ItemForgotten"}
    assert sorted(decision.erase) == sorted([by_name["A"], by_name["D"]])  # C: rejected stays; E, F: untouched
    retired = next(e for e in decision.events if isinstance(e, RelationRetired))
    assert (retired.reason, retired.valid_to, retired.triggers) == ("retracted", T0, ("cl_2",))
    assert all(e.cascade_of == "fg_1" for e in decision.events if isinstance(e, ItemForgotten))


def test_a_forgotten_edge_is_blank_and_its_events_redact_to_structure() -> None:
    proposed, = propose(cand(name="张伟", evidence=("cl_1", "ev_1")))
    state = reduce_relation(None, proposed)
    gone = reduce_relation(state, ItemForgotten(event_id="lg_9", stream_id=state.relation_id, version=2,
                                                recorded_at=T0, namespace="default"))
    assert (gone.status, gone.source_name, gone.target_name, gone.evidence, gone.rules) == ("forgotten", "", "", (),
                                                                                            ())
    blank = redact(proposed)
    assert "张伟" not in repr(blank) and blank.target_id == proposed.target_id and is_redacted(blank)
    assert project_relations([blank, ItemForgotten(event_id="lg_9", stream_id=state.relation_id, version=2,
                                                   recorded_at=T0, namespace="default")])[state.relation_id] == gone


def test_matches_entity_by_id_name_or_the_users_names() -> None:
    state = reduce_relation(None, propose(cand(name="Anna"))[0])
    assert matches_entity(state, "anna") and matches_entity(state, state.target_id)
    assert matches_entity(state, "用户") and matches_entity(state, "me") and not matches_entity(state, "Bob")


_events = st.lists(st.sampled_from(("propose", "corroborate", "accept", "reject", "retire", "forget")), max_size=12)


@given(_events)
def test_any_sequence_of_decisions_folds_without_raising_and_replays_equal(steps) -> None:
    """Whatever the order, the fold never raises, the state's version is the stream's, a forgotten
    edge stays blank, and folding the log again gives the same state (what replay relies on)."""
    new_id, log, state = ids(), [], None
    for step in steps:
        events: tuple = ()
        if step == "propose" or state is None:
            events = propose(cand(evidence=(new_id("cl"),)), existing={state.relation_id: state} if state else {},
                             new_id=new_id)
        elif step in ("accept", "reject"):
            try:
                events = decide_review(state, state.relation_id, accept=step == "accept", actor="p", reason="",
                                       live=True, new_id=new_id, recorded_at=T0)
            except DomainRuleViolation:
                assert state.status in ("retired", "forgotten")
        elif step in ("retire", "forget"):
            trigger = Trigger("forgotten") if step == "forget" else Trigger("superseded", T0)
            events = decide_lifecycle({state.evidence[0] if state.evidence else "cl_x": trigger},
                                      {state.relation_id: state}, new_id=new_id, recorded_at=T0).events
        for event in events:
            state = reduce_relation(state, event)
            log.append(event)
    if state is not None:
        assert state.version == len(log)
        assert project_relations(log)[state.relation_id] == state
        if any(isinstance(e, ItemForgotten) for e in log):
            assert state.status == "forgotten" and not state.target_name
