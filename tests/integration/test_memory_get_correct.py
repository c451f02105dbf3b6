"""``Memory.get`` and ``Memory.correct`` (adapters/corrections_api.py): the lookups the MCP tools call."""

from __future__ import annotations

import pytest

from hlmem import Memory
from hlmem.domain.errors import DomainRuleViolation, NotFound, ValidationError
from hlmem.domain.state import ClaimState, ClaimStatus, ObservationState

NOW = "2026-12-01T10:00:00+00:00"


@pytest.fixture
def mem():
    with Memory(":memory:", embedder="hash", now=NOW) as m:
        yield m


def test_get_returns_the_claim_or_the_event(mem: Memory) -> None:
    claim = mem.remember("user", "home_city", "Paris")
    event = mem.add("I moved to Paris last year", extract=False)
    got = mem.get(claim.id)
    assert isinstance(got, ClaimState) and got.value == "Paris" and got.status is ClaimStatus.ACTIVE
    obs = mem.get(event.id)
    assert isinstance(obs, ObservationState) and obs.text == "I moved to Paris last year"


@pytest.mark.parametrize("bad", ["cl_unknown", "ev_unknown", "xyz", ""])
def test_get_refuses_unknown_ids(mem: Memory, bad: str) -> None:
    with pytest.raises(NotFound):
        mem.get(bad)


def test_get_of_a_forgotten_event_says_forgotten_and_not_what_it_said(mem: Memory) -> None:
    event = mem.add("my secret is 42", extract=False)
    mem.forget(event.id)
    with pytest.raises(NotFound, match="was forgotten") as info:
        mem.get(event.id)
    said = str(info.value).replace(event.id, "")  # a random id may itself contain "42"
    assert "secret" not in said and "42" not in said


def test_correct_supersedes_a_single_valued_slot(mem: Memory) -> None:
    old = mem.remember("user", "home_city", "Paris")
    done = mem.correct(old.id, "Berlin")
    assert done.write.outcome == "superseded" and done.corrected == old.id and not done.retracted
    assert mem.get(old.id).status is ClaimStatus.SUPERSEDED
    assert mem.get(done.write.id).value == "Berlin"
    assert [c.value for c in mem.history("user", "home_city")] == ["Paris", "Berlin"]


def test_correct_retracts_the_old_value_of_a_multi_valued_slot(mem: Memory) -> None:
    old = mem.remember("user", "likes", "tea", cardinality="multi")
    done = mem.correct(old.id, "coffee")
    assert done.retracted
    assert mem.get(old.id).status is ClaimStatus.RETRACTED
    assert mem.get(done.write.id).status is ClaimStatus.ACTIVE


def test_correcting_a_stale_claim_names_the_current_one(mem: Memory) -> None:
    old = mem.remember("user", "home_city", "Paris")
    done = mem.correct(old.id, "Berlin")
    with pytest.raises(DomainRuleViolation, match=done.write.id):
        mem.correct(old.id, "Rome")
    assert mem.get(done.write.id).value == "Berlin"  # nothing changed


def test_correct_refuses_events_and_blank_values(mem: Memory) -> None:
    event = mem.add("hello", extract=False)
    claim = mem.remember("user", "home_city", "Paris")
    with pytest.raises(ValidationError, match="only a claim"):
        mem.correct(event.id, "x")
    with pytest.raises(ValidationError, match="new value"):
        mem.correct(claim.id, "  ")
    assert mem.get(claim.id).status is ClaimStatus.ACTIVE


def test_recall_with_a_session_keeps_that_sessions_events_and_every_claim(mem: Memory) -> None:
    a = mem.add("the deploy key rotates on Fridays", session="s1", extract=False)
    b = mem.add("the deploy key rotates on Mondays", session="s2", extract=False)
    claim = mem.remember("deploy_key", "rotation_day", "Friday")
    everything = {i.id for i in mem.recall("deploy key rotates", k=10).items}
    assert {a.id, b.id} <= everything
    only = {i.id for i in mem.recall("deploy key rotates", k=10, session="s1").items}
    assert a.id in only and b.id not in only
    assert claim.id in only or claim.id not in everything
