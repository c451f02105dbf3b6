"""Time values of the two clocks: validation of instants and half-open intervals ``[start, end)``."""

from __future__ import annotations

import functools
import re
from datetime import datetime, timedelta, timezone

from hlmem.domain.errors import InvalidTimestamp

UTC = timezone.utc
_DATE_WITH_ZONE = re.compile(r"^(\d{4}-\d{2}-\d{2})([+-]\d{2}:?\d{2})$")

#: The instants hlmem accepts as input (the clock, event and valid times, query times):
#: ``[MIN_TIME, MAX_TIME)``. Python's datetimes reach years 1 to 9999; leaving a millennium of
#: headroom on each side means no time computed from an accepted one (a lease, a backoff, a TTL,
#: a restricted horizon, a retention cut-off, a resolved "next year"), each at most
#: :data:`MAX_OFFSET`, can overflow half-way through a command.
MIN_TIME = datetime(1000, 1, 1, tzinfo=UTC)
MAX_TIME = datetime(9000, 1, 1, tzinfo=UTC)
#: The longest duration a setting may add to or subtract from an instant (leases, TTLs, retention).
MAX_OFFSET = timedelta(days=100 * 366)


def require_aware(value: datetime, *, field: str) -> datetime:
    """Return ``value`` in UTC; refuse naive datetimes (a time without a zone is ambiguous).

    :param value: the datetime to check.
    :param field: the input's name, for the error.
    :raises InvalidTimestamp: when ``value`` has no timezone.
    """
    if not isinstance(value, datetime):
        raise InvalidTimestamp(f"{field}: expected a datetime, got {type(value).__name__}", field=field)
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        raise InvalidTimestamp(
            f"{field}: timestamp {value.isoformat()} has no timezone; add one (e.g. +08:00 or Z)",
            field=field,
        )
    try:
        utc = value.astimezone(UTC)
    except OverflowError:
        utc = None
    return require_supported(utc, field=field, shown=value.isoformat())


def require_supported(value: datetime | None, *, field: str, shown: str | None = None) -> datetime:
    """Return the aware ``value`` if it lies in ``[MIN_TIME, MAX_TIME)``; refuse it otherwise.

    :param value: an aware instant (None: it could not even be converted to UTC).
    :param field: the input's name, for the error.
    :param shown: how the input was written, for the error (default: ``value`` in ISO 8601).
    :raises InvalidTimestamp: when ``value`` is outside the supported range.
    """
    if value is None or not MIN_TIME <= value < MAX_TIME:
        raise InvalidTimestamp(
            f"{field}: {shown or value.isoformat()} is outside the supported range "  # type: ignore[union-attr]
            f"(from {MIN_TIME:%Y-%m-%d} up to, not including, {MAX_TIME:%Y-%m-%d}, UTC)", field=field)
    return value


def parse_timestamp(text: str, *, field: str = "timestamp") -> datetime:
    """Parse an ISO 8601 timestamp *with* a timezone, or a bare date (taken as 00:00 UTC).

    Accepted: ``2026-03-01T09:30:00+08:00``, ``2026-03-01T01:30Z``, ``2026-03-01 09:30+08:00``,
    ``2026-03-01`` (a whole day, UTC midnight). Refused: a date-time without a zone.

    :raises InvalidTimestamp: on anything else.
    """
    raw = (text or "").strip()
    if not raw:
        raise InvalidTimestamp(f"{field}: empty timestamp", field=field)
    candidate = raw[:-1] + "+00:00" if raw.endswith(("Z", "z")) else raw
    # A date with a zone but no time ("2026-03-01+08:00"): that zone's midnight. Python 3.11's
    # fromisoformat would read the date and silently drop the offset.
    dated = _DATE_WITH_ZONE.match(candidate)
    if dated:
        candidate = f"{dated.group(1)}T00:00:00{dated.group(2)}"
    try:
        parsed = datetime.fromisoformat(candidate)
    except (ValueError, OverflowError):
        raise InvalidTimestamp(
            f"{field}: cannot parse {raw!r}; use ISO 8601 with a timezone, e.g. 2026-03-01T09:30:00+08:00",
            field=field,
        ) from None
    if parsed.tzinfo is None:
        if len(raw) == 10:  # a bare date names a whole day; UTC keeps it unambiguous
            return parsed.replace(tzinfo=UTC)
        raise InvalidTimestamp(
            f"{field}: {raw!r} has no timezone; add one (e.g. {raw}+08:00 or {raw}Z)", field=field
        )
    try:
        return parsed.astimezone(UTC)
    except OverflowError:
        raise InvalidTimestamp(f"{field}: {raw!r} is out of range", field=field) from None


@functools.lru_cache(maxsize=4_096)
def format_timestamp(value: datetime | None) -> str | None:
    """Render a UTC instant as ISO 8601 with microseconds and ``Z`` (sortable as text)."""
    if value is None:
        return None
    v = value if value.tzinfo is UTC else value.astimezone(UTC)
    # f-string formatting is ~4x faster than strftime, and this runs for every stored event.
    return (f"{v.year:04d}-{v.month:02d}-{v.day:02d}T{v.hour:02d}:{v.minute:02d}:{v.second:02d}."
            f"{v.microsecond:06d}Z")


def contains(start: datetime, end: datetime | None, instant: datetime) -> bool:
    """Whether ``instant`` lies in the half-open interval ``[start, end)``; ``end=None`` is open."""
    return start <= instant and (end is None or instant < end)


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@functools.lru_cache(maxsize=4_096)
def to_micros(value: datetime) -> int:
    """Microseconds since the Unix epoch (exact, for indexed columns)."""
    delta = value.astimezone(UTC) - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_micros(value: int) -> datetime:
    """Inverse of :func:`to_micros`."""
    return EPOCH + timedelta(microseconds=value)
