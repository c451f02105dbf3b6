"""The experience channel's pure parts: signatures, the Wilson bound, the policy lifecycle, redaction
and the how-to reading (docs/experience.md, ADR 0045)."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from hlmem.domain.errors import ValidationError
from hlmem.domain.events import ItemForgotten
from hlmem.domain.experience_decisions import EndEpisode, RecordStep, StartEpisode, decide_end, decide_start, decide_step
from hlmem.domain.experience_events import (
    PolicyActivated,
    PolicyOutcomeRecorded,
    PolicyProposed,
    PolicyRetired,
    ProcedurePromoted,
)
from hlmem.domain.experience_policy import PolicyThresholds, Situation, on_episode_end, wilson_lower
from hlmem.domain.experience_reducers import reduce_experience
from hlmem.domain.experience_review import ACTIVATE, RETIRE, STAY, lead_z, review_candidate, wilson_bounds
from hlmem.domain.experience_signature import trigger_signature
from hlmem.domain.procedure_intent import howto_task, match_score
from hlmem.domain.redaction import redact

T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)


class World:
    """Episodes of one situation, folded by the reducers, with the lifecycle run at each end."""

    def __init__(self, thresholds: PolicyThresholds | None = None) -> None:
        self.t = thresholds or PolicyThresholds(rule="wilson")
        self.counter = itertools.count(1)
        self.episodes: dict = {}
        self.policies: dict = {}
        self.procedures: dict = {}
        self.log: list = []

    def new_id(self, prefix: str) -> str:
        return f"{prefix}_{next(self.counter):06d}"

    def apply(self, events) -> None:
        for e in events:
            table = {"ep": self.episodes, "po": self.policies, "pd": self.procedures}[e.stream_id[:2]]
            table[e.stream_id] = reduce_experience(table.get(e.stream_id), e)
            self.log.append(e)

    def run(self, approach: str, ok: bool, goal: str = "fix the build", error: str = "") -> list:
        now = T0 + timedelta(minutes=next(self.counter))
        start = decide_start(StartEpisode(goal=goal, approach=approach), episode_id=self.new_id("ep"),
                             event_id=self.new_id("lg"), now=now)
        self.apply([start])
        ep = self.episodes[start.stream_id]
        self.apply([decide_step(RecordStep(episode_id=ep.episode_id, action=f"run {approach}", tool=approach,
                                           error=error), ep, {}, event_id=self.new_id("lg"), now=now)])
        ep = self.episodes[start.stream_id]
        self.apply([decide_end(EndEpisode(episode_id=ep.episode_id, status="succeeded" if ok else "failed"), ep,
                               event_id=self.new_id("lg"), now=now)])
        ep = self.episodes[start.stream_id]
        changes = on_episode_end(self.situation(ep.signature), ep, self.t, new_id=self.new_id, now=now)
        self.apply(changes)
        return changes

    def situation(self, signature: str) -> Situation:
        return Situation.of_episodes("default", signature, self.episodes.values(), self.policies.values(),
                                     self.procedures.values())


class LoadCountingWorld(World):
    """A world whose situations record every whole episode the lifecycle asks for."""

    def __init__(self, thresholds: PolicyThresholds) -> None:
        super().__init__(thresholds)
        self.loads: list[list[str]] = []

    def situation(self, signature: str) -> Situation:
        inner = super().situation(signature)

        def load(ids):
            self.loads.append(list(ids))
            return inner.load_episodes(ids)

        return Situation(inner.namespace, inner.signature, inner.counts, inner.policies, inner.procedures, load,
                         inner.load_outcomes)


def test_signatures_set_incidental_detail_aside() -> None:
    assert trigger_signature("Fix failing test in tests/test_io.py") == trigger_signature(
        "fix failing test in tests/test_net.py!") == "fix failing test in <path>"
    assert trigger_signature("Install numpy 1.26.4", "error E401") == "install numpy <n> | error e <n>"
    assert trigger_signature("部署后端服务 v2") == "部署后端服务 <n>"
    assert trigger_signature("Unpack lib-3.1.tar.gz") == trigger_signature("unpack numpy-2.whl") == "unpack <path>"


def test_the_wilson_bound() -> None:
    assert wilson_lower(0, 0, 1.645) == 0.0
    assert wilson_lower(10, 10, 1.645) < 1.0
    assert wilson_lower(5, 5, 1.645) < wilson_lower(50, 50, 1.645)
    assert abs(wilson_lower(9, 11, 1.96) - 0.523) < 0.01


@given(st.integers(0, 200), st.integers(1, 200))
def test_the_bound_lies_below_the_rate(s: int, n: int) -> None:
    s = min(s, n)
    assert 0.0 <= wilson_lower(s, n, 1.645) <= s / n


def test_candidate_probation_activation_and_retirement() -> None:
    w = World(PolicyThresholds(rule="wilson", min_support=3, min_reliability=0.3, probation=2, retire_after=2,
                               procedure_min_successes=4, procedure_min_reliability=0.3))
    kinds = [[type(e) for e in w.run("make", True)] for _ in range(3)]
    assert kinds[2] == [PolicyProposed]
    (policy,) = w.policies.values()
    assert policy.status == "candidate" and policy.successes == 3
    w.run("make", True)
    after = [type(e) for e in w.run("make", True)]
    assert PolicyActivated in after and ProcedurePromoted in after
    assert w.policies[policy.policy_id].status == "active"
    w.run("make", False)
    assert [p.status for p in w.procedures.values()] == ["demoted"]
    last = [type(e) for e in w.run("make", False)]
    assert PolicyRetired in last and w.policies[policy.policy_id].reason == "2 consecutive failures"


def test_only_a_promotion_reads_whole_episodes_and_never_more_than_the_latest_few() -> None:
    # An end reads counts; a promotion looks for reusable steps among the policy's latest 16
    # supporting episodes only, so its cost does not grow with the record either (ADR 0071).
    w = LoadCountingWorld(PolicyThresholds(rule="wilson", min_support=3, min_reliability=0.3, probation=1,
                                           procedure_min_successes=40, procedure_min_reliability=0.3))
    for _ in range(20):
        w.run("make", True)
    for _ in range(19):
        w.run("make", True, error="E_FLAKY")  # succeeded, but its only step failed: nothing to reuse
    assert w.loads == [] and not w.procedures  # 39 ends counted from counts alone
    w.run("make", True, error="E_FLAKY")  # the 40th success: a promotion is due, the latest 16 have no steps
    newest_first = sorted(w.episodes, reverse=True)
    assert w.loads == [newest_first[:16]] and not w.procedures
    after = [type(e) for e in w.run("make", True)]
    assert ProcedurePromoted in after
    (procedure,) = w.procedures.values()
    assert procedure.source_episode == max(w.episodes) and procedure.steps == ("make: run make",)
    assert all(len(ids) <= 16 for ids in w.loads)


def test_probation_waits_for_evidence_either_way() -> None:
    # Proposed on a lucky 5/5 (reliability .65); one failure in probation leaves 7/8 (.59): not yet
    # proven, not shown bad (it could reach .6, nothing else was tried): it stays a candidate with
    # its evidence, and the next success activates it.
    w = World(PolicyThresholds(rule="wilson", min_support=5, min_reliability=0.6, min_lead=0.15, probation=3))
    for ok in (True,) * 5 + (False, True, True):
        w.run("make", ok)
    (policy,) = w.policies.values()
    assert policy.status == "candidate" and wilson_lower(7, 8, 1.645) < 0.6
    assert PolicyActivated in [type(e) for e in w.run("make", True)]
    assert w.policies[policy.policy_id].status == "active" and w.policies[policy.policy_id].support == 9


def _uv_proposed_against_pip() -> tuple[World, object]:
    """pip 2/6, then uv 5/5: uv is proposed (reliability .65, .32 above pip's rate)."""
    w = World(PolicyThresholds(rule="wilson", min_support=5, min_reliability=0.6, min_lead=0.15, probation=3))
    for ok in (True, False, False, True, False, False):
        w.run("pip", ok)
    for _ in range(5):
        w.run("uv", True)
    (policy,) = w.policies.values()
    return w, policy


def test_probation_retires_a_candidate_that_lost_its_lead() -> None:
    # pip 2/6, then uv 5/5 is proposed (reliability .65, .32 above pip's rate). Three failures
    # leave 5/8 against 2/6: lead z 1.08, still >= retire_z 1.0, so it stays a candidate; the
    # fourth (5/9, z 0.84) retires it, although its upper bound (.79) is still above the bar.
    w, policy = _uv_proposed_against_pip()
    assert policy.approach == "uv" and policy.status == "candidate" and policy.proposed_outcomes == 11
    kinds = [[type(e) for e in w.run("uv", False)] for _ in range(4)]
    assert kinds[:3] == [[PolicyOutcomeRecorded]] * 3 and kinds[3] == [PolicyOutcomeRecorded, PolicyRetired]
    retired = w.policies[policy.policy_id]
    assert retired.status == "retired" and retired.reason.startswith("failed probation: 5/9 succeeded against 2/6")
    (event,) = [e for e in w.log if isinstance(e, PolicyRetired)]
    stats = dict(event.statistics)
    assert stats["n"] == 9 and stats["others_n"] == 6 and 0.8 < stats["lead_z"] < 1.0
    assert stats["situation_outcomes_since_proposal"] == 4


def test_probation_counts_the_situations_outcomes_not_only_its_own() -> None:
    # uv 5/5 against pip 2/6 is proposed; its lead z (2.29) already clears z, but probation waits for
    # three outcomes of the situation. Three pip episodes (no uv episode at all) complete it: uv
    # 5/5 against 5/9 (z 1.76) is activated on the others' outcomes.
    w, policy = _uv_proposed_against_pip()
    assert [type(e) for e in w.run("pip", True)] == [] and [type(e) for e in w.run("pip", True)] == []
    assert [type(e) for e in w.run("pip", True)] == [PolicyActivated]
    active = w.policies[policy.policy_id]
    assert active.status == "active" and active.support == 5
    (event,) = [e for e in w.log if isinstance(e, PolicyActivated)]
    assert dict(event.statistics)["others_successes"] == 5 and 1.645 <= dict(event.statistics)["lead_z"] < 1.8


def test_activation_needs_a_clear_lead_not_only_reliability() -> None:
    # uv 5/5 against pip 2/5 is proposed (z 2.29). Three pip successes fill probation but bring pip
    # to 5/8: uv is still reliable (.65) yet its lead z is 1.56 < 1.645, so it stays a candidate
    # (and is not retired: 1.56 >= retire_z). One more uv success (6/6 against 5/8, z 1.69) activates it.
    w = World(PolicyThresholds(rule="wilson", min_support=5, min_reliability=0.6, min_lead=0.15, probation=3,
                               procedure_min_successes=50))
    for ok in (True, True, False, False, False):
        w.run("pip", ok)
    for _ in range(5):
        w.run("uv", True)
    (policy,) = w.policies.values()
    for _ in range(3):
        assert w.run("pip", True) == []
    assert w.policies[policy.policy_id].status == "candidate"
    assert lead_z(5, 5, 5, 8) < 1.645 <= lead_z(6, 6, 5, 8)
    assert [type(e) for e in w.run("uv", True)] == [PolicyOutcomeRecorded, PolicyActivated]
    assert w.policies[policy.policy_id].status == "active"


def test_a_retired_policy_returns_on_a_fresh_success_judged_on_its_whole_record() -> None:
    w = World(PolicyThresholds(rule="wilson", min_support=5, min_reliability=0.6, probation=1, retire_after=2))
    for _ in range(15):
        w.run("make", True)
    (policy,) = w.policies.values()
    assert policy.status == "active"
    w.run("make", False)
    w.run("make", False)
    assert w.policies[policy.policy_id].status == "retired"
    assert PolicyProposed in [type(e) for e in w.run("make", True)]  # the record 16/18 still holds
    back = w.policies[policy.policy_id]
    assert back.status == "candidate" and back.successes == 16 and back.failures == 2 and back.streak == 0
    w.run("make", True)
    assert w.policies[policy.policy_id].status == "active" and len(w.policies) == 1


def test_noise_gives_no_policy_and_a_better_approach_outranks() -> None:
    w = World(PolicyThresholds(rule="wilson", min_support=4, min_reliability=0.4, min_lead=0.15, probation=1))
    for i in range(20):
        w.run("a" if i % 2 else "b", i % 4 < 2)  # both approaches succeed half the time
    assert w.policies == {}
    v = World(PolicyThresholds(rule="wilson", min_support=4, min_reliability=0.3, min_lead=0.1, probation=1))
    for _ in range(6):
        v.run("slow", True)
    (slow,) = v.policies.values()
    for _ in range(4):
        v.run("slow", False)
    for _ in range(12):
        v.run("fast", True)
    statuses = {p.approach: p.status for p in v.policies.values()}
    assert statuses["fast"] in ("candidate", "active") and statuses["slow"] == "retired"


def test_the_review_statistics() -> None:
    assert lead_z(5, 5, 2, 6) == pytest.approx(2.2887, abs=1e-3)
    assert lead_z(3, 6, 3, 6) == 0.0 and lead_z(4, 4, 4, 4) == 0.0 and lead_z(0, 3, 0, 2) == 0.0
    assert lead_z(1, 2, 0, 0) is None and lead_z(0, 0, 3, 4) is None
    lo, hi = wilson_bounds(9, 11, 1.96)
    assert abs(lo - 0.523) < 0.01 and wilson_bounds(0, 0, 1.645) == (0.0, 1.0)
    # Only one approach tried: no lead to test, the absolute bar alone decides.
    alone = review_candidate("make", {"make": (9, 9)}, 3, probation=3, min_reliability=0.6, z=1.645, retire_z=1.0)
    assert alone.decision == ACTIVATE and alone.lead_z is None and "no other approach tried" in alone.reason
    early = review_candidate("make", {"make": (9, 9), "ninja": (0, 9)}, 2, probation=3, min_reliability=0.6,
                             z=1.645, retire_z=1.0)
    assert early.decision == STAY
    bad = review_candidate("make", {"make": (2, 9), "ninja": (0, 0)}, 5, probation=3, min_reliability=0.6,
                           z=1.645, retire_z=1.0)
    assert bad.decision == RETIRE and bad.upper < 0.6


@given(st.integers(0, 60), st.integers(1, 60), st.integers(0, 60), st.integers(1, 60))
@example(5, 5, 0, 1)  # the upper bound of 5/5 once came out as 0.9999999999999999 (rounding)
def test_lead_z_is_antisymmetric_and_the_bounds_hold_the_rate(s: int, n: int, os_: int, on: int) -> None:
    s, os_ = min(s, n), min(os_, on)
    assert lead_z(s, n, os_, on) == pytest.approx(-lead_z(os_, on, s, n))
    assert (lead_z(s, n, os_, on) > 0) == (s / n > os_ / on) or s / n == os_ / on
    lo, hi = wilson_bounds(s, n, 1.645)
    assert 0.0 <= lo <= s / n <= hi <= 1.0
    assert hi == pytest.approx(1.0 - wilson_bounds(n - s, n, 1.645)[0])


def test_thresholds_are_checked() -> None:
    with pytest.raises(ValidationError):
        PolicyThresholds(rule="wilson", min_reliability=1.5)
    with pytest.raises(ValidationError):
        PolicyThresholds(rule="wilson", probation=-1)
    with pytest.raises(ValidationError):
        PolicyThresholds(rule="wilson", retire_z=9.0)
    with pytest.raises(ValidationError, match="z must be in"):
        PolicyThresholds(rule="wilson", z=True)  # a boolean is no number here (a TOML `true` must not mean 1)


def test_threshold_problems_name_every_bad_field() -> None:
    from attrs import asdict

    from hlmem.domain.experience_policy import threshold_problems

    assert threshold_problems(asdict(PolicyThresholds(rule="wilson"))) == []
    bad = {**asdict(PolicyThresholds(rule="wilson")), "min_support": 0, "min_lead": -0.1, "retire_z": False}
    assert [name for name, _ in threshold_problems(bad)] == ["min_support", "min_lead", "retire_z"]


def test_redaction_and_the_tombstone_agree() -> None:
    w = World(PolicyThresholds(rule="wilson", min_support=2, min_reliability=0.1, probation=1, procedure_min_successes=2,
                               procedure_min_reliability=0.1))
    for _ in range(4):
        w.run("tool", True, goal="secret goal alpha")
    for sid in [*w.episodes, *w.policies, *w.procedures]:
        events = [e for e in w.log if e.stream_id == sid]
        last = events[-1]
        tomb = ItemForgotten(event_id="lg_x", stream_id=sid, version=last.version + 1, recorded_at=T0,
                             namespace="default")
        live, redacted = None, None
        for e in events:
            live = reduce_experience(live, e)
            redacted = reduce_experience(redacted, redact(e))
        assert reduce_experience(live, tomb) == reduce_experience(redacted, tomb)
        assert "secret" not in repr(reduce_experience(live, tomb))


@pytest.mark.parametrize(("query", "task"), [
    ("How do I install the package?", "install the package"), ("how to fix the build", "fix the build"),
    ("怎么部署服务？", "部署服务"), ("我该如何配置代理", "配置代理"), ("what theme do I use", None),
    ("用户现在用什么主题？", None)])
def test_howto_questions(query: str, task: str | None) -> None:
    assert howto_task(query) == task


def test_match_scores() -> None:
    assert match_score("install package foo", "install package foo <n>") == 1.0
    assert match_score("deploy the app", "install package foo") == 0.0
    assert match_score("部署服务", "部署后端服务") > 0.3


@pytest.mark.parametrize("goal", ["42 / 3.1", "`deploy`", "src/app.py v2.0 #1234", "?!…", "deadbeef12"])
def test_a_goal_of_values_alone_is_refused(goal: str) -> None:
    with pytest.raises(ValidationError, match="no words left"):
        decide_start(StartEpisode(goal=goal), episode_id="ep_1", event_id="lg_1", now=T0)


@pytest.mark.parametrize("goal, signature", [("部署 v2", "部署 <n>"), ("deploy 42", "deploy <n>"),
                                             ("run `make` in src/x.py", "run <q> in <path>")])
def test_a_goal_with_a_word_besides_its_values_is_taken(goal: str, signature: str) -> None:
    assert decide_start(StartEpisode(goal=goal), episode_id="ep_1", event_id="lg_1", now=T0).signature == signature
