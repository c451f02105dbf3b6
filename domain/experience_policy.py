"""Policy induction and the policy/procedure lifecycle: deterministic, offline, pure (ADR 0045).

A **policy** says "in situation T prefer approach P". T is a trigger signature
(:mod:`hlmem.domain.experience_signature`); P an approach (named by the agent, or the distinct
tools of the trace). Its statistics come from ended episodes only — succeeded counts as a
success, failed as a failure, cancelled not at all — and its **reliability** is the Wilson score
lower bound of the success rate at ``z`` (default 1.645, a one-sided 95 % bound): few episodes
give a low bound however lucky they were, so support and reliability are one number's two sides.

Induction over one signature (:func:`induce`): the approach with the highest reliability is
proposed as a *candidate* when it has at least ``min_support`` episodes, a reliability of at
least ``min_reliability``, and — when other approaches were tried in the same situation — a
reliability at least ``min_lead`` above the others' pooled success rate (so a situation where
every approach does about as well, noise, yields no policy). A candidate is on **probation**,
reviewed after every ended episode of its situation by :mod:`hlmem.domain.experience_review`
(ADR 0050): once ``probation`` outcomes of the situation (any approach) have come in since the
proposal, it becomes *active* when its reliability meets ``min_reliability`` and its lead over
the other approaches, a two-proportion z statistic, reaches ``z``; it retires when even its
Wilson *upper* bound is below ``min_reliability`` or its lead z fell below ``retire_z``; in
between it stays a candidate and keeps its evidence. An active policy **retires** after
``retire_after`` consecutive failures, or when another approach outranks it. A retired policy
returns only on fresh evidence — a success its support had not counted — and is then judged on
its whole record, the failures that retired it included.

A **procedure** is an active policy that stayed reliable (``procedure_min_successes``
successes, reliability of at least ``procedure_min_reliability``): the steps of its latest
successful episode, without failed steps and duplicates, versioned (1, 2, … per policy). Any
failure of its policy after promotion demotes it; a later promotion (after a success) is the
next version.

Under ``rule = "bayes"`` (the default; ADRs 0066 and 0091) the bars are on the posterior that the
approach is its situation's best (:mod:`hlmem.domain.experience_bayes`); with ``probation`` 0 (the
default) a proposal that meets the activation bar is active in the same end.

An LLM may word a policy for people; it never sees or sets these numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime

from attrs import fields, frozen

from hlmem.domain.errors import ValidationError
from hlmem.domain.events import DomainEvent
from hlmem.domain.experience_events import (
    PolicyActivated,
    PolicyOutcomeRecorded,
    PolicyProposed,
    PolicyRetired,
    ProcedureDemoted,
    ProcedurePromoted,
)
from hlmem.domain.experience_reducers import reduce_experience
from hlmem.domain.experience_review import ACTIVATE, RETIRE, review_candidate, wilson_bounds
from hlmem.domain.experience_signature import normalize_approach
from hlmem.domain.experience_bayes import review_policy, standing
from hlmem.domain.experience_counts import Counts, fold_counts
from hlmem.domain.experience_prior import DEFAULT_PRIOR, RatePrior
from hlmem.domain.experience_state import EpisodeState, PolicyState, ProcedureState, outcomes_of

LIVE = ("candidate", "active")
#: How candidates may be judged (``PolicyThresholds.rule``).
RULES = ("bayes", "wilson")


@frozen(kw_only=True)
class PolicyThresholds:
    """When induction proposes, activates, retires and promotes (docs/experience.md;
    ``Memory.set_experience_thresholds``)."""

    min_support: int = 5
    min_reliability: float = 0.6
    min_lead: float = 0.15
    z: float = 1.645
    #: Outcomes of the situation after a proposal before the candidate may be activated or retired;
    #: 0 (ADR 0091): a proposal that meets the activation bar is active at once (ADR 0066 had 1,
    #: ADR 0050's Wilson rule was measured with 3).
    probation: int = 0
    #: A candidate whose lead z over the situation's other approaches falls below this after
    #: probation retires (ADR 0050).
    retire_z: float = 1.0
    retire_after: int = 3
    procedure_min_successes: int = 8
    procedure_min_reliability: float = 0.75
    #: How candidates are judged: ``bayes`` (the posterior under the namespace's fitted prior,
    #: ADR 0066) or ``wilson`` (the Wilson bound and the lead z of ADRs 0045 and 0050).
    rule: str = "bayes"
    #: ``bayes``: the confidence (posterior that the approach is the best) to propose and to activate.
    min_confidence: float = 0.8
    #: ``bayes``: a live policy whose confidence falls below this retires.
    retire_confidence: float = 0.7

    def __attrs_post_init__(self) -> None:
        problems = threshold_problems({f.name: getattr(self, f.name) for f in fields(PolicyThresholds)})
        if problems:
            raise ValidationError("invalid experience thresholds: " + "; ".join(f"{name} {text}"
                                                                                for name, text in problems),
                                  field="experience")


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def threshold_problems(values: Mapping[str, object]) -> list[tuple[str, str]]:
    """Each bad threshold among ``values`` (every field of :class:`PolicyThresholds`) as
    ``(name, "must be …, not …")``: one rule for the object and the config file (docs/config.md)."""
    problems = []
    for name in ("min_support", "probation", "retire_after", "procedure_min_successes"):
        value, least = values[name], 0 if name == "probation" else 1
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            problems.append((name, f"must be a whole number of at least {least}, not {value!r}"))
    for name in ("min_reliability", "min_lead", "procedure_min_reliability"):
        value = values[name]
        if not _number(value) or not 0.0 <= value <= 1.0:  # type: ignore[operator]
            problems.append((name, f"must be 0..1, not {value!r}"))
    if values["rule"] not in RULES:
        problems.append(("rule", f"must be one of {', '.join(RULES)}, not {values['rule']!r}"))
    low, high = values["retire_confidence"], values["min_confidence"]
    for name, value in (("min_confidence", high), ("retire_confidence", low)):
        if not _number(value) or not 0.0 < value < 1.0:  # type: ignore[operator]
            problems.append((name, f"must be between 0 and 1 (both excluded), not {value!r}"))
    if _number(low) and _number(high) and low > high:  # type: ignore[operator]
        problems.append(("retire_confidence", f"must not exceed min_confidence ({high!r}), not {low!r}"))
    z, retire_z = values["z"], values["retire_z"]
    if not _number(z) or not 0.0 < z <= 5.0:  # type: ignore[operator]
        problems.append(("z", f"must be in (0, 5], not {z!r}"))
    if not _number(retire_z) or not -5.0 <= retire_z <= 5.0:  # type: ignore[operator]
        problems.append(("retire_z", f"must be -5..5, not {retire_z!r}"))
    return problems


def wilson_lower(successes: int, n: int, z: float) -> float:
    """The Wilson score interval's lower bound for ``successes`` out of ``n`` (0 when ``n`` is 0)."""
    return wilson_bounds(successes, n, z)[0]


