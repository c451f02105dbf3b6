"""What any policy rule could reach on the experience benchmark's world: the Bayes oracle.

``experience_policies.py`` asks hlmem's lifecycle to name each real task type's best approach
with an active policy, and to give no noise-only type a policy. This script answers a prior
question: how much of that does the evidence allow at all, to a rule that *knows the world*?

The oracle knows everything the benchmark's generator knows except the draw: the ranges the
success rates come from, the label flip probability, the number of approaches, the share of
noise-only types. Given one type's final counts (successes and trials per approach) it computes
the exact posterior probability that the type is a real one whose best approach is ``a``
(``posterior``), and names ``a`` when that probability reaches a threshold. For a given data set
no rule can do better in expectation: sweeping the threshold traces the best trade-off between
types named and noise-only types given a policy (Neyman-Pearson). hlmem's lifecycle knows none of
the ranges, so the oracle is an upper bound on it, not a target for it.

The Monte Carlo (``main``) draws whole runs of the world (``--task-types`` types, ``--episodes``
episodes, each episode a type at random) under two ways of spending the episodes:

* ``uniform``: an approach at random, as ``experience_policies.py --agent explore`` does;
* ``thompson``: top-two Thompson sampling on Beta posteriors, a strong adaptive allocation for
  best-arm identification (more of the episodes go where they discriminate).

For each threshold it reports the share of real types named right, the noise-only types given a
policy per 30 type-runs, and the share of runs meeting the issue's target (>= ``--target`` of the
real types named and no noise-only type given a policy). The best threshold's share of runs is the
chance that even the oracle meets the target on one run.

    python benchmarks/experience_ceiling.py                               # 1,000 episodes
    python benchmarks/experience_ceiling.py --episodes 1000,2000,3000 --runs 300
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from _common import emit, machine_facts, print_table

GRID_POINTS = 96
THRESHOLDS = (0.5, 0.8, 0.9, 0.95, 0.98, 0.99)


class World(NamedTuple):
    """The generator's parameters (``experience_policies.py``'s defaults)."""

    approaches: int = 3
    best: tuple[float, float] = (0.8, 0.95)
    other: tuple[float, float] = (0.2, 0.5)
    noise: tuple[float, float] = (0.35, 0.65)
    flip: float = 0.05
    noise_share: float = 5 / 30


def observed_grid(lo: float, hi: float, flip: float, points: int = GRID_POINTS) -> np.ndarray:
    """Midpoints of the uniform range [lo, hi] as the probabilities of a *recorded* success, that
    is after a label flip with probability ``flip``; clipped away from 0 and 1 so logs stay finite."""
    p = lo + (hi - lo) * (np.arange(points) + 0.5) / points
    return np.clip(p * (1 - flip) + (1 - p) * flip, 1e-12, 1 - 1e-12)


def _log_mean_binomial(q: np.ndarray, s: int, n: int) -> float:
    """log of the mean over the grid ``q`` of q^s (1-q)^(n-s) (the binomial coefficient cancels)."""
    logs = s * np.log(q) + (n - s) * np.log1p(-q)
    top = float(logs.max())
    return top + math.log(float(np.exp(logs - top).mean()))


def posterior(counts: Sequence[tuple[int, int]], world: World) -> tuple[int, float]:
    """The approach most likely to be the best and the posterior probability that the type is a
    real one with that approach best, given ``counts`` (successes, trials) per approach.

    Real type, best ``b``: the best's rate uniform on ``world.best``, each other's independently
    uniform on ``world.other``; each ``b`` equally likely a priori. Noise-only type: one rate,
    uniform on ``world.noise``, shared by every approach. Every outcome label flipped with
    probability ``world.flip``."""
    if len(counts) != world.approaches:
        raise ValueError(f"{len(counts)} approaches counted, the world has {world.approaches}")
    if any(not 0 <= s <= n for s, n in counts):
        raise ValueError(f"counts must be (successes, trials) with 0 <= successes <= trials: {list(counts)}")
    best_q, other_q = observed_grid(*world.best, world.flip), observed_grid(*world.other, world.flip)
    noise_q = observed_grid(*world.noise, world.flip)
    as_best = [_log_mean_binomial(best_q, s, n) for s, n in counts]
    as_other = [_log_mean_binomial(other_q, s, n) for s, n in counts]
    total_other = sum(as_other)
    prior_real = math.log(max(1e-300, 1 - world.noise_share)) - math.log(world.approaches)
    logs = [prior_real + as_best[b] + total_other - as_other[b] for b in range(world.approaches)]
    s_all, n_all = sum(s for s, _ in counts), sum(n for _, n in counts)
    logs.append(math.log(max(1e-300, world.noise_share)) + _log_mean_binomial(noise_q, s_all, n_all))
    top = max(logs)
    weights = [math.exp(v - top) for v in logs]
    z = sum(weights)
    best = max(range(world.approaches), key=lambda b: (weights[b], -b))
    return best, weights[best] / z


def _draw_rates(rng: np.random.Generator, world: World, noise: bool) -> np.ndarray:
    """One type's true success rates; index 0 is the best of a real type."""
    if noise:
        return np.full(world.approaches, rng.uniform(*world.noise))
    rates = rng.uniform(*world.other, size=world.approaches)
    rates[0] = rng.uniform(*world.best)
    return rates


