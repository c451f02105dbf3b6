"""Tables of cases for the two clocks' time values: parsing, zones, half-open intervals, micros."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from hlmem.domain.errors import InvalidTimestamp, ValidationError
from hlmem.domain.time import (
    UTC,
    contains,
    format_timestamp,
    from_micros,
    parse_timestamp,
    require_aware,
    to_micros,
)

CST = timezone(timedelta(hours=8))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-03-01T09:30:00+08:00", datetime(2026, 3, 1, 1, 30, tzinfo=UTC)),
        ("2026-03-01T01:30Z", datetime(2026, 3, 1, 1, 30, tzinfo=UTC)),
        ("2026-03-01T01:30:00z", datetime(2026, 3, 1, 1, 30, tzinfo=UTC)),
        ("2026-03-01 09:30+08:00", datetime(2026, 3, 1, 1, 30, tzinfo=UTC)),
        ("2026-03-01T00:00:00-05:00", datetime(2026, 3, 1, 5, 0, tzinfo=UTC)),
        ("2026-03-01T01:30:00.123456Z", datetime(2026, 3, 1, 1, 30, 0, 123456, tzinfo=UTC)),
        ("  2026-03-01T01:30Z\n", datetime(2026, 3, 1, 1, 30, tzinfo=UTC)),
        ("2026-03-01", datetime(2026, 3, 1, tzinfo=UTC)),  # a bare date is the whole day from UTC midnight
    ],
    ids=["offset", "Z", "lower-z", "space", "negative-offset", "micros", "padded", "bare-date"],
)
def test_parse_timestamp_accepts(text: str, expected: datetime) -> None:
    parsed = parse_timestamp(text)
    assert parsed == expected
    assert parsed.utcoffset() == timedelta(0)  # always normalised to UTC


@pytest.mark.parametrize(
    "text",
    [
        "2026-03-01T09:30",
        "2026-03-01T09:30:00",
        "2026-03-01 09:30:00.5",
        "",
        "   ",
        "yesterday",
        "2026-13-01",
        "2026-02-30T00:00Z",
        "2026-03-01T25:00Z",
        "03/01/2026",
        "1700000000",
        "'; DROP TABLE events; --",
        "2026-03-01T09:30+8",
    ],
    ids=["naive-minutes", "naive-seconds", "naive-fraction", "empty", "blank", "word", "month-13", "feb-30",
         "hour-25", "us-format", "epoch", "sql", "short-offset"],
)
def test_parse_timestamp_refuses(text: str) -> None:
    with pytest.raises(InvalidTimestamp) as info:
        parse_timestamp(text, field="valid_from")
    assert info.value.field == "valid_from"
    assert "valid_from" in str(info.value)
    assert isinstance(info.value, ValidationError) and isinstance(info.value, ValueError)


def test_naive_timestamp_error_names_the_fix() -> None:
    with pytest.raises(InvalidTimestamp, match="no timezone"):
        parse_timestamp("2026-03-01T09:30")


@pytest.mark.parametrize("text", ["0001-01-01T00:00:00+08:00", "9999-12-31T23:59:59-08:00"])
def test_parse_timestamp_out_of_range_is_invalid(text: str) -> None:
    with pytest.raises(InvalidTimestamp):
        parse_timestamp(text)


@pytest.mark.parametrize("text", ["2026-03-01Z", "2026-03-01+08:00"])
def test_date_with_zone_is_parsed_or_refused_truthfully(text: str) -> None:
    try:
        parsed = parse_timestamp(text)
    except InvalidTimestamp as exc:
        assert "no timezone" not in str(exc), str(exc)
    else:
        assert parsed.tzinfo is not None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (datetime(2026, 3, 1, 9, 0, tzinfo=CST), datetime(2026, 3, 1, 1, 0, tzinfo=UTC)),
        (datetime(2026, 3, 1, 1, 0, tzinfo=UTC), datetime(2026, 3, 1, 1, 0, tzinfo=UTC)),
    ],
)
def test_require_aware_normalises_to_utc(value: datetime, expected: datetime) -> None:
    out = require_aware(value, field="t")
    assert out == expected and out.tzinfo == UTC


@pytest.mark.parametrize("value", [datetime(2026, 3, 1), "2026-03-01T00:00Z", 1_700_000_000, None])
def test_require_aware_refuses_naive_and_non_datetimes(value: object) -> None:
    with pytest.raises(InvalidTimestamp) as info:
        require_aware(value, field="occurred_at")  # type: ignore[arg-type]
    assert info.value.field == "occurred_at"


T = datetime(2026, 3, 1, tzinfo=UTC)
H = timedelta(hours=1)


@pytest.mark.parametrize(
    ("start", "end", "instant", "inside"),
    [
        (T, T + H, T, True),  # the start is inside
        (T, T + H, T + H, False),  # the end is outside (half-open)
        (T, T + H, T - timedelta(microseconds=1), False),
        (T, None, T + 1000 * H, True),  # open end
        (T, T + H, T + H / 2, True),
    ],
    ids=["start", "end", "before", "open", "middle"],
)
def test_contains_is_half_open(start: datetime, end: datetime | None, instant: datetime, inside: bool) -> None:
    assert contains(start, end, instant) is inside


@pytest.mark.parametrize(
    "value",
    [T, T + timedelta(microseconds=1), datetime(1970, 1, 1, tzinfo=UTC), datetime(1969, 12, 31, 23, 59, tzinfo=UTC),
     datetime(2026, 3, 1, 9, 0, 0, 999999, tzinfo=CST)],
)
def test_micros_round_trip_exactly(value: datetime) -> None:
    assert from_micros(to_micros(value)) == value


def test_micros_preserve_order() -> None:
    earlier, later = T, T + timedelta(microseconds=1)
    assert to_micros(earlier) < to_micros(later)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, None),
        (T, "2026-03-01T00:00:00.000000Z"),
        (datetime(2026, 3, 1, 9, 0, tzinfo=CST), "2026-03-01T01:00:00.000000Z"),
    ],
)
def test_format_timestamp(value: datetime | None, text: str | None) -> None:
    assert format_timestamp(value) == text
    if value is not None:
        assert parse_timestamp(text) == value  # type: ignore[arg-type]
