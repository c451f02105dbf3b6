"""Natural lifecycle as pure functions: when a claim expires (TTL), how its activation decays, when it is archived.

Formulas and defaults are documented in ``docs/lifecycle.md`` (ADR 0015). Nothing here reads a
clock: every function takes ``now`` or returns an instant. Decay changes how easily a claim is
recalled (an archived claim leaves normal recall); it never changes its confidence or truth.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

from attrs import field, fields, frozen

from hlmem.domain.errors import ConfigurationError, DomainRuleViolation, NotFound
from hlmem.domain.events import ClaimArchived, ClaimExpired, ClaimRevived, Scope
from hlmem.domain.slots import normalize_predicate
from hlmem.domain.state import ClaimState, ClaimStatus
from hlmem.domain.time import MAX_OFFSET

#: Lifecycle classes: each has its own half-life.
TEMPORAL, PERMANENT, IDENTITY = "temporal", "permanent", "identity"

#: Reason codes (``ClaimExpired.reason``, ``ClaimArchived.reason``, ``ClaimRevived.reason``).
TTL_VALID_TO = "ttl.valid_to_passed"
TTL_PLAN = "ttl.plan_passed"
TTL_TEMPORAL = "ttl.temporal_ttl"
DECAY_BELOW_FLOOR = "decay.below_floor"
REVIVE_CORROBORATED = "corroborated"
REVIVE_EXPLICIT = "explicit"
REASON_CODES = (TTL_VALID_TO, TTL_PLAN, TTL_TEMPORAL, DECAY_BELOW_FLOOR, REVIVE_CORROBORATED, REVIVE_EXPLICIT)

#: Who someone *is* rather than what they do (from the slot catalogue, plus native language).
IDENTITY_PREDICATES = frozenset({"name", "birthday", "hometown", "native_language", "father", "mother",
                                 "sibling", "child"})
#: Predicates that hold a dated plan (the rule extractor emits ``plan``).
PLAN_PREDICATES = frozenset({"plan", "schedule", "appointment"})

NewId = Callable[[str], str]


def _positive(_instance: object, attribute: Any, value: timedelta | None) -> None:
    if value is not None and (not isinstance(value, timedelta) or not timedelta(0) < value <= MAX_OFFSET):
        raise ConfigurationError(f"LifecyclePolicy.{attribute.name} must be a positive duration of at most "
                                 f"{MAX_OFFSET.days} days, not {value!r}")


def _not_negative(_instance: object, attribute: Any, value: timedelta) -> None:
    if not isinstance(value, timedelta) or not timedelta(0) <= value <= MAX_OFFSET:
        raise ConfigurationError(f"LifecyclePolicy.{attribute.name} must be a duration >= 0 of at most "
                                 f"{MAX_OFFSET.days} days, not {value!r}")


def _weight(_instance: object, attribute: Any, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
        raise ConfigurationError(f"LifecyclePolicy.{attribute.name} must be a number >= 0, not {value!r}")


def _floor(_instance: object, attribute: Any, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise ConfigurationError(f"LifecyclePolicy.{attribute.name} must be between 0 and 1 (exclusive), not {value!r}")


def _names(value: Any) -> frozenset[str]:
    if isinstance(value, str):
        value = value.split(",")
    return frozenset(normalize_predicate(v) for v in value if str(v).strip())


@frozen(kw_only=True)
class LifecyclePolicy:
    """Every lifecycle threshold, with its default (``docs/lifecycle.md`` explains each).

    TTL: a closed ``valid_to`` ends an active claim when it passes; a plan without one ends
    ``plan_grace`` after it starts; an open temporal claim ends ``temporal_ttl × (0.5 +
    importance)`` after its ``valid_from``. Decay: activation ``importance × 2^(−age / h)`` with
    ``h`` the class half-life grown by accesses and helpful feedback; identity claims do not
    decay when ``half_life_identity`` is None. Archive: ``archive_grace`` after the activation
    fell below ``activation_floor``.
    """

    plan_predicates: frozenset[str] = field(default=PLAN_PREDICATES, converter=_names)
    plan_grace: timedelta = field(default=timedelta(days=1), validator=_not_negative)
    temporal_ttl: timedelta = field(default=timedelta(days=14), validator=_positive)
    identity_predicates: frozenset[str] = field(default=IDENTITY_PREDICATES, converter=_names)
    half_life_temporal: timedelta = field(default=timedelta(days=7), validator=_positive)
    half_life_permanent: timedelta = field(default=timedelta(days=90), validator=_positive)
    half_life_identity: timedelta | None = field(default=None, validator=_positive)
    access_weight: float = field(default=1.0, validator=_weight)
    feedback_weight: float = field(default=1.0, validator=_weight)
    activation_floor: float = field(default=0.1, validator=_floor)
    archive_grace: timedelta = field(default=timedelta(days=14), validator=_not_negative)

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> LifecyclePolicy:
        """A policy from configuration: durations as ``timedelta``, seconds, or ``"14d"``/``"12h"``/``"30m"``/``"90s"``.

        :raises ConfigurationError: for an unknown key or a bad value.
        """
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise ConfigurationError(f"unknown lifecycle setting(s): {', '.join(unknown)}")
        out: dict[str, Any] = {}
        for key, value in values.items():
            durational = key in ("plan_grace", "temporal_ttl", "archive_grace") or key.startswith("half_life_")
            out[key] = parse_duration(value, key) if durational and value is not None else value
        return cls(**out)


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}


def parse_duration(value: Any, name: str = "duration") -> timedelta:
    """``timedelta``, a number of seconds, or a string like ``"14d"``, ``"12h"``, ``"1.5d"``."""
    if isinstance(value, timedelta):
        return value
    try:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            return timedelta(seconds=value)
        if isinstance(value, str):
            m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*", value.lower())
            if m:
                return timedelta(seconds=float(m[1]) * _UNITS[m[2] or "s"])
    except OverflowError:  # more days than a timedelta holds: the policy's own bound says why
        raise ConfigurationError(f"{name} must be at most {MAX_OFFSET.days} days, not {value!r}") from None
    raise ConfigurationError(f"{name} must be a duration (seconds, or like '14d', '12h'), not {value!r}")


@frozen
class Activity:
    """How a claim has been used: last access, access count, and feedback counts."""

    last_access: datetime | None = None
    accesses: int = 0
    positive: int = 0
    negative: int = 0


def activity_of(claim: ClaimState, accessed: Activity | None) -> Activity:
    """The claim's activity: recorded accesses plus the feedback counts its state holds."""
    base = accessed or Activity()
    return Activity(base.last_access, base.accesses, base.positive + claim.helpful, base.negative + claim.unhelpful)