def _spend(rng: np.random.Generator, rates: np.ndarray, n: int, allocation: str, flip: float) -> list[tuple[int, int]]:
    """``n`` episodes of one type under ``allocation``; recorded (successes, trials) per approach."""
    k = len(rates)
    recorded = rates * (1 - flip) + (1 - rates) * flip
    s, t = np.zeros(k, dtype=int), np.zeros(k, dtype=int)
    for _ in range(n):
        if allocation == "uniform":
            a = int(rng.integers(k))
        elif allocation == "thompson":
            a = int(np.argmax(rng.beta(s + 1, t - s + 1)))
            if rng.random() < 0.5:  # top-two: half the time the best challenger instead
                for _ in range(32):
                    other = int(np.argmax(rng.beta(s + 1, t - s + 1)))
                    if other != a:
                        a = other
                        break
        else:
            raise ValueError(f"unknown allocation {allocation!r}")
        t[a] += 1
        s[a] += rng.random() < recorded[a]
    return list(zip(s.tolist(), t.tolist(), strict=True))


def simulate(world: World, episodes: int, task_types: int, noise_types: int, allocation: str, runs: int,
             seed: int) -> list[list[tuple[bool, int, float]]]:
    """``runs`` runs of the world; per run and type: (noise-only?, oracle's pick, its posterior).
    A real type's best approach is index 0, so a pick of 0 is a right one."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(runs):
        per_type = rng.multinomial(episodes, [1 / task_types] * task_types)
        run = []
        for k in range(task_types):
            noise = k >= task_types - noise_types
            counts = _spend(rng, _draw_rates(rng, world, noise), int(per_type[k]), allocation, world.flip)
            pick, prob = posterior(counts, world)
            run.append((noise, pick, prob))
        out.append(run)
    return out


def frontier(runs: list[list[tuple[bool, int, float]]], target: float,
             thresholds: Sequence[float] = THRESHOLDS) -> list[dict]:
    """Per threshold: share of real types named right, noise-only types given a policy per 30
    type-runs, share of runs meeting the target (>= ``target`` named and no noise-only policy)."""
    rows = []
    for th in thresholds:
        named = real = flagged = noise = met = 0
        for run in runs:
            r_named = sum(1 for is_noise, pick, p in run if not is_noise and pick == 0 and p >= th)
            r_real = sum(1 for is_noise, _, _ in run if not is_noise)
            r_flagged = sum(1 for is_noise, _, p in run if is_noise and p >= th)
            named, real, flagged = named + r_named, real + r_real, flagged + r_flagged
            noise += sum(1 for is_noise, _, _ in run if is_noise)
            met += r_real > 0 and r_named >= target * r_real and r_flagged == 0
        rows.append({"threshold": th, "named_share": round(named / real, 4) if real else None,
                     "noise_per_30": round(30 * flagged / noise, 2) if noise else None,
                     "runs_meeting_target": round(met / len(runs), 4) if runs else None})
    return rows


def main(argv: list[str] | None = None) -> int:
    d = World()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", default="1000", help="Comma-separated episode counts, one table each.")
    ap.add_argument("--task-types", type=int, default=30)
    ap.add_argument("--noise-types", type=int, default=5)
    ap.add_argument("--approaches", type=int, default=d.approaches)
    ap.add_argument("--best-low", type=float, default=d.best[0])
    ap.add_argument("--best-high", type=float, default=d.best[1])
    ap.add_argument("--other-low", type=float, default=d.other[0])
    ap.add_argument("--other-high", type=float, default=d.other[1])
    ap.add_argument("--noise-low", type=float, default=d.noise[0])
    ap.add_argument("--noise-high", type=float, default=d.noise[1])
    ap.add_argument("--flip", type=float, default=d.flip)
    ap.add_argument("--allocations", default="uniform,thompson")
    ap.add_argument("--runs", type=int, default=200, help="Simulated runs per episode count and allocation.")
    ap.add_argument("--target", type=float, default=0.9, help="Share of real types to name (the issue's 90 %%).")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    try:
        counts = [int(x) for x in args.episodes.split(",") if x.strip()]
    except ValueError:
        ap.error(f"--episodes must be whole numbers separated by commas, not {args.episodes!r}")
    allocations = [a.strip() for a in args.allocations.split(",") if a.strip()]
    ranges = [(args.best_low, args.best_high), (args.other_low, args.other_high), (args.noise_low, args.noise_high)]
    if (not counts or min(counts) < 1 or args.runs < 1 or not 0 <= args.noise_types <= args.task_types
            or args.task_types < 1 or args.approaches < 1 or not 0 <= args.flip <= 1
            or any(not 0 <= lo <= hi <= 1 for lo, hi in ranges)
            or any(a not in ("uniform", "thompson") for a in allocations) or not allocations):
        ap.error("need episode counts >= 1, --runs >= 1, 0 <= --noise-types <= --task-types, --approaches >= 1, "
                 "0 <= low <= high <= 1 for every range, 0 <= --flip <= 1, allocations from uniform,thompson")
    world = World(args.approaches, ranges[0], ranges[1], ranges[2], args.flip, args.noise_types / args.task_types)
    rows, results = [], []
    for episodes in counts:
        for allocation in allocations:
            table = frontier(simulate(world, episodes, args.task_types, args.noise_types, allocation, args.runs,
                                      args.seed), args.target)
            best = max(table, key=lambda r: (r["runs_meeting_target"], r["named_share"]))
            results.append({"episodes": episodes, "allocation": allocation, "frontier": table,
                            "best_threshold": best["threshold"], "runs_meeting_target": best["runs_meeting_target"]})
            rows += [{"episodes": episodes, "allocation": allocation, **r} for r in table]
    print_table(f"Bayes oracle on the experience world: {args.task_types} types ({args.noise_types} noise only), "
                f"{args.approaches} approaches, {args.runs} runs each", rows,
                ("episodes", "allocation", "threshold", "named_share", "noise_per_30", "runs_meeting_target"))
    for r in results:
        print(f"{r['episodes']} episodes, {r['allocation']}: the oracle meets the target in "
              f"{r['runs_meeting_target']:.0%} of runs (best threshold {r['best_threshold']})")
    emit({"benchmark": "experience_ceiling", "world": world._asdict(), "task_types": args.task_types,
          "noise_types": args.noise_types, "runs": args.runs, "target": args.target, "seed": args.seed,
          "results": results, "machine": machine_facts()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
