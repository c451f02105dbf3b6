"""benchmarks/experience_policies.py reports the Bayes oracle on each run's own final counts."""

from __future__ import annotations

import json
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))

import experience_ceiling as ceiling  # noqa: E402
import experience_policies as bench  # noqa: E402


def test_each_run_reports_the_oracle_on_its_own_world(capsys) -> None:
    bench.main(["--episodes", "240", "--task-types", "6", "--noise-types", "2", "--seed", "5",
                "--best-low", "0.95", "--best-high", "0.95", "--other-low", "0.05", "--other-high", "0.05"])
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    oracle = summary["oracle"]
    assert [o["threshold"] for o in oracle] == list(ceiling.THRESHOLDS)
    assert all(0 <= o["best_named"] <= 4 and 0 <= o["noise_flagged"] <= 2 for o in oracle)
    # ~40 episodes a type, 0.95 against 0.05: the oracle names every real type at p >= 0.9
    assert oracle[ceiling.THRESHOLDS.index(0.9)] == {"threshold": 0.9, "best_named": 4, "noise_flagged": 0}
    assert all(a["best_named"] >= b["best_named"] for a, b in zip(oracle, oracle[1:]))


def test_the_oracle_knows_the_runs_world() -> None:
    args = bench.argparse.Namespace(approaches=4, best_low=0.7, best_high=0.9, other_low=0.1, other_high=0.3,
                                    noise_low=0.4, noise_high=0.6, flip=0.1, noise_types=3, task_types=12)
    assert bench.world_of(args) == ceiling.World(4, (0.7, 0.9), (0.1, 0.3), (0.4, 0.6), 0.1, 0.25)
