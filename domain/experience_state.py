"""Projected states of the experience channel: episodes with their trace, policies, procedures.

Frozen values, built only by :mod:`hlmem.domain.experience_reducers`. A forgotten stream keeps
its structure (ids, times, version, counts) and loses its content, exactly what a replay of the
redacted log rebuilds.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import NamedTuple

from attrs import frozen

#: Statuses an episode ends in (``running`` until then; ``forgotten`` after a forget).
END_STATUSES = ("succeeded", "failed", "cancelled")
EPISODE_STATUSES = ("running", *END_STATUSES, "forgotten")
POLICY_STATUSES = ("candidate", "active", "retired", "forgotten")
PROCEDURE_STATUSES = ("active", "demoted", "forgotten")


@frozen
class Step:
    """One step of a trace: what was done, what came back, what it cost and was worth."""

    index: int
    action: str
    tool: str
    observation: str
    error: str
    cost: float
    value: float | None
    evidence: tuple[str, ...]
    occurred_at: datetime
    event_id: str


class EpisodeOutcome(NamedTuple):
    """What the policy lifecycle reads of one ended episode: which approach, and whether it worked.

    Readers list a situation's outcomes in the order the episodes ended (``ended_at``, then id),
    so the lifecycle never has to load whole episodes, with their traces, to count them. A named
    tuple rather than an attrs class: a situation's whole history is read at every end, and a
    tuple is built in a third of the time."""

    episode_id: str
    approach: str
    succeeded: bool


@frozen
class EpisodeState:
    """A task-level experience: one goal, its ordered steps and how it ended."""

    episode_id: str
    namespace: str
    goal: str
    signature: str
    context: str
    approach: str
    started_at: datetime
    recorded_at: datetime
    version: int
    status: str = "running"
    steps: tuple[Step, ...] = ()
    ended_at: datetime | None = None
    reward: float | None = None
    outcome: str = ""
    actor: str = "agent"

    @property
    def ended(self) -> bool:
        """Whether the episode is over (ended or forgotten)."""
        return self.status != "running"

    @property
    def succeeded(self) -> bool | None:
        """True or False for a succeeded or failed episode, None otherwise."""
        return {"succeeded": True, "failed": False}.get(self.status)

    @property
    def cost(self) -> float:
        """The steps' total cost."""
        return sum(s.cost for s in self.steps)


def outcomes_of(episodes: Iterable[EpisodeState]) -> tuple[EpisodeOutcome, ...]:
    """The outcomes the lifecycle counts among ``episodes``: succeeded or failed ones with an
    approach, in the order they ended (``ended_at``, then id). Cancelled, running and forgotten
    episodes count for nothing."""
    counted = sorted((e for e in episodes if e.approach and e.status in _COUNTED),
                     key=lambda e: (e.ended_at, e.episode_id))
    return tuple(EpisodeOutcome(e.episode_id, e.approach, e.status == "succeeded") for e in counted)


_COUNTED = frozenset(("succeeded", "failed"))


#: Supporting outcomes a policy keeps by id, newest last (its evidence in recall; promotion looks
#: among their successes for reusable steps). The whole support is the store's support links.
RECENT_KEPT = 16


@frozen
class PolicyState:
    """"In situation ``signature`` prefer ``approach``", with counts of the episodes that support it.

    The policy holds its statistics as counts, so that recording one more outcome costs the same
    however long its record is; which episodes support it is the store's support projection
    (``ExperienceReader.support_of``), and ``recent`` keeps the latest few by id."""

    policy_id: str
    namespace: str
    signature: str
    approach: str
    situation: str
    proposed_at: datetime
    version: int
    status: str = "candidate"
    #: Supporting episodes that succeeded and that failed.
    successes: int = 0
    failures: int = 0
    #: ``(episode_id, succeeded)`` of the latest supporting episodes (at most :data:`RECENT_KEPT`,
    #: fewer after a forget), in the order they were counted.
    recent: tuple[tuple[str, bool], ...] = ()
    #: Failures in a row at the end of the support.
    streak: int = 0
    changed_at: datetime | None = None
    reason: str = ""
    #: The situation's counted outcomes when it was (last) proposed: probation counts from here.
    proposed_outcomes: int = 0

    @property
    def support(self) -> int:
        """Supporting episodes (succeeded or failed)."""
        return self.successes + self.failures

    @property
    def recent_episodes(self) -> tuple[str, ...]:
        """The latest supporting episodes' ids, oldest first."""
        return tuple(e for e, _ in self.recent)


@frozen
class ProcedureState:
    """One promoted version of a policy's steps (the source episode's successful trace, de-duplicated)."""

    procedure_id: str
    namespace: str
    policy_id: str
    number: int
    steps: tuple[str, ...]
    source_episode: str
    promoted_at: datetime
    version: int
    status: str = "active"
    changed_at: datetime | None = None
    reason: str = ""
