"""numba's disk cache of the compiled Hamming pass (ADR 0022) still serves the next process after
the kernel moved to ``adapters/vectors/`` (ADR 0030): a second process loads it, compiling nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hlmem.adapters.vectors import hamming

pytestmark = pytest.mark.skipif(not hamming.compiled_available(), reason="numba is not installed (extra: fast)")

RUN = """
import json
import numpy as np
from hlmem.adapters.vectors import _hamming_numba, hamming
codes = np.zeros((2, 8), dtype=np.uint64)
rows = hamming.nearest(codes, np.zeros(2, dtype=np.uint64), 8, 2, 129, None,
                       {"dist": np.empty(8, dtype=np.uint64)}, compiled=True)
stats = _hamming_numba.nearest.stats
print(json.dumps({"rows": len(rows), "hits": sum(stats.cache_hits.values()),
                  "misses": sum(stats.cache_misses.values())}))
"""


def run(cache: Path) -> dict[str, int]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    env.pop("HLMEM_NUMBA", None)
    done = subprocess.run([sys.executable, "-c", RUN], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_second_process_loads_the_compiled_pass_from_the_disk_cache(tmp_path: Path) -> None:
    first = run(tmp_path)
    assert first == {"rows": 2, "hits": 0, "misses": 1}
    assert any(p.name.startswith("_hamming_numba.nearest") for p in tmp_path.rglob("*.nbi"))
    assert run(tmp_path) == {"rows": 2, "hits": 1, "misses": 0}
