"""WorkerConfig: the window defaults (ADR 0013) and the validation of the window settings."""

from __future__ import annotations

import math

import pytest

from hlmem.application.worker import WorkerConfig
from hlmem.domain.errors import ConfigurationError


def test_the_window_defaults_are_eight_events_120_s_idle_600_s_oldest() -> None:
    config = WorkerConfig()
    assert (config.window_size, config.window_idle_seconds, config.window_max_seconds) == (8, 120.0, 600.0)


@pytest.mark.parametrize(("name", "value"), [
    ("window_size", 0), ("window_size", -1), ("window_size", 2.5), ("window_size", True), ("window_size", "8"),
    ("window_idle_seconds", -1), ("window_idle_seconds", math.nan), ("window_idle_seconds", "120"),
    ("window_idle_seconds", None), ("window_max_seconds", -0.5), ("window_max_seconds", False),
])
def test_invalid_window_settings_are_refused_at_construction_and_on_assignment(name: str, value: object) -> None:
    with pytest.raises(ConfigurationError, match=name):
        WorkerConfig(**{name: value})
    config = WorkerConfig()
    with pytest.raises(ConfigurationError, match=name):
        setattr(config, name, value)


@pytest.mark.parametrize(("name", "value"), [
    ("window_size", 1), ("window_idle_seconds", 0), ("window_idle_seconds", math.inf), ("window_max_seconds", 0.5),
])
def test_edge_values_are_accepted(name: str, value: object) -> None:
    assert getattr(WorkerConfig(**{name: value}), name) == value
