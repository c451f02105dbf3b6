"""The supported range of instants, and the bounded offsets that keep every computed time inside
Python's calendar: nothing a command computes from an accepted time can overflow half-way."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from hlmem.adapters.clock import FixedClock
from hlmem.application.extraction.prompt import parse_extraction
from hlmem.domain.temporal import resolve
from hlmem.application.maintenance import MaintenanceConfig
from hlmem.application.worker import WorkerConfig
from hlmem.domain.candidates import CandidateClaim, SourceEvent
from hlmem.domain.commands import AssertClaim, RecordObservation, validate_claim, validate_observation
from hlmem.domain.errors import ConfigurationError, InvalidTimestamp
from hlmem.domain.lifecycle import LifecyclePolicy, parse_duration
from hlmem.domain.provenance import restrict
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY
from hlmem.domain.time import MAX_OFFSET, MAX_TIME, MIN_TIME, require_aware, require_supported

UTC = timezone.utc
LAST = MAX_TIME - timedelta(microseconds=1)


@pytest.mark.parametrize("at", [MIN_TIME, LAST, datetime(2026, 3, 1, tzinfo=UTC),
                                datetime(1000, 1, 1, 8, tzinfo=timezone(timedelta(hours=8)))])
def test_the_supported_range_is_half_open(at: datetime) -> None:
    assert require_aware(at, field="now") == at


@pytest.mark.parametrize("at", [MAX_TIME, MIN_TIME - timedelta(microseconds=1), datetime.max.replace(tzinfo=UTC),
                                datetime.min.replace(tzinfo=UTC), datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC),
                                datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=8)))])
def test_outside_it_is_refused_with_the_range_named(at: datetime) -> None:
    with pytest.raises(InvalidTimestamp, match=r"now: .* outside the supported range \(from 1000-01-01 up to"):
        require_aware(at, field="now")


def test_the_headroom_covers_every_bounded_offset() -> None:
    # The invariant the bounds below rely on: an accepted instant +/- MAX_OFFSET is still a datetime.
    assert LAST + MAX_OFFSET < datetime.max.replace(tzinfo=UTC)
    assert MIN_TIME - MAX_OFFSET > datetime.min.replace(tzinfo=UTC)
    with pytest.raises(InvalidTimestamp):
        require_supported(None, field="x", shown="year 10000")


def test_a_fixed_clock_refuses_to_leave_the_range_and_stays_put() -> None:
    clock = FixedClock(LAST - timedelta(seconds=1))
    with pytest.raises(InvalidTimestamp, match="now"):
        clock.advance(timedelta(seconds=2))
    with pytest.raises(InvalidTimestamp, match="now"):
        clock.advance(timedelta(days=999_999_999))
    assert clock.now() == LAST - timedelta(seconds=1)
    with pytest.raises(InvalidTimestamp):
        FixedClock(datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC))


@pytest.mark.parametrize("field", ["valid_from", "valid_to"])
@pytest.mark.parametrize("at", [datetime(9999, 12, 31, tzinfo=UTC), datetime(1, 1, 1, tzinfo=UTC)])
def test_commands_refuse_extreme_valid_times(field: str, at: datetime) -> None:
    cmd = AssertClaim(subject="u", predicate="works_in", value="x", **{field: at})
    with pytest.raises((InvalidTimestamp, ExceptionGroup)) as caught:
        validate_claim(cmd, DEFAULT_REGISTRY)
    assert "outside the supported range" in str(caught.value) + "".join(
        str(e) for e in getattr(caught.value, "exceptions", ()))


def test_an_observation_refuses_an_extreme_occurred_time() -> None:
    with pytest.raises((InvalidTimestamp, ExceptionGroup)):
        validate_observation(RecordObservation(text="hi", occurred_at=datetime(9999, 12, 31, tzinfo=UTC)))


@pytest.mark.parametrize("name", ["lease_seconds", "backoff_base_seconds", "backoff_max_seconds",
                                  "maintenance_interval_seconds"])
@pytest.mark.parametrize("value", [float("inf"), MAX_OFFSET.total_seconds() + 1, -1, float("nan")])
def test_worker_offsets_are_bounded(name: str, value: float) -> None:
    with pytest.raises(ConfigurationError, match=name):
        WorkerConfig(**{name: value})


def test_worker_offsets_accept_their_bound() -> None:
    assert WorkerConfig(lease_seconds=MAX_OFFSET.total_seconds()).lease_seconds == MAX_OFFSET.total_seconds()


@pytest.mark.parametrize("value", [MAX_OFFSET + timedelta(days=1), "99999999999d", 1e300])
def test_lifecycle_durations_are_bounded(value: object) -> None:
    with pytest.raises(ConfigurationError, match="temporal_ttl"):
        LifecyclePolicy.from_mapping({"temporal_ttl": value})
    with pytest.raises(ConfigurationError):
        parse_duration(value, "temporal_ttl") if not isinstance(value, timedelta) else \
            LifecyclePolicy(archive_grace=value)


def test_maintenance_retention_is_bounded() -> None:
    with pytest.raises(ConfigurationError, match="ledger_retention"):
        MaintenanceConfig(ledger_retention=MAX_OFFSET + timedelta(days=1))


@pytest.mark.parametrize("text", ["9999年", "9999年12月", "0000年", "December 9999", "2026-13-45"])
def test_time_words_past_the_calendar_are_not_understood(text: str) -> None:
    assert resolve(text, datetime(2026, 3, 1, tzinfo=UTC)) is None


def test_restrict_at_the_calendars_end_does_not_overflow() -> None:
    start = datetime(9999, 12, 31, tzinfo=UTC)
    cand = restrict(CandidateClaim(subject="Alice", predicate="p", value="v", valid_from=start))
    assert (cand.valid_from, cand.valid_to) == (start, None)  # validation refuses it next


def test_a_models_year_9999_end_means_no_end() -> None:
    event = SourceEvent(event_id="ev_1", text="I live in Lisbon", role="user", session_id="s",
                        origin_class="direct_user", session_kind="interactive",
                        occurred_at=datetime(2026, 3, 1, tzinfo=UTC))
    answer = {"claims": [{"event": 1, "subject": "user", "predicate": "lives_in", "value": "Lisbon",
                          "qualifiers": [], "polarity": True, "importance": 0.8, "scope": "permanent",
                          "valid_from": "2026-03-01", "valid_to": "9999-12-31", "evidence_quote": "I live in Lisbon"}]}
    (cand,) = parse_extraction(answer, [event])
    assert cand.valid_to is None
