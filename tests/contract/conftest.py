"""Makes tests/support importable for the contract suites in any import mode (tests/ has no __init__.py).

The suites share their store fixture and adapter mix-ins through ``support.stores`` (ADR 0028).
"""

from __future__ import annotations

import sys
from pathlib import Path

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)
