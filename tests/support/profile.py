"""The test profile: the default run (the README's ``pytest``, a few minutes on 2 cores) or the
thorough one (``HYPOTHESIS_PROFILE=thorough pytest``: 500 examples per property, longer state
machine runs, and the load tests at full size: more clients, more writer processes, CPU burners).

A load test reads its size here, so one switch makes every heavier check heavier; the default
sizes still race what they are meant to race (several processes or clients at once).
"""

from __future__ import annotations

import os

#: Whether this run is the thorough profile (tests/conftest.py loads the Hypothesis profile).
THOROUGH = os.environ.get("HYPOTHESIS_PROFILE", "default") == "thorough"


def sized(default: int, thorough: int) -> int:
    """``thorough`` under the thorough profile, else ``default``."""
    return thorough if THOROUGH else default
