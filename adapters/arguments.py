"""Arguments of the Python facade as the domain takes them: times parsed and aware, enums by value."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from hlmem.domain.errors import ValidationError
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


def enum_value(kind: type, value: Any, field: str) -> Any:
    """The member of ``kind`` with this value (or the member itself).

    :raises ValidationError: naming every allowed value.
    """
    try:
        return kind(value)
    except ValueError:
        allowed = ", ".join(m.value for m in kind)
        raise ValidationError(f"{field} {value!r} must be one of {allowed}", field=field) from None