@frozen
class Expiry:
    """When a claim stops being valid by the lifecycle rules, and why."""

    at: datetime
    reason: str


def lifecycle_class(claim: ClaimState, policy: LifecyclePolicy) -> str:
    """``temporal`` for temporal scope, else ``identity`` for identity predicates, else ``permanent``."""
    if claim.scope is Scope.TEMPORAL:
        return TEMPORAL
    return IDENTITY if normalize_predicate(claim.predicate) in policy.identity_predicates else PERMANENT


def temporal_ttl(importance: float, policy: LifecyclePolicy) -> timedelta:
    """The TTL of an open temporal claim: ``temporal_ttl × (0.5 + importance)`` (importance in [0, 1])."""
    return policy.temporal_ttl * (0.5 + min(max(importance, 0.0), 1.0))


def expiry_of(claim: ClaimState, policy: LifecyclePolicy) -> Expiry | None:
    """When an *active* claim expires, and why; None when it never does (a permanent open fact).

    A closed ``valid_to`` wins (the stated end); a plan without one ends ``plan_grace`` after it
    starts; an open temporal claim ends its TTL after ``valid_from``.
    """
    row = claim.current_version
    if claim.status is not ClaimStatus.ACTIVE or row is None:
        return None
    plan = normalize_predicate(claim.predicate) in policy.plan_predicates
    if row.valid_to is not None:
        return Expiry(row.valid_to, TTL_PLAN if plan else TTL_VALID_TO)
    if plan:
        return Expiry(row.valid_from + policy.plan_grace, TTL_PLAN)
    if claim.scope is Scope.TEMPORAL:
        return Expiry(row.valid_from + temporal_ttl(claim.importance, policy), TTL_TEMPORAL)
    return None


def expiry(claim: ClaimState, policy: LifecyclePolicy) -> datetime | None:
    """When an active claim expires (None: never, or not active)."""
    found = expiry_of(claim, policy)
    return found.at if found else None


def reinforced_at(claim: ClaimState, activity: Activity) -> datetime:
    """Where decay starts: the last access, or when the claim was recorded."""
    if activity.last_access is not None and activity.last_access > claim.recorded_at:
        return activity.last_access
    return claim.recorded_at


