"""What one episode's end costs as its situation's history grows (issue 38 item 3, ADR 0071).

One situation, three approaches (one works 90 % of the time, the others 40 % and 30 %), ``--episodes``
episodes started and ended one after the other through ``Memory``; the time of each
``end_episode`` (the end, its counts, its situation's policy lifecycle, in one transaction) is
taken and summarised per window of ``--window`` episodes: median and 95th percentile. Before the
counts projection an end read every outcome of its situation, so its time grew with the history;
now it reads the situation's few count rows, so the medians stay flat. The 95th percentile also
holds the ends that refit the namespace's prior (ADR 0066), which depend on the number of
situations, not on the history.

    python benchmarks/experience_end_time.py --episodes 5000 --store sqlite
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import emit, machine_facts, print_table

from hlmem import Memory

RATES = {"make": 0.9, "bazel": 0.4, "ninja": 0.3}


def run(args) -> dict:
    rng = random.Random(args.seed)
    windows, times = [], []
    with tempfile.TemporaryDirectory(prefix="hlmem-end-time-") as tmp:
        path = ":memory:" if args.store == "memory" else Path(tmp) / "end.db"
        with Memory(path, embedder="none", synchronous="NORMAL", now="2026-03-01T09:00:00Z") as mem:
            mem.set_experience_thresholds({"rule": args.rule})
            for n in range(1, args.episodes + 1):
                approach = rng.choice(sorted(RATES))
                ep = mem.start_episode("build the site from src/site.py", approach=approach)
                ok = rng.random() < RATES[approach]
                started = time.perf_counter()
                mem.end_episode(ep.episode_id, "succeeded" if ok else "failed")
                times.append(time.perf_counter() - started)
                if n % args.window == 0:
                    ordered = sorted(times)
                    windows.append({"episodes": n, "median_ms": round(1000 * statistics.median(ordered), 3),
                                    "p95_ms": round(1000 * ordered[int(0.95 * (len(ordered) - 1))], 3)})
                    times.clear()
            policies = [(p.approach, p.status, p.support) for p in mem.policies()]
    first, last = windows[0]["median_ms"], windows[-1]["median_ms"]
    return {"windows": windows, "summary": {
        "benchmark": "experience_end_time", "episodes": args.episodes, "window": args.window, "store": args.store,
        "rule": args.rule, "seed": args.seed, "first_window_median_ms": first, "last_window_median_ms": last,
        "last_over_first": round(last / first, 2) if first else None, "policies": policies,
        "machine": machine_facts()}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=3000)
    ap.add_argument("--window", type=int, default=500)
    ap.add_argument("--store", choices=("memory", "sqlite"), default="sqlite")
    ap.add_argument("--rule", choices=("bayes", "wilson"), default="bayes")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    if args.episodes < 1 or not 1 <= args.window <= args.episodes:
        ap.error("need --episodes >= 1 and 1 <= --window <= --episodes")
    result = run(args)
    s = result["summary"]
    print_table(f"end_episode time, one situation, {s['store']}, rule {s['rule']}", result["windows"],
                ("episodes", "median_ms", "p95_ms"))
    print(f"\nlast window's median over the first's: {s['last_over_first']}; policies: {s['policies']}")
    emit(s | {"windows": result["windows"]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
