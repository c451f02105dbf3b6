"""The forget cascade as tables: targets, mentions, fingerprints, plans and the events they make."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from types import MappingProxyType

import pytest

from hlmem.domain.errors import ValidationError
from hlmem.domain.events import (
    Cardinality,
    EvidenceForgotten,
    ForgetRequested,
    ItemForgotten,
    OriginClass,
    Scope,
    SessionKind,
)
from hlmem.domain.forgetting import (
    ForgetPlan,
    ForgetTarget,
    Gathered,
    claim_fingerprint,
    forget_events,
    fragment_forms,
    holds_any,
    is_self,
    mentions,
    observation_fingerprint,
    plan_forget,
    stream_fingerprints,
    subject_fingerprint,
    target_for_id,
    tombstones_for,
    validate_target,
)
from hlmem.domain.redaction import CLAIM, OBSERVATION, SUBJECT
from hlmem.domain.state import ClaimState, ClaimStatus, ClaimVersion, ConflictState, ObservationState

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
SALT = b"s" * 32


def obs(eid: str, text: str = "text", *, forgotten: bool = False, version: int = 1) -> ObservationState:
    return ObservationState(event_id=eid, namespace="default", text="" if forgotten else text, role="user",
                            session_id="s", origin_class=OriginClass.DIRECT_USER, session_kind=SessionKind.INTERACTIVE,
                            occurred_at=T0, recorded_at=T0, version=version, forgotten=forgotten)


def claim(cid: str, evidence: tuple[str, ...] = (), *, subject: str = "user", value: str = "v",
          status: ClaimStatus = ClaimStatus.ACTIVE, version: int = 1) -> ClaimState:
    return ClaimState(claim_id=cid, namespace="default", subject=subject, predicate="lives_in", value=value,
                      qualifiers=(), coordinates=(), polarity=True, importance=0.5, scope=Scope.PERMANENT,
                      cardinality=Cardinality.SINGLE,
                      source="explicit", recorded_at=T0, version=version, evidence=evidence,
                      versions=(ClaimVersion(T0, None, T0),), status=status)


def conflict(cf: str, *, evidence: tuple[str, ...] = (), existing: tuple[str, ...] = (), subject: str = "user",
             status: str = "open") -> ConflictState:
    cand = MappingProxyType({"subject": subject, "predicate": "lives_in", "value": "x", "qualifiers": (),
                             "coordinates": (), "polarity": True, "evidence": evidence}) if status != "forgotten" \
        else MappingProxyType({})
    return ConflictState(conflict_id=cf, namespace="default", slot_key="k", existing=existing, candidate=cand,
                         reason="r", opened_at=T0, status=status)


# --- targets -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("item_id", "kind"), [("cl_1", "claim"), ("ev_1", "event"), ("  ev_2 ", "event")])
def test_an_id_names_its_target_kind(item_id: str, kind: str) -> None:
    assert target_for_id(item_id).kind == kind
    assert target_for_id(item_id).value == item_id.strip()


@pytest.mark.parametrize("item_id", ["", "cf_1", "fg_1", "hello", "ex_1"])
def test_other_ids_are_refused(item_id: str) -> None:
    with pytest.raises(ValidationError):
        target_for_id(item_id)


@pytest.mark.parametrize("target", [
    ForgetTarget("subject", "   "), ForgetTarget("person", "x"), ForgetTarget("subject", "x" * 300),
    ForgetTarget("session", "s", "bad namespace!"),
])
def test_bad_targets_are_refused(target: ForgetTarget) -> None:
    with pytest.raises((ValidationError, ExceptionGroup)):
        validate_target(target)


def test_a_valid_target_is_stripped() -> None:
    assert validate_target(ForgetTarget("subject", "  张伟 ")) == ForgetTarget("subject", "张伟")


@pytest.mark.parametrize(("name", "self_"), [("我", True), ("user", True), ("用户", True), ("Me", True),
                                             ("张伟", False), ("Alice", False)])
def test_the_users_own_names_are_one_subject(name: str, self_: bool) -> None:
    assert is_self(name) is self_


# --- mentions ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "name", "found"), [
    ("我和张伟吃饭", "张伟", True),
    ("张伟是医生", "张伟", True),
    ("张三是医生", "张伟", False),
    ("Alice's plan", "alice", True),
    ("ALICE went home", "Alice", True),
    ("Alicent went home", "Alice", False),
    ("MalAlice", "Alice", False),
    ("meet Bob Smith today", "bob smith", True),
    ("meet Bob  Smith today", "Bob Smith", True),  # whitespace collapsed
    ("ＡＬＩＣＥ", "alice", True),  # NFKC
    ("anything", "", False),
    ("violet-secret-bunker-42 is it", "violet-secret-bunker-42", True),
    ("my pin is 4242", "42", False),
])
def test_mentions(text: str, name: str, found: bool) -> None:
    assert mentions(text, name) is found


def test_fragment_forms_cover_json_escapes_and_skip_single_characters() -> None:
    forms = fragment_forms(["紫罗兰", "x", 'a"b'])
    assert "紫罗兰" in forms and "\\u7d2b\\u7f57\\u5170" in forms and 'a\\"b' in forms and "x" not in forms
    assert holds_any('{"v": "\\u7d2b\\u7f57\\u5170"}', forms)
    assert not holds_any(None, forms) and not holds_any("nothing", forms)


# --- fingerprints --------------------------------------------------------------------------------


def test_claim_fingerprints_see_one_subject_and_canonical_predicates() -> None:
    a = claim_fingerprint("我", "lives in", "Berlin", SALT)
    assert a == claim_fingerprint("user", "lives_in", "berlin", SALT)
    assert a != claim_fingerprint("user", "lives_in", "Paris", SALT)
    assert a != claim_fingerprint("user", "lives_in", "Berlin", b"t" * 32)
    assert claim_fingerprint("", "", "", SALT) == ""


def test_observation_and_subject_fingerprints() -> None:
    assert observation_fingerprint("Hello  World", SALT) == observation_fingerprint("hello world", SALT)
    assert observation_fingerprint("", SALT) == ""
    assert subject_fingerprint("我", SALT) == subject_fingerprint("user", SALT)
    assert subject_fingerprint("张伟", SALT) != observation_fingerprint("张伟", SALT)  # kinds never collide


# --- plans ---------------------------------------------------------------------------------------


def test_forgetting_an_event_cascades_to_claims_evidence_conflicts_and_records() -> None:
    g = Gathered(
        events={"ev_a": obs("ev_a")},
        claims={"cl_only": claim("cl_only", ("ev_a",)), "cl_both": claim("cl_both", ("ev_a", "ev_b")),
                "cl_other": claim("cl_other", ("ev_b",))},
        conflicts={"cf_from_a": conflict("cf_from_a", evidence=("ev_a", "ev_c")),
                   "cf_about_only": conflict("cf_about_only", existing=("cl_only",)),
                   "cf_mixed": conflict("cf_mixed", existing=("cl_only", "cl_other")),
                   "cf_unrelated": conflict("cf_unrelated", evidence=("ev_c",), existing=("cl_other",))},
        extractions=frozenset({"ex_1"}),
    )
    plan = plan_forget(g)
    assert plan == ForgetPlan(events=("ev_a",), claims=("cl_only",), unlinks=(("cl_both", ("ev_a",)),),
                              conflicts=("cf_about_only", "cf_from_a"), extractions=("ex_1",))
    assert plan.counts == {"events": 1, "claims": 1, "evidence_links": 1, "conflicts": 2, "extraction_records": 1}
    assert plan.streams == ("ev_a", "cl_only", "cf_about_only", "cf_from_a")


@pytest.mark.parametrize(("evidence", "forgotten", "expect"), [
    (("ev_a",), ("ev_a",), "forgotten"),
    (("ev_a", "ev_b"), ("ev_a", "ev_b"), "forgotten"),
    (("ev_a", "ev_b"), ("ev_a",), "unlinked"),
    (("ev_b",), ("ev_a",), "untouched"),
    ((), ("ev_a",), "untouched"),
])
def test_a_claim_is_forgotten_only_when_none_of_its_evidence_survives(evidence, forgotten, expect) -> None:
    g = Gathered(events={e: obs(e) for e in forgotten}, claims={"cl_x": claim("cl_x", evidence)})
    plan = plan_forget(g)
    got = "forgotten" if plan.claims == ("cl_x",) else "unlinked" if plan.unlinks else "untouched"
    assert got == expect


def test_already_forgotten_streams_are_left_out_and_an_empty_plan_says_so() -> None:
    g = Gathered(events={"ev_a": obs("ev_a", forgotten=True)},
                 claims={"cl_x": claim("cl_x", status=ClaimStatus.FORGOTTEN)}, seed_claims=frozenset({"cl_x"}),
                 conflicts={"cf_1": conflict("cf_1", status="forgotten")}, extractions=frozenset({"ex_1"}))
    plan = plan_forget(g)
    assert plan.empty and plan == ForgetPlan()


def test_a_subject_plan_forgets_conflicts_about_the_subject() -> None:
    g = Gathered(claims={"cl_z": claim("cl_z", subject="张伟")}, seed_claims=frozenset({"cl_z"}),
                 conflicts={"cf_z": conflict("cf_z", subject="张伟"),
                            "cf_u": conflict("cf_u", subject="user")}, subject="张伟")
    plan = plan_forget(g)
    assert plan.claims == ("cl_z",) and plan.conflicts == ("cf_z",)


def test_a_conflict_whose_existing_claims_were_forgotten_earlier_goes_with_the_last_one() -> None:
    g = Gathered(claims={"cl_old": claim("cl_old", status=ClaimStatus.FORGOTTEN), "cl_new": claim("cl_new")},
                 seed_claims=frozenset({"cl_new"}),
                 conflicts={"cf": conflict("cf", existing=("cl_old", "cl_new"))})
    assert plan_forget(g).conflicts == ("cf",)


# --- events and tombstones -----------------------------------------------------------------------


def test_forget_events_follow_each_streams_version_and_carry_fingerprints() -> None:
    g = Gathered(events={"ev_a": obs("ev_a", "秘密", version=3)},
                 claims={"cl_a": claim("cl_a", ("ev_a",), value="v1", version=2),
                         "cl_b": claim("cl_b", ("ev_a", "ev_b"), version=5)},
                 conflicts={"cf": conflict("cf", evidence=("ev_a",))})
    plan = plan_forget(g)
    fps = stream_fingerprints(g, plan, SALT)
    assert fps["ev_a"] == (OBSERVATION, observation_fingerprint("秘密", SALT))
    assert fps["cl_a"] == (CLAIM, claim_fingerprint("user", "lives_in", "v1", SALT))
    assert fps["cf"] == (CLAIM, claim_fingerprint("user", "lives_in", "x", SALT))
    ids = iter(f"lg_{i}" for i in range(100))
    events = forget_events(g, plan, forget_id="fg_1", new_id=lambda _p: next(ids), recorded_at=T0 + timedelta(1),
                           namespace="default", target_kind="event", target="ev_a", actor="tester", reason="why",
                           counts={"events": 1}, fingerprints=fps)
    head, *rest = events
    assert isinstance(head, ForgetRequested) and head.stream_id == "fg_1" and head.version == 1
    assert head.items == ("ev_a", "cl_a", "cf") and head.counts == (("events", 1),) and head.actor == "tester"
    tombs = {e.stream_id: e for e in rest if isinstance(e, ItemForgotten)}
    assert {s: e.version for s, e in tombs.items()} == {"ev_a": 4, "cl_a": 3, "cf": 2}
    assert all(e.cascade_of == "fg_1" and e.reason == "why" for e in tombs.values())
    assert tombs["ev_a"].fingerprint == fps["ev_a"][1]
    (unlink,) = [e for e in rest if isinstance(e, EvidenceForgotten)]
    assert (unlink.stream_id, unlink.version, unlink.evidence) == ("cl_b", 6, ("ev_a",))
    rows = tombstones_for(plan, fps, forget_id="fg_1", forgotten_at=T0, subject_fp="f" * 32)
    assert [(t.stream_id, t.kind) for t in rows] == [("ev_a", OBSERVATION), ("cl_a", CLAIM), ("cf", CLAIM),
                                                     ("fg_1", SUBJECT)]


def test_fingerprints_take_text_that_is_not_valid_unicode() -> None:
    # Validation refuses such text later with a clear message; the re-ingest check must not crash first.
    assert observation_fingerprint("bad \ud800 text", SALT) != observation_fingerprint("bad  text", SALT)
    assert claim_fingerprint("u\udfff", "p", "v", SALT) and subject_fingerprint("\ud800", SALT)