def reliability(policy: PolicyState, thresholds: PolicyThresholds) -> float:
    """The policy's reliability: the Wilson lower bound of its supporting episodes' success rate."""
    return wilson_lower(policy.successes, policy.support, thresholds.z)


@frozen
class ApproachStats:
    """One approach's counted episodes in one situation."""

    approach: str
    successes: int
    n: int


#: Reads whole episodes by id (a reader's ``get_episodes``): only a promotion needs a trace.
EpisodeLoader = Callable[[Sequence[str]], Mapping[str, EpisodeState]]
#: Lists one approach's counted outcomes in the situation, ``(episode_id, succeeded)`` in the order
#: they ended (a reader's ``outcomes``): only a proposal needs them, to name its support.
OutcomeLoader = Callable[[str], Sequence[tuple[str, bool]]]


@frozen
class Situation:
    """What the lifecycle reads about one signature: each approach's counts (the store's counts
    projection, ADR 0071), its policies and their procedures; ``load_outcomes`` for the support a
    proposal names and ``load_episodes`` for the few whole episodes a promotion reads."""

    namespace: str
    signature: str
    counts: Mapping[str, Counts]
    policies: tuple[PolicyState, ...]
    procedures: tuple[ProcedureState, ...]
    load_episodes: EpisodeLoader
    load_outcomes: OutcomeLoader
    #: The namespace's rate prior (``rule = "bayes"``; :func:`~hlmem.domain.experience_prior.fit_prior`).
    prior: RatePrior = DEFAULT_PRIOR

    @classmethod
    def of_episodes(cls, namespace: str, signature: str, episodes: Iterable[EpisodeState],
                    policies: Iterable[PolicyState], procedures: Iterable[ProcedureState],
                    prior: RatePrior = DEFAULT_PRIOR) -> Situation:
        """A situation over episodes already in hand (tests, in-process callers)."""
        held = {e.episode_id: e for e in episodes if e.signature == signature and e.namespace == namespace}
        counts = {key[2]: Counts(*row) for key, row in fold_counts(held.values()).items()}
        ordered = outcomes_of(held.values())
        return cls(namespace, signature, counts, tuple(policies), tuple(procedures),
                   lambda ids: {i: held[i] for i in ids if i in held},
                   lambda approach: [(o.episode_id, o.succeeded) for o in ordered if o.approach == approach], prior)

    @property
    def outcomes(self) -> int:
        """The situation's counted outcomes, every approach."""
        return sum(c.n for c in self.counts.values())


