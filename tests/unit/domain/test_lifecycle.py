"""Table tests of the lifecycle formulas (TTL, decay, archive, revive) with a moving clock; no I/O."""

from __future__ import annotations

import itertools
import math
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from attrs import evolve
from hypothesis import given
from hypothesis import strategies as st

from hlmem.domain.decisions import decide_assert
from hlmem.domain.commands import AssertClaim
from hlmem.domain.errors import ConfigurationError, DomainRuleViolation, NotFound
from hlmem.domain.events import ClaimArchived, ClaimAsserted, ClaimRevived, ClaimSuperseded, Scope
from hlmem.domain.lifecycle import (
    DECAY_BELOW_FLOOR,
    IDENTITY,
    PERMANENT,
    REASON_CODES,
    REVIVE_CORROBORATED,
    REVIVE_EXPLICIT,
    TEMPORAL,
    TTL_PLAN,
    TTL_TEMPORAL,
    TTL_VALID_TO,
    Activity,
    LifecyclePolicy,
    activation,
    activity_of,
    archive_at,
    below_floor_at,
    decide_archive,
    decide_expire,
    decide_revive,
    expiry,
    expiry_of,
    half_life,
    lifecycle_class,
    parse_duration,
    temporal_ttl,
)
from hlmem.domain.reducers import apply_claim, claim_from
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY
from hlmem.domain.state import ClaimState, ClaimStatus

UTC = timezone.utc
T0 = datetime(2026, 3, 2, 1, 0, tzinfo=UTC)  # Monday 09:00 in Beijing
DAY = timedelta(days=1)
POLICY = LifecyclePolicy()
ROOT = Path(__file__).resolve().parents[3]
_ids = itertools.count(1)


def new_id(prefix: str) -> str:
    return f"{prefix}_{next(_ids):06d}"


def claim(subject: str = "user", predicate: str = "likes", value: str = "x", *, scope: Scope = Scope.PERMANENT,
          importance: float = 0.5, valid_from: datetime = T0, valid_to: datetime | None = None,
          recorded_at: datetime = T0, qualifiers: tuple = (), claim_id: str | None = None) -> ClaimState:
    """A claim state as the reducer makes it from one assertion."""
    return claim_from(ClaimAsserted(
        event_id=new_id("lg"), stream_id=claim_id or new_id("cl"), version=1, recorded_at=recorded_at,
        namespace="default", subject=subject, predicate=predicate, value=value, qualifiers=qualifiers,
        importance=importance, scope=scope, valid_from=valid_from, valid_to=valid_to,
    ))


# -- TTL ------------------------------------------------------------------------------------------

# (label, claim, expected expiry, reason): the rule extractor's shapes, in Chinese and English.
EXPIRY_CASES = [
    ("明天下午三点开会: a plan for tomorrow, closed at the day's end",
     claim("用户", "plan", "下午三点开会", scope=Scope.TEMPORAL, valid_from=T0 + DAY, valid_to=T0 + 2 * DAY),
     T0 + 2 * DAY, TTL_PLAN),
    ("this week I'm in Berlin: a plan for the week",
     claim("user", "plan", "in Berlin", scope=Scope.TEMPORAL, valid_from=T0, valid_to=T0 + 7 * DAY),
     T0 + 7 * DAY, TTL_PLAN),
    ("a plan without an end: its time plus the grace",
     claim("user", "plan", "dentist", valid_from=T0 + 3 * DAY), T0 + 4 * DAY, TTL_PLAN),
    ("schedule is a plan predicate too",
     claim("user", "schedule", "standup", valid_from=T0), T0 + DAY, TTL_PLAN),
    ("我暂时用浅色主题: temporary, importance 0.6 → 14 d × 1.1",
     claim("用户", "preferred_ui_theme", "浅色主题", scope=Scope.TEMPORAL, importance=0.6,
           qualifiers=(("temporary", "暂时"),)), T0 + timedelta(days=15.4), TTL_TEMPORAL),
    ("for now I use light mode, importance 0: half the TTL",
     claim("user", "preferred_ui_theme", "light", scope=Scope.TEMPORAL, importance=0.0), T0 + 7 * DAY, TTL_TEMPORAL),
    ("我今天很忙: a status at full importance: 1.5 × the TTL",
     claim("用户", "status", "很忙", scope=Scope.TEMPORAL, importance=1.0), T0 + 21 * DAY, TTL_TEMPORAL),
    ("TTL runs from valid_from, not from when it was recorded",
     claim("user", "status", "busy", scope=Scope.TEMPORAL, valid_from=T0 - 20 * DAY, recorded_at=T0),
     T0 - 6 * DAY, TTL_TEMPORAL),
    ("a stated end wins over the TTL (this month: longer than 14 days)",
     claim("user", "works_in", "Berlin", scope=Scope.TEMPORAL, valid_to=T0 + 30 * DAY), T0 + 30 * DAY, TTL_VALID_TO),
    ("a permanent fact with a closed period (lived in Paris in 2020)",
     claim("user", "lives_in", "Paris", valid_from=T0 - 400 * DAY, valid_to=T0 - 35 * DAY),
     T0 - 35 * DAY, TTL_VALID_TO),
    ("我的名字是王伟: permanent and open: never", claim("用户", "name", "王伟", importance=0.8), None, None),
    ("I like hiking: permanent and open: never", claim("user", "likes", "hiking"), None, None),
]


