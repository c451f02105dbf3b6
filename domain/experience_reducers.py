"""Pure reducers of the experience channel: ``reduce_experience(state, event) -> state``.

Like :mod:`hlmem.domain.reducers`, they never raise on an event already in the log, read no
clock and do no I/O; the decisions (:mod:`hlmem.domain.experience_decisions`,
:mod:`hlmem.domain.experience_policy`) refuse bad commands before anything is appended. Every
experience event is about its own stream, so each adapter loads one state, applies this and
writes it back.
"""

from __future__ import annotations

from functools import singledispatch

from attrs import evolve

from hlmem.domain.events import DomainEvent, ItemForgotten
from hlmem.domain.experience_events import (
    EpisodeEnded,
    EpisodeStarted,
    PolicyActivated,
    PolicyOutcomeRecorded,
    PolicyProposed,
    PolicyRetired,
    PolicySupportForgotten,
    ProcedureDemoted,
    ProcedurePromoted,
    StepRecorded,
    is_experience_stream,
)
from hlmem.domain.experience_counts import trailing_failures
from hlmem.domain.experience_state import RECENT_KEPT, EpisodeState, PolicyState, ProcedureState, Step

ExperienceState = EpisodeState | PolicyState | ProcedureState


def touches_experience(event: DomainEvent) -> bool:
    """Whether ``event`` changes an experience projection."""
    return is_experience_stream(event.stream_id)


def reduce_experience(state: ExperienceState | None, event: DomainEvent) -> ExperienceState | None:
    """The stream's state after ``event`` (None stays None for an event that creates nothing)."""
    return _on(event, state)


@singledispatch
def _on(event: DomainEvent, state):
    # An event this reducer does not handle only moves the version: replay never fails.
    return state if state is None else evolve(state, version=event.version)


@_on.register
def _started(event: EpisodeStarted, state):
    return EpisodeState(
        episode_id=event.stream_id, namespace=event.namespace, goal=event.goal, signature=event.signature,
        context=event.context, approach=event.approach, started_at=event.started_at,
        recorded_at=event.recorded_at, version=event.version, actor=event.actor)


@_on.register
def _step(event: StepRecorded, state):
    if not isinstance(state, EpisodeState):
        return state
    step = Step(index=event.index, action=event.action, tool=event.tool, observation=event.observation,
                error=event.error, cost=event.cost, value=event.value, evidence=event.evidence,
                occurred_at=event.occurred_at, event_id=event.event_id)
    return evolve(state, steps=(*state.steps, step), version=event.version)


@_on.register
def _ended(event: EpisodeEnded, state):
    if not isinstance(state, EpisodeState):
        return state
    return evolve(state, status=event.status, reward=event.reward, outcome=event.outcome,
                  approach=event.approach or state.approach, ended_at=event.ended_at, version=event.version)


@_on.register
def _proposed(event: PolicyProposed, state):
    support = tuple(dict.fromkeys((e, bool(ok)) for e, ok in event.support))
    successes = sum(1 for _, ok in support if ok)
    base = dict(signature=event.signature, approach=event.approach, situation=event.situation,
                successes=successes, failures=len(support) - successes, recent=support[-RECENT_KEPT:],
                status="candidate", streak=trailing_failures(ok for _, ok in support), changed_at=event.recorded_at,
                reason=event.reason, version=event.version, proposed_outcomes=event.situation_outcomes)
    if isinstance(state, PolicyState):
        return evolve(state, **base)
    return PolicyState(policy_id=event.stream_id, namespace=event.namespace, proposed_at=event.recorded_at, **base)


@_on.register
def _outcome(event: PolicyOutcomeRecorded, state):
    if not isinstance(state, PolicyState):
        return state
    if any(e == event.episode_id for e, _ in state.recent):
        return evolve(state, version=event.version)
    ok = bool(event.succeeded)
    return evolve(state, successes=state.successes + ok, failures=state.failures + (not ok),
                  recent=(*state.recent, (event.episode_id, ok))[-RECENT_KEPT:], streak=0 if ok else state.streak + 1,
                  version=event.version)


def _moved(event, state, kind: type, status: str):
    """A policy's or procedure's status change (a tombstone or another kind of state only takes the version)."""
    if not isinstance(state, kind) or state.status == "forgotten":
        return state if state is None else evolve(state, version=event.version)
    return evolve(state, status=status, changed_at=event.recorded_at, reason=event.reason, version=event.version)


@_on.register
def _activated(event: PolicyActivated, state):
    return _moved(event, state, PolicyState, "active")


@_on.register
def _retired(event: PolicyRetired, state):
    return _moved(event, state, PolicyState, "retired")


@_on.register
def _support_forgotten(event: PolicySupportForgotten, state):
    # The event says which outcomes go and the streak left (ADR 0071); the stores complete an
    # older event from their support links before it reaches here.
    if not isinstance(state, PolicyState):
        return state
    lost = sum(1 for ok in event.succeeded if ok)
    gone = set(event.episodes)
    return evolve(state, successes=max(0, state.successes - lost),
                  failures=max(0, state.failures - (len(event.succeeded) - lost)),
                  recent=tuple(r for r in state.recent if r[0] not in gone),
                  streak=state.streak if event.streak is None else event.streak, version=event.version)


@_on.register
def _promoted(event: ProcedurePromoted, state):
    return ProcedureState(procedure_id=event.stream_id, namespace=event.namespace, policy_id=event.policy_id,
                          number=event.number, steps=event.steps, source_episode=event.source_episode,
                          promoted_at=event.recorded_at, version=event.version, changed_at=event.recorded_at,
                          reason=event.reason)


@_on.register
def _demoted(event: ProcedureDemoted, state):
    return _moved(event, state, ProcedureState, "demoted")


@_on.register
def _forgotten(event: ItemForgotten, state):
    # A tombstone keeps structure only; every field redaction blanks is blank here too, so a
    # replay of the redacted log ends in exactly this state.
    if isinstance(state, EpisodeState):
        steps = tuple(evolve(s, action="", tool="", observation="", error="", evidence=()) for s in state.steps)
        return evolve(state, goal="", signature="", context="", approach="", outcome="", steps=steps,
                      status="forgotten", version=event.version)
    if isinstance(state, PolicyState):
        return evolve(state, signature="", approach="", situation="", reason="", successes=0, failures=0,
                      recent=(), streak=0, status="forgotten", changed_at=event.recorded_at, version=event.version)
    if isinstance(state, ProcedureState):
        return evolve(state, steps=(), reason="", status="forgotten", changed_at=event.recorded_at,
                      version=event.version)
    return state

