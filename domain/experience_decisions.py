"""Commands of the experience channel and the pure decisions that turn them into events.

``StartEpisode`` → :class:`EpisodeStarted`; ``RecordStep`` → :class:`StepRecorded` (only on a
running episode, citing only live events); ``EndEpisode`` → :class:`EpisodeEnded` (once, with a
reward in 0..1). Every problem of a command is reported at once (an ``ExceptionGroup`` of
:class:`ValidationError`); a refused command appends nothing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from datetime import datetime

from attrs import frozen

from hlmem.domain.commands import _raise_all, _text_problems, check_namespace
from hlmem.domain.errors import DomainRuleViolation, NotFound, ValidationError
from hlmem.domain.evidence import check_evidence
from hlmem.domain.experience_events import EpisodeEnded, EpisodeStarted, StepRecorded
from hlmem.domain.experience_signature import approach_of, has_words, normalize_approach, trigger_signature
from hlmem.domain.experience_state import END_STATUSES, EpisodeState
from hlmem.domain.state import ObservationState
from hlmem.domain.time import require_aware

MAX_GOAL_CHARS = 2_000
MAX_ACTION_CHARS = 4_000
MAX_OBSERVATION_CHARS = 32_000
MAX_SHORT_CHARS = 500
#: Most steps one episode may hold.
MAX_STEPS = 10_000
#: Most events one step may cite.
MAX_STEP_EVIDENCE = 64

EPISODE_ID_RE = re.compile(r"^ep_[0-9A-Za-z]{1,64}$")


class EpisodeEndedError(DomainRuleViolation):
    """A step or an end for an episode that has already ended."""


@frozen(kw_only=True)
class StartEpisode:
    """Begin an episode towards ``goal``; ``context`` (a tool, an error signature) refines the situation."""

    goal: str
    namespace: str = "default"
    context: str = ""
    approach: str = ""
    started_at: datetime | None = None
    actor: str = "agent"


@frozen(kw_only=True)
class RecordStep:
    """Append one step to a running episode's trace."""

    episode_id: str
    action: str
    tool: str = ""
    observation: str = ""
    error: str = ""
    cost: float = 0.0
    value: float | None = None
    evidence: tuple[str, ...] = ()
    occurred_at: datetime | None = None


@frozen(kw_only=True)
class EndEpisode:
    """Finish a running episode."""

    episode_id: str
    status: str
    reward: float | None = None
    outcome: str = ""
    approach: str = ""


def _optional_text(value: object, field: str, limit: int) -> list[ValidationError]:
    if value in (None, ""):
        return []
    return _text_problems(value, field, limit)


def _number(value: object, field: str, low: float | None, high: float | None) -> list[ValidationError]:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return [ValidationError(f"{field} must be a finite number, not {value!r}", field=field)]
    if (low is not None and value < low) or (high is not None and value > high):
        span = f"{low:g}..{high:g}" if high is not None else f"at least {low:g}"
        return [ValidationError(f"{field} must be {span}, not {value:g}", field=field)]
    return []


def _time(value: datetime | None, field: str, problems: list[ValidationError]) -> datetime | None:
    if value is None:
        return None
    try:
        return require_aware(value, field=field)
    except ValidationError as exc:
        problems.append(exc)
        return None


def check_episode_id(episode_id: object) -> str:
    """The id stripped, or a :class:`ValidationError` for anything not ``ep_…``."""
    text = episode_id.strip() if isinstance(episode_id, str) else ""
    if not EPISODE_ID_RE.match(text):
        raise ValidationError(f"{episode_id!r} is not an episode id (ep_…)", field="episode_id")
    return text


def decide_start(cmd: StartEpisode, *, episode_id: str, event_id: str, now: datetime) -> EpisodeStarted:
    """The episode's first event, or every problem of the command at once."""
    problems = _text_problems(cmd.goal, "goal", MAX_GOAL_CHARS) + check_namespace(cmd.namespace)
    problems += _optional_text(cmd.context, "context", MAX_SHORT_CHARS)
    problems += _optional_text(cmd.approach, "approach", MAX_SHORT_CHARS)
    problems += _text_problems(cmd.actor, "actor", 64)
    started = _time(cmd.started_at, "started_at", problems)
    _raise_all(problems, "episode")
    if not has_words(cmd.goal):
        raise ValidationError("the goal has no words left once numbers, paths, ids, quoted text and punctuation "
                              "are set aside", field="goal")
    signature = trigger_signature(cmd.goal, cmd.context or "")
    return EpisodeStarted(event_id=event_id, stream_id=episode_id, version=1, recorded_at=now,
                          namespace=cmd.namespace, goal=cmd.goal.strip(), signature=signature,
                          context=(cmd.context or "").strip(), approach=normalize_approach(cmd.approach),
                          started_at=started or now, actor=cmd.actor.strip())