def half_life(claim: ClaimState, activity: Activity, policy: LifecyclePolicy) -> timedelta | None:
    """The class half-life × ``max(1, 1 + a·ln(1+accesses) + f·ln(1+helpful) − f·ln(1+unhelpful))``.

    None: the claim does not decay (identity, by default). Unhelpful feedback cancels
    reinforcement but never makes a claim fade faster than an untouched one.
    """
    cls = lifecycle_class(claim, policy)
    base = {TEMPORAL: policy.half_life_temporal, PERMANENT: policy.half_life_permanent,
            IDENTITY: policy.half_life_identity}[cls]
    if base is None:
        return None
    growth = (1 + policy.access_weight * math.log1p(max(activity.accesses, 0))
              + policy.feedback_weight * (math.log1p(max(activity.positive, 0)) - math.log1p(max(activity.negative, 0))))
    return base * max(1.0, growth)


def activation(claim: ClaimState, activity: Activity, now: datetime, policy: LifecyclePolicy) -> float:
    """``importance × 2^(−max(0, now − reinforced_at) / half_life)``; importance itself if it never decays."""
    start = min(max(claim.importance, 0.0), 1.0)
    h = half_life(claim, activity, policy)
    if h is None:
        return start
    age = max((now - reinforced_at(claim, activity)).total_seconds(), 0.0)
    return start * 2.0 ** (-age / h.total_seconds())


def below_floor_at(claim: ClaimState, activity: Activity, policy: LifecyclePolicy) -> datetime | None:
    """When activation reaches the floor, in closed form: ``reinforced_at + h·log2(importance / floor)``.

    Activation only falls between accesses, so from then on it stays below the floor until the
    next access (which moves ``reinforced_at``). None when the claim never decays.
    """
    h = half_life(claim, activity, policy)
    if h is None:
        return None
    start = min(max(claim.importance, 0.0), 1.0)
    r = reinforced_at(claim, activity)
    if start <= policy.activation_floor:
        return r
    try:
        return r + h * math.log2(start / policy.activation_floor)
    except OverflowError:  # beyond the calendar: never
        return None


def archive_at(claim: ClaimState, activity: Activity, policy: LifecyclePolicy) -> datetime | None:
    """When the claim is archived if nothing touches it: ``archive_grace`` after it fell below the floor."""
    if claim.archived or claim.status is ClaimStatus.FORGOTTEN:
        return None
    crossed = below_floor_at(claim, activity, policy)
    if crossed is None:
        return None
    try:
        return crossed + policy.archive_grace
    except OverflowError:
        return None


# -- decisions: events, never mutation --------------------------------------------------------------


def decide_expire(claim: ClaimState, *, now: datetime, policy: LifecyclePolicy, new_id: NewId,
                  actor: str = "system") -> ClaimExpired | None:
    """A ``ClaimExpired`` when the active claim's expiry has passed at ``now``, else None."""
    found = expiry_of(claim, policy)
    if found is None or found.at > now:
        return None
    return ClaimExpired(event_id=new_id("lg"), stream_id=claim.claim_id, version=claim.version + 1,
                        recorded_at=now, namespace=claim.namespace, valid_to=found.at, reason=found.reason,
                        actor=actor)


def decide_archive(claim: ClaimState, activity: Activity, *, now: datetime, policy: LifecyclePolicy,
                   new_id: NewId, actor: str = "system") -> ClaimArchived | None:
    """A ``ClaimArchived`` when the claim stayed below the floor for the grace period by ``now``."""
    due = archive_at(claim, activity, policy)
    if due is None or due > now:
        return None
    return ClaimArchived(event_id=new_id("lg"), stream_id=claim.claim_id, version=claim.version + 1,
                         recorded_at=now, namespace=claim.namespace,
                         activation=round(activation(claim, activity, now, policy), 6),
                         reason=DECAY_BELOW_FLOOR, actor=actor)


def decide_revive(claim: ClaimState | None, claim_id: str, *, reason: str, actor: str, new_id: NewId,
                  recorded_at: datetime) -> ClaimRevived:
    """Bring an archived claim back into normal recall.

    :raises NotFound: no such claim.
    :raises DomainRuleViolation: the claim was forgotten, or is not archived.
    """
    if claim is None:
        raise NotFound(f"no claim {claim_id}")
    if claim.status is ClaimStatus.FORGOTTEN:
        raise DomainRuleViolation(f"claim {claim_id} was forgotten: there is nothing to revive")
    if not claim.archived:
        raise DomainRuleViolation(f"claim {claim_id} is not archived")
    return ClaimRevived(event_id=new_id("lg"), stream_id=claim_id, version=claim.version + 1,
                        recorded_at=recorded_at, namespace=claim.namespace, reason=reason or REVIVE_EXPLICIT,
                        actor=actor)
