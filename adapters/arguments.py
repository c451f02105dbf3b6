"""Arguments of the Python facade as the domain takes them: aware times, enums by value, forget targets."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from hlmem.domain.errors import ValidationError
from hlmem.domain.forgetting import ForgetTarget, target_for_id
from hlmem.domain.time import parse_timestamp, require_aware

#: A time as callers give it: an aware datetime, an ISO 8601 string, or None (the default).
Timestamp = datetime | str | None


def when(value: Timestamp, field: str) -> datetime | None:
    """``value`` as an aware datetime (None stays None).

    :raises InvalidTimestamp: unparseable, timezone-less or out of range.
    """
    if value is None:
        return None
    if isinstance(value, str):
        return parse_timestamp(value, field=field)
    return require_aware(value, field=field)


def local_when(value: Timestamp, field: str) -> datetime | None:
    """:func:`when`, checked the same way but kept in the zone it was given in (a recall's reference
    time: its days and months are the caller's, docs/recall.md)."""
    checked = when(value, field)
    if checked is None:
        return None
    return parse_timestamp(value, field=field) if isinstance(value, str) else value


def enum_value(kind: type, value: Any, field: str) -> Any:
    """The member of ``kind`` with this value (or the member itself).

    :raises ValidationError: naming every allowed value.
    """
    try:
        return kind(value)
    except ValueError:
        allowed = ", ".join(m.value for m in kind)
        raise ValidationError(f"{field} {value!r} must be one of {allowed}", field=field) from None


def forget_target(item_id: str | None, session: str | None, subject: str | None, namespace: str) -> ForgetTarget:
    """What ``forget`` was asked to forget: exactly one of an id, a session or a subject.

    :raises ValidationError: none or several were given.
    """
    given = [v for v in (item_id, session, subject) if v is not None]
    if len(given) != 1:
        raise ValidationError("forget takes exactly one of an id, session= or subject=", field="target")
    if item_id is not None:
        return target_for_id(item_id, namespace)
    if session is not None:
        return ForgetTarget("session", session, namespace)
    return ForgetTarget("subject", str(subject), namespace)