class _Plan:
    """Events decided so far, with the states they lead to (decisions read their own results)."""

    def __init__(self, situation: Situation, new_id: Callable[[str], str], now: datetime) -> None:
        self.events: list[DomainEvent] = []
        self.policies = {p.policy_id: p for p in situation.policies}
        self.procedures = {p.procedure_id: p for p in situation.procedures}
        self.situation = situation
        self.new_id = new_id
        self.now = now
        #: Policies whose latest episodes left no reusable steps this time (looked at once per end).
        self.no_source: set[str] = set()
        #: Per approach, the situation's counts: the plan's own events never change them.
        self.stats = {a: ApproachStats(a, c.successes, c.n) for a, c in sorted(situation.counts.items()) if c.n}

    def add(self, cls, stream_id: str, version: int, **payload) -> None:
        event = cls(event_id=self.new_id("lg"), stream_id=stream_id, version=version, recorded_at=self.now,
                    namespace=self.situation.namespace, **payload)
        self.events.append(event)
        if stream_id.startswith("po_"):
            self.policies[stream_id] = reduce_experience(self.policies.get(stream_id), event)
        else:
            self.procedures[stream_id] = reduce_experience(self.procedures.get(stream_id), event)

    def policy_event(self, cls, policy: PolicyState, **payload) -> PolicyState:
        self.add(cls, policy.policy_id, self.policies[policy.policy_id].version + 1, **payload)
        return self.policies[policy.policy_id]

    def active_procedures(self, policy_id: str) -> list[ProcedureState]:
        return [p for p in self.procedures.values() if p.policy_id == policy_id and p.status == "active"]

    def demote(self, policy_id: str, reason: str, episode_id: str | None = None) -> None:
        for proc in self.active_procedures(policy_id):
            self.add(ProcedureDemoted, proc.procedure_id, proc.version + 1, reason=reason, episode_id=episode_id)


def on_episode_end(situation: Situation, episode: EpisodeState, thresholds: PolicyThresholds, *,
                   new_id: Callable[[str], str], now: datetime) -> list[DomainEvent]:
    """Everything one ended episode changes in its situation: the outcome on the live policy of its
    approach (probation, retirement, procedure demotion or promotion), then induction."""
    plan = _Plan(situation, new_id, now)
    outcome = episode.succeeded
    if outcome is not None and episode.approach:
        for policy in sorted(plan.policies.values(), key=lambda p: p.policy_id):
            if policy.status in LIVE and policy.approach == episode.approach:
                _count(plan, policy, episode, thresholds)
    reviewed = ("candidate", "active") if thresholds.rule == "bayes" else ("candidate",)
    for policy in sorted(plan.policies.values(), key=lambda p: p.policy_id):
        if policy.status in reviewed:
            _review(plan, policy, thresholds, episode.episode_id)
    _induce(plan, thresholds)
    return plan.events