@pytest.mark.parametrize(("label", "state", "at", "reason"), EXPIRY_CASES, ids=[c[0] for c in EXPIRY_CASES])
def test_expiry_table(label: str, state: ClaimState, at: datetime | None, reason: str | None) -> None:
    found = expiry_of(state, POLICY)
    assert expiry(state, POLICY) == at
    assert (found.reason if found else None) == reason


def test_only_active_claims_expire() -> None:
    plan = claim("user", "plan", "trip", scope=Scope.TEMPORAL, valid_to=T0 + DAY)
    superseded = apply_claim(plan, ClaimSuperseded(event_id="lg_s", stream_id=plan.claim_id, version=2,
                                                   recorded_at=T0, namespace="default", superseded_by="cl_x",
                                                   valid_to=T0 + DAY / 2))
    assert superseded.status is ClaimStatus.SUPERSEDED and expiry(superseded, POLICY) is None
    assert expiry(evolve(plan, status=ClaimStatus.RETRACTED), POLICY) is None
    assert expiry(evolve(plan, status=ClaimStatus.EXPIRED), POLICY) is None


@pytest.mark.parametrize(("importance", "days"), [(-1.0, 7), (0.0, 7), (0.25, 10.5), (0.5, 14), (1.0, 21), (3.0, 21)])
def test_temporal_ttl_scales_with_importance_clamped(importance: float, days: float) -> None:
    assert temporal_ttl(importance, POLICY) == timedelta(days=days)


def test_decide_expire_with_a_moving_clock() -> None:
    plan = claim("用户", "plan", "下午三点开会", scope=Scope.TEMPORAL, valid_from=T0 + DAY, valid_to=T0 + 2 * DAY)
    now = T0
    seen = []
    while now <= T0 + 3 * DAY:
        event = decide_expire(plan, now=now, policy=POLICY, new_id=new_id)
        seen.append((now, event is not None))
        now += timedelta(hours=12)
    assert [at for at, due in seen if due] == [T0 + 2 * DAY, T0 + 2.5 * DAY, T0 + 3 * DAY]
    event = decide_expire(plan, now=T0 + 3 * DAY, policy=POLICY, new_id=new_id)
    assert event is not None
    assert (event.valid_to, event.reason, event.actor, event.version) == (T0 + 2 * DAY, TTL_PLAN, "system", 2)
    assert event.recorded_at == T0 + 3 * DAY
    expired = apply_claim(plan, event)
    assert expired.status is ClaimStatus.EXPIRED and expired.valid_to == T0 + 2 * DAY
    assert decide_expire(expired, now=T0 + 9 * DAY, policy=POLICY, new_id=new_id) is None
    # One microsecond before: not yet.
    assert decide_expire(plan, now=T0 + 2 * DAY - timedelta(microseconds=1), policy=POLICY, new_id=new_id) is None


def test_temporal_expiry_closes_validity_at_the_ttl_end() -> None:
    temp = claim("用户", "preferred_ui_theme", "浅色主题", scope=Scope.TEMPORAL, importance=0.6,
                 qualifiers=(("temporary", "暂时"),))
    event = decide_expire(temp, now=T0 + 30 * DAY, policy=POLICY, new_id=new_id)
    assert event is not None and event.reason == TTL_TEMPORAL
    after = apply_claim(temp, event)
    assert after.valid_to == T0 + timedelta(days=15.4)
    assert after.versions[0].recorded_to == T0 + 30 * DAY  # the old row was believed until the expiry


# -- decay ----------------------------------------------------------------------------------------