def _running(episode: EpisodeState | None, episode_id: str, what: str) -> EpisodeState:
    if episode is None:
        raise NotFound(f"no episode {episode_id}")
    if episode.ended:
        raise EpisodeEndedError(f"episode {episode_id} has already ended ({episode.status}); cannot {what}")
    return episode


def decide_step(cmd: RecordStep, episode: EpisodeState | None, cited: Mapping[str, ObservationState], *,
                event_id: str, now: datetime) -> StepRecorded:
    """The next step of a running episode; refuses an unknown or ended episode and unusable evidence."""
    problems = _text_problems(cmd.action, "action", MAX_ACTION_CHARS)
    problems += _optional_text(cmd.tool, "tool", MAX_SHORT_CHARS)
    problems += _optional_text(cmd.observation, "observation", MAX_OBSERVATION_CHARS)
    problems += _optional_text(cmd.error, "error", MAX_SHORT_CHARS)
    problems += _number(cmd.cost, "cost", 0.0, None)
    if cmd.value is not None:
        problems += _number(cmd.value, "value", -1.0, 1.0)
    if len(cmd.evidence) > MAX_STEP_EVIDENCE:
        problems.append(ValidationError(f"a step cites at most {MAX_STEP_EVIDENCE} events", field="evidence"))
    bad = [e for e in cmd.evidence if not (isinstance(e, str) and e.startswith("ev_"))]
    if bad:
        problems.append(ValidationError(f"evidence must be event ids (ev_…), not {bad[:3]!r}", field="evidence"))
    occurred = _time(cmd.occurred_at, "occurred_at", problems)
    _raise_all(problems, "step")
    state = _running(episode, cmd.episode_id, "record a step")
    if len(state.steps) >= MAX_STEPS:
        raise DomainRuleViolation(f"episode {cmd.episode_id} already holds {MAX_STEPS} steps")
    evidence = tuple(dict.fromkeys(e.strip() for e in cmd.evidence))
    check_evidence(evidence, cited, what=f"step {len(state.steps) + 1} of {cmd.episode_id}")
    return StepRecorded(event_id=event_id, stream_id=state.episode_id, version=state.version + 1, recorded_at=now,
                        namespace=state.namespace, index=len(state.steps) + 1, action=cmd.action.strip(),
                        tool=(cmd.tool or "").strip(), observation=cmd.observation or "",
                        error=(cmd.error or "").strip(), cost=float(cmd.cost),
                        value=None if cmd.value is None else float(cmd.value), evidence=evidence,
                        occurred_at=occurred or now)


def decide_end(cmd: EndEpisode, episode: EpisodeState | None, *, event_id: str, now: datetime) -> EpisodeEnded:
    """The episode's end; refuses an unknown or ended episode, another status, a reward outside 0..1."""
    problems: list[ValidationError] = []
    if cmd.status not in END_STATUSES:
        problems.append(ValidationError(f"an episode ends {', '.join(END_STATUSES)}, not {cmd.status!r}",
                                        field="status"))
    if cmd.reward is not None:
        problems += _number(cmd.reward, "reward", 0.0, 1.0)
    problems += _optional_text(cmd.outcome, "outcome", MAX_OBSERVATION_CHARS)
    problems += _optional_text(cmd.approach, "approach", MAX_SHORT_CHARS)
    _raise_all(problems, "episode end")
    state = _running(episode, cmd.episode_id, "end it again")
    approach = normalize_approach(cmd.approach) or state.approach or approach_of(
        [s.tool or s.action for s in state.steps if not s.error])
    return EpisodeEnded(event_id=event_id, stream_id=state.episode_id, version=state.version + 1, recorded_at=now,
                        namespace=state.namespace, status=cmd.status,
                        reward=None if cmd.reward is None else float(cmd.reward), outcome=(cmd.outcome or "").strip(),
                        approach=approach, ended_at=max(now, state.started_at))


#: A function making new ids with a prefix (the IdGenerator port's ``new``).
NewId = Callable[[str], str]
