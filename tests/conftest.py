"""Shared pytest set-up: Hypothesis profiles (chosen by ``HYPOTHESIS_PROFILE``) and a fixed clock.

Profiles:

- ``default`` (CI and local runs): moderate example counts, no deadline (SQLite and jieba have
  cold starts that would trip Hypothesis' per-example deadline and make the suite flaky);
- ``thorough`` (nightly or before a release): ``HYPOTHESIS_PROFILE=thorough pytest tests/stateful``.

Seeds: every run draws one fresh Hypothesis seed (shared by its pytest-xdist workers) (unless ``--hypothesis-seed=N`` is given) and
prints it in the header and again after any failure, so a failure seen in CI output replays
with ``pytest --hypothesis-seed=N`` (same profile, same tests). Both profiles also print the
``@reproduce_failure`` blob of a failing example (exact for the same Hypothesis version).
"""

from __future__ import annotations

import os
import random
from datetime import datetime, timezone

import pytest
from hypothesis import HealthCheck, settings

from hlmem.adapters.clock import FixedClock

settings.register_profile(
    "default",
    max_examples=40,
    stateful_step_count=30,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough",
    max_examples=500,
    stateful_step_count=60,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))



@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Give the run a seed before Hypothesis' own plugin reads ``--hypothesis-seed``: a
    pytest-xdist worker takes the one its controller drew (and printed), so one seed replays all."""
    given = getattr(config, "workerinput", {}).get("hypothesis_seed")
    if given is not None:
        config.option.hypothesis_seed = given
    elif config.getoption("hypothesis_seed", default=None) is None:
        config.option.hypothesis_seed = str(random.SystemRandom().randrange(2**32))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:  # noqa: ANN001 - pytest-xdist's WorkerController
    """The controller's seed travels to each pytest-xdist worker (``workerinput``)."""
    node.workerinput["hypothesis_seed"] = node.config.getoption("hypothesis_seed", default=None)


#: The folders whose modules are handed to the workers first (``--dist loadscope`` schedules the
#: modules in collection order): the long ones (state machines, processes, servers) start at once,
#: and the tail of a parallel run is many short unit tests instead of one long module.
_SLOW_FIRST = ("stateful", "e2e", "integration", "contract")


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    """Slow folders first (a stable sort: the order inside each folder and module is kept)."""
    here = _Path(__file__).resolve().parent

    def rank(item) -> int:  # noqa: ANN001 - a pytest Item
        try:
            folder = _Path(item.path).resolve().relative_to(here).parts[0]
        except ValueError:
            return len(_SLOW_FIRST)
        return _SLOW_FIRST.index(folder) if folder in _SLOW_FIRST else len(_SLOW_FIRST)

    items.sort(key=rank)


def _seed_line(config: pytest.Config) -> str:
    seed = config.getoption("hypothesis_seed", default=None)
    profile = os.environ.get("HYPOTHESIS_PROFILE", "default")
    env = "" if profile == "default" else f"HYPOTHESIS_PROFILE={profile} "
    return f"hypothesis seed {seed} (replay: {env}pytest --hypothesis-seed={seed} <the failing test>)"


def pytest_report_header(config: pytest.Config) -> str:
    """The seed, first thing in the output."""
    return _seed_line(config)


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    """The seed again after a failure, next to the failures' summary."""
    if terminalreporter.stats.get("failed") or terminalreporter.stats.get("error"):
        terminalreporter.write_line(_seed_line(config))


@pytest.fixture(autouse=True)
def _no_real_config(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """No test reads the developer's config: the user config dir is an empty temporary one and
    ``HLMEM_CONFIG`` is unset (a test that wants a config file writes one and names it)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("user-config")))
    monkeypatch.delenv("HLMEM_CONFIG", raising=False)


#: The instant every fixed clock in the tests starts at (a Sunday, in UTC).
T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)


@pytest.fixture
def fixed_clock() -> FixedClock:
    """A clock standing at :data:`T0`; tests move it with ``advance``/``set``, never by sleeping."""
    return FixedClock(T0)


# The PostgreSQL test server (issue 18): a session server and a fresh database per test that asks
# for ``postgres_url`` (tests/support/postgres.py, ADR 0047).
import sys as _sys  # noqa: E402
from pathlib import Path as _Path  # noqa: E402

if str(_Path(__file__).resolve().parent) not in _sys.path:
    _sys.path.insert(0, str(_Path(__file__).resolve().parent))
from support.postgres import postgres_admin_url, postgres_url  # noqa: E402, F401 - fixtures