def test_lifecycle_classes() -> None:
    assert lifecycle_class(claim("用户", "name", "王伟"), POLICY) == IDENTITY
    assert lifecycle_class(claim("user", "birthday", "May 1"), POLICY) == IDENTITY
    assert lifecycle_class(claim("user", "Native Language", "中文"), POLICY) == IDENTITY
    assert lifecycle_class(claim("user", "likes", "tea"), POLICY) == PERMANENT
    # A temporary name (暂时叫我小王) is temporal: scope wins over the predicate.
    assert lifecycle_class(claim("user", "name", "小王", scope=Scope.TEMPORAL), POLICY) == TEMPORAL


# (label, claim, activity, age, expected activation)
ACTIVATION_CASES = [
    ("fresh: its importance", claim(importance=0.5), Activity(), timedelta(0), 0.5),
    ("one permanent half-life (90 d)", claim(importance=0.5), Activity(), 90 * DAY, 0.25),
    ("two half-lives", claim(importance=0.8), Activity(), 180 * DAY, 0.2),
    ("temporal: 7 d half-life", claim(importance=0.6, scope=Scope.TEMPORAL), Activity(), 7 * DAY, 0.3),
    ("identity never decays", claim("用户", "name", "王伟", importance=0.8), Activity(), 3650 * DAY, 0.8),
    ("an access restarts decay", claim(importance=0.5), Activity(T0 + 90 * DAY, 1), 90 * DAY, 0.5),
    ("9 accesses: half-life × (1 + ln 10)", claim(importance=0.5), Activity(T0, 9),
     90 * DAY * (1 + math.log(10)), 0.25),
    ("3 helpful: half-life × (1 + ln 4)", claim(importance=0.5), Activity(None, 0, positive=3),
     90 * DAY * (1 + math.log(4)), 0.25),
    ("unhelpful feedback cancels, never speeds up", claim(importance=0.5), Activity(None, 0, negative=9), 90 * DAY, 0.25),
    ("a clock before recording: no negative age", claim(importance=0.5), Activity(), -5 * DAY, 0.5),
    ("importance out of range is clamped", claim(importance=1.7), Activity(), timedelta(0), 1.0),
]


@pytest.mark.parametrize(("label", "state", "act", "age", "expected"), ACTIVATION_CASES,
                         ids=[c[0] for c in ACTIVATION_CASES])
def test_activation_table(label: str, state: ClaimState, act: Activity, age: timedelta, expected: float) -> None:
    assert activation(state, act, T0 + age, POLICY) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(("accesses", "positive", "negative", "factor"), [
    (0, 0, 0, 1.0), (1, 0, 0, 1 + math.log(2)), (9, 0, 0, 1 + math.log(10)), (0, 3, 0, 1 + math.log(4)),
    (0, 0, 3, 1.0), (3, 0, 3, 1.0), (3, 1, 0, 1 + math.log(4) + math.log(2)),
])
def test_half_life_grows_with_log_of_accesses_and_feedback(accesses, positive, negative, factor) -> None:
    got = half_life(claim(), Activity(None, accesses, positive, negative), POLICY)
    assert got is not None
    assert got.total_seconds() == pytest.approx((90 * DAY).total_seconds() * factor)


def test_decay_never_touches_confidence_or_truth() -> None:
    c = claim(importance=0.5)
    event = decide_archive(c, Activity(), now=T0 + 3650 * DAY, policy=POLICY, new_id=new_id)
    assert isinstance(event, ClaimArchived)
    archived = apply_claim(c, event)
    assert archived.archived
    assert (archived.importance, archived.status, archived.versions, archived.value) == (
        c.importance, c.status, c.versions, c.value)


# -- archive --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("importance", "scope", "days_to_floor"), [
    (0.5, Scope.PERMANENT, 90 * math.log2(5)),   # ≈ 209 d
    (0.2, Scope.PERMANENT, 90.0),                # one half-life to 0.1
    (0.5, Scope.TEMPORAL, 7 * math.log2(5)),     # ≈ 16 d
    (0.1, Scope.PERMANENT, 0.0),                 # at the floor already
    (0.05, Scope.TEMPORAL, 0.0),                 # below it from the start
])
def test_floor_crossing_in_closed_form(importance: float, scope: Scope, days_to_floor: float) -> None:
    c = claim(importance=importance, scope=scope)
    crossed = below_floor_at(c, Activity(), POLICY)
    assert crossed is not None
    assert (crossed - T0).total_seconds() == pytest.approx(days_to_floor * 86_400, abs=1e-3)
    assert archive_at(c, Activity(), POLICY) == crossed + POLICY.archive_grace
    if days_to_floor:
        before, after = crossed - timedelta(seconds=1), crossed + timedelta(seconds=1)
        assert activation(c, Activity(), before, POLICY) > POLICY.activation_floor
        assert activation(c, Activity(), after, POLICY) < POLICY.activation_floor
        assert activation(c, Activity(), crossed, POLICY) == pytest.approx(POLICY.activation_floor)


