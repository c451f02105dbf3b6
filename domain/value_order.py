"""Which of one slot's values a question asks for: time and supersede state order them (pure; ADR 0060).

Words tell recall *which* slot a question is about; they cannot tell which of that slot's values it
wants. "我现在主要用深色模式。" shares more words with "用户现在用什么主题？" than "暂时换成浅色模式"
does, yet it is the change that answers. So between the values of one slot (its claims, and the
verbatim events that are their evidence) the order is decided here, from the question's time
(:class:`Asked`) and each claim's validity as known at ``known_at``:

- :attr:`Wanted.NOW` (a present-tense or tense-neutral question, an "as of" date, an explicit
  ``valid_at``): the values holding at ``valid_at``, then those planned after it, then past
  values (the most recently ended first), then values never believed (retracted).
- :attr:`Wanted.BEFORE` (之前/以前/used to/previously): past values, the one that ended last first
  (the value just before the current one); then the current ones.
- :attr:`Wanted.EARLIEST` (一开始/originally): every value by when it began, the first first.
- :attr:`Wanted.DURING` (a day or period named: "3月15日那会儿", "in mid-March"): the values that held
  in the period, the one that held longest in it first; then the others, nearest first.

An event's key is the best key of the claims citing it (:func:`event_key`); an event is *history*
(:func:`is_history`) when it cites claims and each of them ended by ``valid_at`` or was retracted:
what was said then, not what holds.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from datetime import datetime

from attrs import frozen

from hlmem.domain.state import ClaimState, ClaimStatus, ClaimVersion
from hlmem.domain.time import contains

#: A sort key: lower is asked for first. (class, then a number within the class).
Key = tuple[int, float]

#: Classes of a key (the first element).
ASKED, NEXT, LATER, NEVER = 0, 1, 2, 3


class Wanted(str, enum.Enum):
    """Which value of a slot a question wants."""

    NOW = "now"
    BEFORE = "before"
    EARLIEST = "earliest"
    DURING = "during"


@frozen
class Asked:
    """The time a question asks about: ``valid_at`` as known at ``known_at``; ``window`` for DURING
    (``[start, end)``, a side None when open)."""

    wanted: Wanted
    valid_at: datetime
    known_at: datetime
    window: tuple[datetime | None, datetime | None] | None = None


def believed(claim: ClaimState, known_at: datetime) -> tuple[ClaimVersion, ...]:
    """The rows of ``claim`` believed at ``known_at`` (none when retracted or forgotten by then)."""
    if claim.status is ClaimStatus.FORGOTTEN:
        return ()
    return tuple(v for v in claim.versions if contains(v.recorded_from, v.recorded_to, known_at))


def holds(claim: ClaimState, valid_at: datetime, known_at: datetime) -> bool:
    """Whether ``claim`` held at ``valid_at`` as known at ``known_at``."""
    return any(contains(v.valid_from, v.valid_to, valid_at) for v in believed(claim, known_at))


def claim_key(claim: ClaimState, asked: Asked) -> Key:
    """Where ``claim`` stands among its slot's values for ``asked`` (lower first; see the module)."""
    rows = believed(claim, asked.known_at)
    if not rows:
        return (NEVER, 0.0)
    start = min(v.valid_from for v in rows)
    ends = [v.valid_to for v in rows]
    end = None if None in ends else max(e for e in ends if e is not None)
    at = asked.valid_at
    if asked.wanted is Wanted.EARLIEST:
        return (ASKED, start.timestamp())
    if asked.wanted is Wanted.DURING and asked.window is not None:
        return _during(start, end, asked.window, at)
    now = any(contains(v.valid_from, v.valid_to, at) for v in rows)
    past = end is not None and end <= at
    if asked.wanted is Wanted.BEFORE:
        if past:
            return (ASKED, -end.timestamp())  # type: ignore[union-attr]
        return (NEXT, 0.0) if now else (LATER, start.timestamp())
    if now:
        return (ASKED, 0.0)
    if start > at:
        return (NEXT, start.timestamp())  # planned: after what holds, before what ended
    return (LATER, -end.timestamp()) if end is not None else (LATER, 0.0)


def _during(start: datetime, end: datetime | None, window: tuple[datetime | None, datetime | None],
            at: datetime) -> Key:
    """A claim valid over ``[start, end)`` against a period: the longer it held in it, the better;
    outside it, the nearer the better. Open sides of the period end at the claim's own bounds and
    at ``at`` (the present)."""
    lo = window[0] if window[0] is not None else start
    hi = window[1] if window[1] is not None else at
    top = hi if end is None else min(end, hi)
    overlap = (top - max(start, lo)).total_seconds()
    if overlap > 0:
        return (ASKED, -overlap)
    gap = (start - hi).total_seconds() if start >= hi else (lo - (end or lo)).total_seconds()
    return (NEXT, gap)


def event_key(keys: Iterable[Key]) -> Key | None:
    """An event's key: the best of the keys of the claims citing it (None: it cites no claim)."""
    return min(keys, default=None)


def is_history(claims: Iterable[ClaimState], valid_at: datetime, known_at: datetime) -> bool:
    """Whether an event citing ``claims`` (forgotten ones left out) records only values of the past
    at ``valid_at``: it cites at least one, and each ended by then (superseded, expired) or was
    retracted. A value planned for later is not history."""
    asked = Asked(Wanted.NOW, valid_at, known_at)
    keys = [claim_key(c, asked) for c in claims if c.status is not ClaimStatus.FORGOTTEN]
    return bool(keys) and all(k[0] in (LATER, NEVER) for k in keys)
