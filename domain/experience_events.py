"""Events of the experience channel (docs/experience.md, ADR 0045): episodes, policies, procedures.

They share the one log and envelope with the fact channel's events (:mod:`hlmem.domain.events`).
Every event is about its own stream: an episode (``ep_…``) holds its start, steps and end; a
policy (``po_…``) its proposal, outcomes and status changes; a procedure (``pd_…``) one promoted
version of a policy's steps. :func:`redact_experience` is what forgetting keeps of each payload.
"""

from __future__ import annotations

from datetime import datetime

from attrs import evolve, frozen

from hlmem.domain.events import DomainEvent

#: Stream prefixes of the experience channel.
EPISODE, POLICY, PROCEDURE = "ep", "po", "pd"


@frozen(kw_only=True)
class EpisodeStarted(DomainEvent):
    """An agent began working towards one goal; ``signature`` is the goal's normalised trigger."""

    goal: str
    signature: str
    context: str = ""
    approach: str = ""
    started_at: datetime
    actor: str = "agent"


@frozen(kw_only=True)
class StepRecorded(DomainEvent):
    """One step of an episode's trace, in order (``index`` from 1)."""

    index: int
    action: str
    tool: str = ""
    observation: str = ""
    error: str = ""
    cost: float = 0.0
    value: float | None = None
    evidence: tuple[str, ...] = ()
    occurred_at: datetime


@frozen(kw_only=True)
class EpisodeEnded(DomainEvent):
    """The episode finished: ``succeeded``, ``failed`` or ``cancelled``, with its reward 0..1."""

    status: str
    reward: float | None = None
    outcome: str = ""
    approach: str = ""
    ended_at: datetime


@frozen(kw_only=True)
class PolicyProposed(DomainEvent):
    """Induction found that in situation ``signature`` approach ``approach`` works: a candidate.

    ``support`` holds ``(episode_id, succeeded)`` for every ended episode of that signature and
    approach the statistics counted; ``situation`` is a goal to show (one of the support's).
    """

    signature: str
    approach: str
    situation: str = ""
    support: tuple[tuple[str, bool], ...] = ()
    reason: str = ""
    #: The situation's ended (succeeded/failed) episodes at the proposal: probation counts from here.
    situation_outcomes: int = 0


@frozen(kw_only=True)
class PolicyOutcomeRecorded(DomainEvent):
    """Another episode of the policy's situation and approach ended (success or failure)."""

    episode_id: str
    succeeded: bool


@frozen(kw_only=True)
class PolicyActivated(DomainEvent):
    """The candidate passed probation: recall offers it. ``statistics``: the review's numbers
    (``domain/experience_review.py``, ADR 0050) as ``(name, value)`` pairs."""

    reason: str = ""
    statistics: tuple[tuple[str, float], ...] = ()


@frozen(kw_only=True)
class PolicyRetired(DomainEvent):
    """The policy stopped being offered (consecutive failures, failed probation, outranked);
    a failed probation carries the review's numbers in ``statistics``."""

    reason: str = ""
    statistics: tuple[tuple[str, float], ...] = ()


@frozen(kw_only=True)
class PolicySupportForgotten(DomainEvent):
    """Some of the policy's supporting episodes were forgotten; it survives on the rest.

    ``succeeded`` says, for each of ``episodes``, whether it had succeeded, and ``streak`` is the
    failures in a row left at the end of the support, so the policy's counts follow from the event
    alone (ADR 0071). An event written before them has neither (``()`` and None): the stores
    complete it from their support links before reducing it
    (:func:`hlmem.domain.experience_counts.complete_support_forgotten`)."""

    episodes: tuple[str, ...] = ()
    cascade_of: str | None = None
    succeeded: tuple[bool, ...] = ()
    streak: int | None = None


@frozen(kw_only=True)
class ProcedurePromoted(DomainEvent):
    """A policy that stayed reliable became reusable steps (version ``number`` of its procedure)."""

    policy_id: str
    number: int
    steps: tuple[str, ...]
    source_episode: str
    reason: str = ""


@frozen(kw_only=True)
class ProcedureDemoted(DomainEvent):
    """The procedure failed after promotion (or its policy retired): no longer offered."""

    reason: str = ""
    episode_id: str | None = None


EXPERIENCE_EVENT_TYPES: tuple[type[DomainEvent], ...] = (
    EpisodeStarted, StepRecorded, EpisodeEnded, PolicyProposed, PolicyOutcomeRecorded, PolicyActivated,
    PolicyRetired, PolicySupportForgotten, ProcedurePromoted, ProcedureDemoted,
)


def is_experience_stream(stream_id: str) -> bool:
    """Whether a stream id belongs to the experience channel."""
    return stream_id[:3] in ("ep_", "po_", "pd_")


def redact_experience(event: DomainEvent) -> DomainEvent:
    """The event with its content blank (ids, times, counts and statuses stay)."""
    if isinstance(event, EpisodeStarted):
        return evolve(event, goal="", signature="", context="", approach="")
    if isinstance(event, StepRecorded):
        return evolve(event, action="", tool="", observation="", error="", evidence=())
    if isinstance(event, EpisodeEnded):
        return evolve(event, outcome="", approach="")
    if isinstance(event, PolicyProposed):
        return evolve(event, signature="", approach="", situation="", reason="")
    if isinstance(event, ProcedurePromoted):
        return evolve(event, steps=(), reason="")
    if isinstance(event, (PolicyRetired, PolicyActivated, ProcedureDemoted)):
        return evolve(event, reason="")
    return event
