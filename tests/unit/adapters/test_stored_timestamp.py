"""Stored timestamps are read by a fast path (ADR 0086) that agrees with ``parse_timestamp``."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hlmem.adapters.serialization import _stored_timestamp
from hlmem.domain.errors import InvalidTimestamp
from hlmem.domain.time import MAX_TIME, MIN_TIME, format_timestamp, parse_timestamp


@given(st.datetimes(min_value=MIN_TIME.replace(tzinfo=None), max_value=MAX_TIME.replace(tzinfo=None),
                    timezones=st.just(timezone.utc)))
def test_what_format_timestamp_writes_reads_back_as_parse_timestamp_reads_it(when: datetime) -> None:
    text = format_timestamp(when)
    fast, slow = _stored_timestamp(text), parse_timestamp(text)
    assert fast == slow == when
    assert fast.tzinfo is slow.tzinfo and fast.utcoffset() == slow.utcoffset()


@pytest.mark.parametrize("text", ["2026-03-01T09:30:00+08:00", "2026-03-01", "2026-03-01T09:30:00.000000z",
                                  "2026-03-01T01:30Z"])
def test_other_shapes_go_through_parse_timestamp(text: str) -> None:
    assert _stored_timestamp(text) == parse_timestamp(text)


@pytest.mark.parametrize("text", ["2026-13-01T09:30:00.000000Z", "2026-03-01T09:30:00.00000xZ", "", None])
def test_a_damaged_stored_timestamp_is_refused_as_before(text: str | None) -> None:
    with pytest.raises(InvalidTimestamp):
        _stored_timestamp(text)
