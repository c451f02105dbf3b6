"""The experience benchmark's Bayes oracle (benchmarks/experience_ceiling.py): its posterior
against a direct computation, its invariances, and the Monte Carlo's frontier in worlds whose
answer is known."""

from __future__ import annotations

import itertools
import json
import math
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))

import experience_ceiling as ceiling  # noqa: E402

WORLD = ceiling.World()
counts_of = st.tuples(st.integers(0, 9), st.integers(0, 9)).map(lambda c: (min(c), max(c)))


def direct(counts: list[tuple[int, int]], world: ceiling.World) -> list[float]:
    """The posterior of every hypothesis (each approach best, then noise), in plain floats."""
    def mean_lik(q, s, n):
        return sum(x ** s * (1 - x) ** (n - s) for x in q) / len(q)

    best = ceiling.observed_grid(*world.best, world.flip)
    other = ceiling.observed_grid(*world.other, world.flip)
    noise = ceiling.observed_grid(*world.noise, world.flip)
    k = world.approaches
    real = [(1 - world.noise_share) / k * mean_lik(best, *counts[b])
            * math.prod(mean_lik(other, *counts[o]) for o in range(k) if o != b) for b in range(k)]
    s_all, n_all = sum(s for s, _ in counts), sum(n for _, n in counts)
    weights = real + [world.noise_share * sum(math.prod(x ** s * (1 - x) ** (n - s) for s, n in counts)
                                              for x in noise) / len(noise)]
    assert s_all <= n_all
    return [w / sum(weights) for w in weights]


@given(st.lists(counts_of, min_size=3, max_size=3))
def test_the_posterior_is_the_direct_computation(counts: list[tuple[int, int]]) -> None:
    pick, prob = ceiling.posterior(counts, WORLD)
    expected = direct(counts, WORLD)
    assert prob == pytest.approx(expected[pick], rel=1e-9, abs=1e-12)
    assert expected[pick] == pytest.approx(max(expected[:3]), rel=1e-9, abs=1e-12)


@given(st.lists(counts_of, min_size=3, max_size=3), st.permutations(range(3)))
def test_renaming_the_approaches_moves_the_pick_and_keeps_the_probability(counts, order) -> None:
    pick, prob = ceiling.posterior(counts, WORLD)
    moved = [counts[i] for i in order]
    pick2, prob2 = ceiling.posterior(moved, WORLD)
    assert prob2 == pytest.approx(prob, rel=1e-9)
    assert moved[pick2] == counts[pick]  # equal weights come only from equal counts


def test_clear_evidence_names_the_best_and_equal_counts_look_like_noise() -> None:
    pick, prob = ceiling.posterior([(3, 20), (19, 20), (4, 20)], WORLD)
    assert pick == 1 and prob > 0.99
    _, prob = ceiling.posterior([(6, 10), (6, 10), (6, 10)], WORLD)
    assert prob < 0.5


def test_long_runs_do_not_underflow() -> None:
    pick, prob = ceiling.posterior([(300, 1000), (880, 1000), (350, 1000)], WORLD)
    assert pick == 1 and prob == pytest.approx(1.0)
    _, prob = ceiling.posterior([(500, 1000), (505, 1000), (495, 1000)], WORLD)
    assert 0 <= prob < 1e-6


def test_no_evidence_leaves_the_prior() -> None:
    pick, prob = ceiling.posterior([(0, 0)] * 3, WORLD)
    assert pick == 0 and prob == pytest.approx((1 - WORLD.noise_share) / 3)


@pytest.mark.parametrize("counts", [[(1, 2), (0, 0)], [(3, 2), (0, 0), (0, 0)], [(-1, 2), (0, 0), (0, 0)]])
def test_counts_that_cannot_be_are_refused(counts) -> None:
    with pytest.raises(ValueError):
        ceiling.posterior(counts, WORLD)


def test_a_world_that_cannot_be_told_apart_names_nothing() -> None:
    flat = ceiling.World(best=(0.5, 0.5), other=(0.5, 0.5), noise=(0.5, 0.5), flip=0.0, noise_share=0.2)
    for allocation in ("uniform", "thompson"):
        runs = ceiling.simulate(flat, 300, 10, 2, allocation, runs=3, seed=1)
        rows = {r["threshold"]: r for r in ceiling.frontier(runs, 0.9)}
        assert rows[0.5]["named_share"] == 0 and rows[0.5]["noise_per_30"] == 0
        assert rows[0.5]["runs_meeting_target"] == 0


def test_a_world_with_no_doubt_meets_the_target_every_run() -> None:
    sharp = ceiling.World(best=(0.99, 0.99), other=(0.01, 0.01), noise=(0.5, 0.5), flip=0.0, noise_share=0.2)
    for allocation in ("uniform", "thompson"):
        runs = ceiling.simulate(sharp, 600, 10, 2, allocation, runs=4, seed=2)
        assert all(sum(1 for noise, _, _ in run if noise) == 2 for run in runs)
        rows = {r["threshold"]: r for r in ceiling.frontier(runs, 0.9)}
        assert rows[0.99] == {"threshold": 0.99, "named_share": 1.0, "noise_per_30": 0.0, "runs_meeting_target": 1.0}


def test_the_frontier_names_fewer_as_the_threshold_rises() -> None:
    runs = ceiling.simulate(WORLD, 400, 12, 2, "uniform", runs=6, seed=3)
    rows = ceiling.frontier(runs, 0.9)
    for low, high in itertools.pairwise(rows):
        assert high["named_share"] <= low["named_share"] and high["noise_per_30"] <= low["noise_per_30"]


def test_the_script_prints_a_table_and_one_json_line(capsys) -> None:
    assert ceiling.main(["--episodes", "200", "--task-types", "6", "--noise-types", "1", "--runs", "2"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    summary = json.loads(out[-1])
    assert summary["benchmark"] == "experience_ceiling"
    assert [r["allocation"] for r in summary["results"]] == ["uniform", "thompson"]
    assert any("Bayes oracle" in line for line in out)


def test_the_script_refuses_bad_ranges() -> None:
    with pytest.raises(SystemExit):
        ceiling.main(["--best-low", "0.9", "--best-high", "0.8"])
    with pytest.raises(SystemExit):
        ceiling.main(["--episodes", "ten"])


def test_the_grid_is_the_range_seen_through_flipped_labels() -> None:
    assert ceiling.observed_grid(1.0, 1.0, 0.05) == pytest.approx([0.95] * ceiling.GRID_POINTS)
    assert ceiling.observed_grid(0.0, 0.0, 0.1) == pytest.approx([0.1] * ceiling.GRID_POINTS)
    grid = ceiling.observed_grid(0.2, 0.6, 0.0, points=4)
    assert grid == pytest.approx([0.25, 0.35, 0.45, 0.55])
