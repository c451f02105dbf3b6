"""Learn the ranking stage's linear weights by coordinate ascent, judged on held-out haystacks (issue 16).

The final score is a linear function of the stages' features (``RankingConfig``: fusion weights,
neighbour, reply, speaker and session shares, recency). This study fits those weights on some
haystacks and scores them on the others, so the figure it reports is what a weight choice is
worth on data it was not chosen on:

- the haystacks (LoCoMo's conversations, MemDaily's files) are dealt into ``--folds`` folds, each
  dataset's haystacks in name order round the folds;
- for every fold, coordinate ascent from the product defaults over the grid below, on the other
  folds: each weight in turn takes the grid value that maximises the objective (the mean over
  datasets of each dataset's mean R@10), kept only if it beats the current value by ``--min-gain``;
  ``--passes`` sweeps;
- the fold's chosen weights answer the fold's questions: pooled over folds, that is the held-out
  score, set beside the defaults' score on the same questions (the defaults were themselves chosen
  on these datasets, so their figure is in-sample and flatters them);
- one more ascent on every haystack gives the weights a change of defaults would ship.

Every setting is run end to end through ``Memory.recall`` over the cached stores (``run.py
--keep-stores`` built them; settings are read-path only), two at a time, and its per-question
answers are cached in ``--cache`` so a rerun or a longer grid only runs what is new.

    python -m benchmarks.retrieval.tune [--folds 4] [--passes 2] [--only a,b] [--out FILE.json]

``--only`` searches those weights alone (the others stay at the product defaults): the held-out
value of one new stage, without rerunning the whole grid.

Prints a table per dataset (defaults vs held-out chosen, R@10 and hit@10), the weights each fold
chose, and a JSON summary.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from .cli import DATASETS, DEFAULT_CACHE  # noqa: E402
from .data import Dataset, load_locomo, load_memdaily  # noqa: E402
from .report import print_table  # noqa: E402
from .runner import Options, run_dataset  # noqa: E402

#: The weights searched and their grid (RankingConfig fields); the product default is added to each.
GRID: dict[str, tuple[float, ...]] = {
    "text_weight": (0.2, 0.3, 0.4, 0.5, 0.6),
    "vector_weight": (0.3, 0.4, 0.5, 0.6, 0.7),
    "context_weight": (0.0, 0.1, 0.2, 0.3, 0.4),
    "exact_weight": (0.0, 0.1, 0.2, 0.3),
    "recency_weight": (0.0, 0.02, 0.05, 0.1),
    "successor_weight": (0.0, 0.5, 0.6, 0.7, 0.8, 0.9),
    "predecessor_weight": (0.0, 0.5, 0.6, 0.7, 0.8, 0.9),
    "reply_weight": (0.0, 0.2, 0.4, 0.6),
    "speaker_weight": (0.0, 0.25, 0.5, 0.75, 1.0),
    "session_weight": (0.0, 0.25, 0.5, 0.75, 1.0),
    "session_top": (20, 50, 100),
    "successor_top": (5, 10, 20),
    "spread_weight": (0.0, 0.03, 0.05, 0.08, 0.12),
}
METRICS = ("r@10", "hit@10")

Setting = tuple[tuple[str, Any], ...]
#: {haystack: {metric: [per question]}}
Scores = dict[str, dict[str, list[float]]]


@cache
def _defaults() -> tuple[tuple[str, Any], ...]:
    from hlmem.application.ranking import RankingConfig

    config = RankingConfig()
    return tuple((name, getattr(config, name)) for name in GRID)


def defaults() -> dict[str, Any]:
    """The product defaults of the weights searched."""
    return dict(_defaults())


def key_of(setting: Setting) -> str:
    """The cache key: the settings that differ from the product defaults (so a longer grid keeps
    what a shorter one ran)."""
    base = defaults()
    return json.dumps(sorted([k, v] for k, v in setting if k not in base or v != base[k]))


def rekeyed(cache: dict[str, Any]) -> dict[str, Any]:
    """A cache read back with every key in :func:`key_of`'s form."""
    return {key_of(tuple((k, v) for k, v in json.loads(key))): value for key, value in cache.items()}


# -- evaluating a setting (in worker processes) -------------------------------------------------

_DATASETS: list[Dataset] = []
_OPTS: dict[str, Any] = {}


def _init(trajectories: int, cache_dir: str) -> None:
    _DATASETS[:] = [load_locomo(DATASETS / "locomo" / "locomo_dev.json"),
                    load_memdaily(DATASETS / "memsim_memdaily", trajectories=trajectories)]
    _OPTS.update(cache_dir=Path(cache_dir))


def _evaluate(setting: Setting) -> tuple[Setting, dict[str, Scores]]:
    out: dict[str, Scores] = {}
    for ds in _DATASETS:
        opts = Options(methods=("hlmem",), keep_stores=True, quiet=True, ranking=setting,
                       cache_dir=_OPTS["cache_dir"])
        rows = [r for r in run_dataset(ds, opts).rows if r["method"] == "hlmem" and r["gold"]]
        scores: Scores = {}
        for r in rows:
            per = scores.setdefault(r["haystack"], {m: [] for m in METRICS})
            for m in METRICS:
                per[m].append(float(r[m]))
        out[ds.name] = scores
    return setting, out


# -- the search (pure, over cached scores) --------------------------------------------------------

def mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def objective(scores: dict[str, Scores], haystacks: dict[str, set[str]], metric: str = "r@10") -> float:
    """Mean over datasets of the mean ``metric`` over the questions of ``haystacks``."""
    return mean([mean([x for h, per in scores[d].items() if h in haystacks[d] for x in per[metric]])
                 for d in haystacks])