@given(importance=st.floats(0.0, 1.0), accesses=st.integers(0, 1000), positive=st.integers(0, 50),
       negative=st.integers(0, 50), since=st.integers(0, 2000), scope=st.sampled_from(list(Scope)))
def test_activation_stays_below_the_floor_from_the_crossing_on(importance, accesses, positive, negative, since,
                                                                scope) -> None:
    c = claim(importance=importance, scope=scope)
    act = Activity(T0 + since * DAY if accesses else None, accesses, positive, negative)
    crossed = below_floor_at(c, act, POLICY)
    assert crossed is not None
    for extra in (timedelta(seconds=1), DAY, 100 * DAY, 10_000 * DAY):
        assert activation(c, act, crossed + extra, POLICY) <= POLICY.activation_floor * (1 + 1e-9)
    if crossed > (T0 + since * DAY if accesses else T0):
        assert activation(c, act, crossed - timedelta(seconds=1), POLICY) > POLICY.activation_floor


def test_archive_with_a_moving_clock_and_boundaries() -> None:
    c = claim("user", "favorite_snack", "pretzels", importance=0.2)
    due = T0 + 90 * DAY + POLICY.archive_grace  # floor at 90 d, then 14 d of grace
    assert archive_at(c, Activity(), POLICY) == due
    assert decide_archive(c, Activity(), now=due - timedelta(seconds=1), policy=POLICY, new_id=new_id) is None
    event = decide_archive(c, Activity(), now=due, policy=POLICY, new_id=new_id)
    assert event is not None and (event.reason, event.actor) == (DECAY_BELOW_FLOOR, "system")
    assert event.activation == pytest.approx(0.2 * 2 ** (-(104 / 90)), abs=1e-6)
    archived = apply_claim(c, event)
    assert archive_at(archived, Activity(), POLICY) is None  # already archived
    assert archive_at(evolve(c, status=ClaimStatus.FORGOTTEN), Activity(), POLICY) is None


def test_regular_access_keeps_a_claim_alive_and_stopping_lets_it_go() -> None:
    c = claim("用户", "likes", "爬山", importance=0.3)
    act = Activity()
    now = T0
    for _ in range(12):  # accessed every 60 days for two years
        now += 60 * DAY
        assert decide_archive(c, act, now=now, policy=POLICY, new_id=new_id) is None
        act = Activity(now, act.accesses + 1)
    last = now
    h = half_life(c, act, POLICY)
    assert h is not None and h == 90 * DAY * (1 + math.log(13))
    expected = last + h * math.log2(3) + POLICY.archive_grace
    assert archive_at(c, act, POLICY) == expected
    assert decide_archive(c, act, now=expected - DAY, policy=POLICY, new_id=new_id) is None
    assert decide_archive(c, act, now=expected, policy=POLICY, new_id=new_id) is not None


def test_identity_does_not_decay_unless_configured() -> None:
    name = claim("用户", "name", "王伟", importance=0.8)
    assert archive_at(name, Activity(), POLICY) is None
    assert decide_archive(name, Activity(), now=T0 + 36500 * DAY, policy=POLICY, new_id=new_id) is None
    decaying = LifecyclePolicy(half_life_identity=timedelta(days=3650))
    assert archive_at(name, Activity(), decaying) == T0 + timedelta(days=3650 * 3) + decaying.archive_grace


def test_activity_of_adds_the_claims_feedback_counts() -> None:
    c = evolve(claim(), helpful=2, unhelpful=1)
    assert activity_of(c, None) == Activity(None, 0, 2, 1)
    assert activity_of(c, Activity(T0, 4)) == Activity(T0, 4, 2, 1)


# -- revive ---------------------------------------------------------------------------------------


