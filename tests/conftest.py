"""Shared pytest set-up: Hypothesis profiles (chosen by ``HYPOTHESIS_PROFILE``) and a fixed clock.

Profiles:

- ``default`` (CI and local runs): moderate example counts, no deadline (SQLite and jieba have
  cold starts that would trip Hypothesis' per-example deadline and make the suite flaky);
- ``thorough`` (nightly or before a release): ``HYPOTHESIS_PROFILE=thorough pytest tests/stateful``.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone

import pytest
from hypothesis import HealthCheck, settings

from hlmem.adapters.clock import FixedClock

settings.register_profile(
    "default",
    max_examples=40,
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough",
    max_examples=500,
    stateful_step_count=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

#: The instant every fixed clock in the tests starts at (a Sunday, in UTC).
T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)


@pytest.fixture
def fixed_clock() -> FixedClock:
    """A clock standing at :data:`T0`; tests move it with ``advance``/``set``, never by sleeping."""
    return FixedClock(T0)