def induce(situation: Situation, thresholds: PolicyThresholds, *, new_id: Callable[[str], str],
           now: datetime) -> list[DomainEvent]:
    """Induction over one situation alone (``hlmem episode induce``): propose, outrank, promote."""
    plan = _Plan(situation, new_id, now)
    _induce(plan, thresholds)
    return plan.events


def _count(plan: _Plan, policy: PolicyState, episode: EpisodeState, t: PolicyThresholds) -> None:
    if any(e == episode.episode_id for e, _ in policy.recent):
        return
    ok = bool(episode.succeeded)
    policy = plan.policy_event(PolicyOutcomeRecorded, policy, episode_id=episode.episode_id, succeeded=ok)
    if policy.status == "active" and policy.streak >= t.retire_after:
        policy = plan.policy_event(PolicyRetired, policy, reason=f"{policy.streak} consecutive failures")
    if not ok or policy.status == "retired":
        plan.demote(policy.policy_id, "a failure after promotion" if not ok else "its policy retired",
                    episode.episode_id)
    _promote(plan, policy, t)


def _review(plan: _Plan, policy: PolicyState, t: PolicyThresholds, episode_id: str | None) -> None:
    """A live policy's review against its situation's other approaches: every candidate under either
    rule (ADR 0050), every active policy too under ``bayes`` (ADR 0066). Where only one approach was
    tried there is no comparison: a candidate is judged by the Wilson bar (ADR 0050's review with no
    lead), an active policy only by its streak."""
    counts = {a: (st.successes, st.n) for a, st in plan.stats.items()}
    waited = max(0, sum(n for _, n in counts.values()) - policy.proposed_outcomes)
    if t.rule == "bayes" and len(counts) > 1:
        review = review_policy(policy.approach, policy.status, plan.situation.counts, waited, plan.situation.prior,
                               probation=t.probation, min_confidence=t.min_confidence,
                               retire_confidence=t.retire_confidence)
    elif policy.status != "candidate":
        return  # one approach tried: nothing to compare, and an active policy answers to its streak alone
    else:
        counts[policy.approach] = (policy.successes, policy.support)
        review = review_candidate(policy.approach, counts, waited, probation=t.probation,  # type: ignore[assignment]
                                  min_reliability=t.min_reliability, z=t.z, retire_z=t.retire_z)
    if review.decision == ACTIVATE:
        policy = plan.policy_event(PolicyActivated, policy, reason=review.reason, statistics=review.statistics)
        _promote(plan, policy, t)
    elif review.decision == RETIRE:
        plan.policy_event(PolicyRetired, policy, reason=review.reason, statistics=review.statistics)
        plan.demote(policy.policy_id, "its policy retired", episode_id)


def _promote(plan: _Plan, policy: PolicyState, t: PolicyThresholds) -> None:
    if policy.status != "active" or policy.streak > 0 or plan.active_procedures(policy.policy_id):
        return  # a policy whose latest outcome failed waits for a success before its next version
    rel = reliability(policy, t)
    if policy.successes < t.procedure_min_successes or rel < t.procedure_min_reliability:
        return
    if policy.policy_id in plan.no_source:
        return
    source = _latest_win_with_steps(plan.situation, policy)
    if source is None:
        plan.no_source.add(policy.policy_id)
    else:
        number = 1 + max((p.number for p in plan.procedures.values() if p.policy_id == policy.policy_id), default=0)
        plan.add(ProcedurePromoted, plan.new_id("pd"), 1, policy_id=policy.policy_id, number=number,
                 steps=procedure_steps(source), source_episode=source.episode_id,
                 reason=f"{policy.successes} successes, reliability {rel:.2f}")


def _latest_win_with_steps(situation: Situation, policy: PolicyState) -> EpisodeState | None:
    """The most recently counted succeeded episode among ``policy``'s latest supporting episodes
    whose trace leaves reusable steps (at most :data:`RECENT_KEPT` loaded, whatever the record's length)."""
    wins = [e for e, ok in reversed(policy.recent) if ok]
    loaded = situation.load_episodes(wins) if wins else {}
    for episode_id in wins:
        source = loaded.get(episode_id)
        if source is not None and source.status == "succeeded" and procedure_steps(source):
            return source
    return None