def test_decide_revive_rules() -> None:
    c = claim(importance=0.1)
    with pytest.raises(NotFound):
        decide_revive(None, "cl_missing", reason="", actor="user", new_id=new_id, recorded_at=T0)
    with pytest.raises(DomainRuleViolation, match="not archived"):
        decide_revive(c, c.claim_id, reason="", actor="user", new_id=new_id, recorded_at=T0)
    with pytest.raises(DomainRuleViolation, match="forgotten"):
        decide_revive(evolve(c, status=ClaimStatus.FORGOTTEN), c.claim_id, reason="", actor="user", new_id=new_id,
                      recorded_at=T0)
    archived = evolve(c, archived=True, version=2)
    event = decide_revive(archived, c.claim_id, reason="", actor="user", new_id=new_id, recorded_at=T0)
    assert (event.reason, event.actor, event.version) == (REVIVE_EXPLICIT, "user", 3)
    assert decide_revive(archived, c.claim_id, reason="asked", actor="agent", new_id=new_id,
                         recorded_at=T0).reason == "asked"
    assert not apply_claim(archived, event).archived


def test_corroborating_an_archived_claim_revives_it() -> None:
    c = evolve(claim("user", "likes", "hiking", claim_id="cl_hike"), archived=True, version=2)
    cmd = AssertClaim(subject="user", predicate="likes", value="Hiking", evidence=("ev_1",))
    decision = decide_assert(cmd, [c], registry=DEFAULT_REGISTRY, new_id=new_id, recorded_at=T0 + DAY)
    assert decision.outcome == "corroborated"
    kinds = [type(e).__name__ for e in decision.events]
    assert kinds == ["ClaimCorroborated", "ClaimRevived"]
    revived = decision.events[1]
    assert isinstance(revived, ClaimRevived)
    assert (revived.reason, revived.actor, revived.version) == (REVIVE_CORROBORATED, "system", 4)
    # A claim that is not archived is only corroborated.
    plain = decide_assert(cmd, [evolve(c, archived=False)], registry=DEFAULT_REGISTRY, new_id=new_id,
                          recorded_at=T0 + DAY)
    assert [type(e).__name__ for e in plain.events] == ["ClaimCorroborated"]


# -- configuration --------------------------------------------------------------------------------


def test_policy_defaults_are_the_documented_ones() -> None:
    doc = (ROOT / "docs" / "lifecycle.md").read_text(encoding="utf-8")
    p = LifecyclePolicy()
    for name, shown in [("plan_grace", "1 day"), ("temporal_ttl", "14 days"), ("half_life_temporal", "7 days"),
                        ("half_life_permanent", "90 days"), ("archive_grace", "14 days"),
                        ("activation_floor", "0.1"), ("access_weight", "1.0"), ("feedback_weight", "1.0"),
                        ("half_life_identity", "none")]:
        assert re.search(rf"^\| `{name}` \| {re.escape(shown)} \|", doc, re.MULTILINE), name
    assert p.plan_grace == DAY and p.temporal_ttl == 14 * DAY and p.archive_grace == 14 * DAY
    assert p.half_life_identity is None and p.activation_floor == 0.1


@pytest.mark.parametrize("bad", [
    {"activation_floor": 0}, {"activation_floor": 1.0}, {"activation_floor": True}, {"temporal_ttl": 0},
    {"half_life_permanent": "-3d"}, {"access_weight": -1}, {"access_weight": math.inf}, {"archive_grace": "soon"},
    {"unknown_key": 1},
])
def test_bad_policy_values_are_refused(bad: dict) -> None:
    with pytest.raises(ConfigurationError):
        LifecyclePolicy.from_mapping(bad)


def test_policy_from_mapping_reads_durations_and_predicate_lists() -> None:
    p = LifecyclePolicy.from_mapping({"temporal_ttl": "3d", "plan_grace": 3600, "half_life_identity": "10w",
                                      "plan_predicates": "Plan, Meeting", "archive_grace": timedelta(hours=2)})
    assert p.temporal_ttl == 3 * DAY and p.plan_grace == timedelta(hours=1)
    assert p.half_life_identity == timedelta(weeks=10) and p.archive_grace == timedelta(hours=2)
    assert p.plan_predicates == frozenset({"plan", "meeting"})
    assert parse_duration("1.5d") == timedelta(days=1.5) and parse_duration("90") == timedelta(seconds=90)


def test_every_reason_code_is_documented() -> None:
    doc = (ROOT / "docs" / "reason-codes.md").read_text(encoding="utf-8")
    section = doc[doc.index("## Lifecycle"):]
    section = section[:section.find("\n## ")] if "\n## " in section else section  # up to the next section
    listed = set(re.findall(r"^\| `([a-z_.]+)` \|", section, re.MULTILINE))
    assert listed == set(REASON_CODES)