def deal_folds(names: dict[str, list[str]], folds: int) -> list[dict[str, set[str]]]:
    """Each dataset's haystacks, in name order, dealt round ``folds`` folds."""
    out: list[dict[str, set[str]]] = [{d: set() for d in names} for _ in range(folds)]
    for d, hays in names.items():
        for i, hay in enumerate(sorted(hays)):
            out[i % folds][d].add(hay)
    return out


class Search:
    """Coordinate ascents for several training sets in lockstep, sharing one cache of settings."""

    def __init__(self, cache: Path, workers: int, trajectories: int, cache_dir: Path) -> None:
        self.cache_path = cache
        self.cache: dict[str, dict[str, Scores]] = rekeyed(json.loads(cache.read_text())) if cache.exists() else {}
        self.pool = ProcessPoolExecutor(workers, initializer=_init, initargs=(trajectories, str(cache_dir)))
        self.runs = 0

    def scores(self, settings: list[Setting]) -> None:
        missing = list(dict.fromkeys(s for s in settings if key_of(s) not in self.cache))
        for setting, result in self.pool.map(_evaluate, missing):
            self.cache[key_of(setting)] = result
            self.runs += 1
        if missing:
            self.cache_path.write_text(json.dumps(self.cache))
            print(f"  ran {len(missing)} settings ({self.runs} so far, {len(self.cache)} cached)", file=sys.stderr,
                  flush=True)

    def get(self, setting: dict[str, Any]) -> dict[str, Scores]:
        return self.cache[key_of(tuple(setting.items()))]

    def ascend(self, trains: list[dict[str, set[str]]], start: dict[str, Any], passes: int,
               min_gain: float, grid: dict[str, tuple[float, ...]] | None = None) -> list[dict[str, Any]]:
        current = [dict(start) for _ in trains]
        self.scores([tuple(start.items())])
        for sweep in range(passes):
            changed = False
            for name, values_of in (grid or GRID).items():
                values = sorted(set(values_of) | {start[name]})
                trials = [[{**cur, name: v} for v in values] for cur in current]
                self.scores([tuple(t.items()) for ts in trials for t in ts])
                for i, (train, ts) in enumerate(zip(trains, trials, strict=True)):
                    base = objective(self.get(current[i]), train)
                    best = max(ts, key=lambda t, train=train: objective(self.get(t), train))
                    if objective(self.get(best), train) > base + min_gain:
                        current[i] = best
                        changed = True
                print(f"  pass {sweep + 1}, {name}: " + ", ".join(f"{c[name]}" for c in current), file=sys.stderr,
                      flush=True)
            if not changed:
                break
        return current

    def close(self) -> None:
        self.pool.shutdown()


def pooled(scores: dict[str, Scores], haystacks: set[str], metric: str) -> list[float]:
    return [x for h, per in scores.items() if h in haystacks for x in per[metric]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folds", type=int, default=4)
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--min-gain", type=float, default=0.001)
    parser.add_argument("--trajectories", type=int, default=20, help="MemDaily trajectories per file (mixed protocol)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--cache", type=Path, default=None, help="settings' answers (default <cache-dir>/tune.json)")
    parser.add_argument("--only", default="", help="comma-separated weights to search (default: the whole grid)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.folds < 2:
        raise SystemExit("--folds: at least 2")
    only = [n for n in args.only.split(",") if n]
    if set(only) - set(GRID):
        raise SystemExit(f"--only: unknown weights {sorted(set(only) - set(GRID))}; known: {', '.join(GRID)}")
    grid = {n: GRID[n] for n in only} if only else GRID
    search = Search(args.cache or args.cache_dir / f"tune-{args.trajectories}.json", args.workers, args.trajectories,
                    args.cache_dir)
    try:
        start = defaults()
        search.scores([tuple(start.items())])
        base = search.get(start)
        names = {d: sorted(per) for d, per in base.items()}
        folds = deal_folds(names, args.folds)
        everything = {d: set(h) for d, h in names.items()}
        trains = [{d: everything[d] - fold[d] for d in names} for fold in folds]
        chosen = search.ascend(trains + [everything], start, args.passes, args.min_gain, grid)
    finally:
        search.close()
    rows, summary = [], {"folds": args.folds, "passes": args.passes, "min_gain": args.min_gain, "searched": list(grid),
                         "trajectories": args.trajectories, "settings_run": len(search.cache), "datasets": {}}
    for d in names:
        entry: dict[str, Any] = {}
        for m in METRICS:
            held = [x for fold, pick in zip(folds, chosen, strict=False) for x in pooled(search.get(pick)[d], fold[d], m)]
            default = [x for fold in folds for x in pooled(base[d], fold[d], m)]
            fitted_all = pooled(search.get(chosen[-1])[d], everything[d], m)
            entry[m] = {"defaults": round(mean(default), 4), "held_out_chosen": round(mean(held), 4),
                        "in_sample_all": round(mean(fitted_all), 4)}
        summary["datasets"][d] = entry
        rows.append({"dataset": d, **{f"{m} {k}": entry[m][k] for m in METRICS for k in entry[m]}})
    print_table("defaults vs weights chosen on the other folds", rows,
                ["dataset"] + [f"{m} {k}" for m in METRICS for k in ("defaults", "held_out_chosen", "in_sample_all")])
    summary["chosen"] = {f"fold {i + 1}": {k: v for k, v in c.items() if v != start[k]} for i, c in enumerate(chosen[:-1])}
    summary["chosen"]["all"] = {k: v for k, v in chosen[-1].items() if v != start[k]}
    for label, change in summary["chosen"].items():
        print(f"{label}: {change or 'the defaults'}")
    text = json.dumps(summary, ensure_ascii=False)
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