def procedure_steps(episode: EpisodeState) -> tuple[str, ...]:
    """The reusable steps of a successful trace: failed steps dropped, repeats kept once, in order."""
    out: dict[str, str] = {}
    for step in episode.steps:
        if step.error or not step.action:
            continue
        text = f"{step.tool}: {step.action}" if step.tool else step.action
        out.setdefault(normalize_approach(text), text)
    return tuple(out.values())


def _induce(plan: _Plan, t: PolicyThresholds) -> None:
    situation = plan.situation
    retired = {p.approach: p for p in plan.policies.values() if p.status == "retired"}
    live = [p for p in plan.policies.values() if p.status in LIVE]
    all_stats = plan.stats
    # A retired policy returns only on fresh evidence: a success its support had not counted (its
    # support is some of the approach's counted episodes, so more successes counted than it holds).
    # Its record is then judged whole (a streak of failures, a lost lead count against it as before).
    stats = {a: s for a, s in all_stats.items() if a not in retired or s.successes > retired[a].successes}
    # One approach tried has nothing to be the best of: the absolute bar alone decides, under either rule.
    wilson = t.rule == "wilson" or len(all_stats) < 2
    best = _best(stats, all_stats, t) if wilson else _likely_best(stats, situation, t)
    if best is not None and not any(p.approach == best.approach for p in live):
        reason = f"{best.successes}/{best.n} succeeded, reliability {wilson_lower(best.successes, best.n, t.z):.2f}"
        if not wilson:
            reason += (f", confidence {standing(situation.counts, situation.prior).confidence(best.approach):.2f} "
                       "that it is the best approach")
        old = retired.get(best.approach)
        # Offline the situation is worded as its signature: no one episode's goal text (forgetting
        # that episode would otherwise leave its words in the policy).
        goal = situation.signature
        support = tuple(situation.load_outcomes(best.approach))
        outcomes = situation.outcomes  # probation counts the situation's outcomes from here
        if old is not None:
            plan.policy_event(PolicyProposed, old, signature=situation.signature, approach=best.approach,
                              situation=goal, support=support, reason=reason, situation_outcomes=outcomes)
            proposed = old.policy_id
        else:
            proposed = plan.new_id("po")
            plan.add(PolicyProposed, proposed, 1, signature=situation.signature, approach=best.approach,
                     situation=goal, support=support, reason=reason, situation_outcomes=outcomes)
        for other in live:
            plan.policy_event(PolicyRetired, other, reason=f"outranked by {proposed}")
            plan.demote(other.policy_id, "its policy was outranked")
        if t.probation == 0:
            _review(plan, plan.policies[proposed], t, None)
    for policy in sorted(plan.policies.values(), key=lambda p: p.policy_id):
        _promote(plan, policy, t)


def _best(stats: dict[str, ApproachStats], all_stats: dict[str, ApproachStats],
          t: PolicyThresholds) -> ApproachStats | None:
    """The approach induction may propose, or None (too little support, reliability or lead)."""
    if not stats:
        return None
    ranked = sorted(stats.values(), key=lambda s: (-wilson_lower(s.successes, s.n, t.z), -s.n, s.approach))
    best = ranked[0]
    rel = wilson_lower(best.successes, best.n, t.z)
    if best.n < t.min_support or rel < t.min_reliability:
        return None
    others = [s for a, s in all_stats.items() if a != best.approach]
    tried = sum(s.n for s in others)
    if tried and rel - sum(s.successes for s in others) / tried < t.min_lead:
        return None
    return best


def _likely_best(stats: dict[str, ApproachStats], situation: Situation, t: PolicyThresholds) -> ApproachStats | None:
    """``bayes``: the approach with the highest confidence, when it has ``min_support`` episodes and
    its confidence reaches ``min_confidence`` (a retired approach without a fresh success, left out
    of ``stats``, cannot be proposed however confident)."""
    st = standing(situation.counts, situation.prior)
    leader = st.leader
    if leader is None or leader not in stats:
        return None
    best = stats[leader]
    if best.n < t.min_support or st.confidence(leader) < t.min_confidence:
        return None
    return best


def live_policies(policies: Sequence[PolicyState]) -> list[PolicyState]:
    """The candidate and active policies among ``policies``."""
    return [p for p in policies if p.status in LIVE]
