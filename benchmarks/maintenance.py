"""Lifecycle maintenance over a 100k-claim store: pass time, rows touched, how long writers wait.

A store of ``n`` explicit claims (the synthetic pool of ``_synthetic.py``, hash vectors) is built
once (phase ``build``) with lifecycle shapes: claims recorded over a year, plans dated a week
after they were said (a day long), 10% temporary facts (``temporary=暂时``, temporal scope), the
rest permanent; importance uniform in [0, 1]. Then, on a fresh copy of that store, 30 days after
the last claim (phase ``measure``):

- ``dry_run``: one unbounded dry-run pass (selection and decisions over every claim, no writes);
- ``drain``: bounded passes with the default bounds (5,000 rows, 2 s, 100 per transaction) until
  one completes, while a separate process writes one claim every 20 ms and records how long
  each ``remember`` took (the wait maintenance imposes on writers);
- ``idle``: one more pass when nothing is due (the steady-state cost of the hourly schedule).

    python benchmarks/maintenance.py --n 100000
    python benchmarks/maintenance.py --quick
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from _common import (
    emit, file_mib, fresh, latency_stats, machine_facts, open_memory, peak_rss_mib, print_table, run_phase,
    warm_text_segmenter,
)
from _synthetic import ClaimPool
from attrs import evolve

from hlmem.domain.events import Scope

START = datetime(2025, 1, 1, tzinfo=timezone.utc)
YEAR = timedelta(days=365)
WORK = Path("/tmp/hlmem_bench_lifecycle")


def shaped(n: int):
    """``(command, recorded_at)`` pairs with lifecycle shapes, deterministic."""
    rng = random.Random(20261130)
    out = []
    for i, cmd in enumerate(ClaimPool().claims(n)):
        at = START + YEAR * (i / n)
        if cmd.predicate == "plan":
            begin = at + timedelta(days=7)
            cmd = evolve(cmd, scope=Scope.TEMPORAL, valid_from=begin, valid_to=begin + timedelta(days=1))
        elif rng.random() < 0.1:
            cmd = evolve(cmd, scope=Scope.TEMPORAL, qualifiers=(("temporary", "暂时"),), valid_from=at)
        else:
            cmd = evolve(cmd, valid_from=at)
        out.append((cmd, at))
    return out


def build(args) -> dict:
    store = fresh(args.store)
    mem = open_memory(store, "hash")
    writes = mem._container.writes()
    items = shaped(args.n)
    started = time.perf_counter()
    for i in range(0, len(items), 1_000):
        writes.write_batch(items[i:i + 1_000])
    seconds = time.perf_counter() - started
    stats = mem.stats()
    mem.close()
    return {"phase": "build", "n": args.n, "seconds": round(seconds, 1), "claims_per_s": round(args.n / seconds),
            "claims": stats["claims"], "claims_active": stats.get("claims_active", 0),
            "claims_superseded": stats.get("claims_superseded", 0), "vectors": stats["vectors"],
            "store_mib": file_mib(store), "peak_rss_mib": peak_rss_mib()}


def writer(args) -> dict:
    """Write one claim every 20 ms until the stop file appears; report each write's latency."""
    # jieba loads lazily inside the first write transaction (1-3 s here): warm it first, so the
    # latencies measure waiting for maintenance, not this process's start-up.
    warm_text_segmenter()
    mem = open_memory(args.store, "hash")
    lat = []
    i = 0
    while not Path(args.stop).exists():
        started = time.perf_counter()
        mem.remember(f"writer{i % 50}", "likes", f"thing {i}", cardinality="multi")
        lat.append((time.perf_counter() - started) * 1000)
        i += 1
        time.sleep(0.02)
    mem.close()
    return {"phase": "writer", "writes": len(lat), **latency_stats(lat)}


def measure(args) -> dict:
    work = fresh(args.store.with_name(args.store.stem + "_work.db"))
    for suffix in ("", "-wal"):
        if Path(str(args.store) + suffix).exists():
            shutil.copyfile(str(args.store) + suffix, str(work) + suffix)
    now = START + YEAR + timedelta(days=30)
    mem = open_memory(work, "hash")
    before = mem.stats()
    out: dict = {"phase": "measure", "n": args.n, "now": now.isoformat()}

    started = time.perf_counter()
    dry = mem.maintain(now=now, max_rows=10**9, max_seconds=10**9, dry_run=True)
    out["dry_run"] = {"seconds": round(time.perf_counter() - started, 2), "examined": dry.examined,
                      "expired": dry.expired, "archived": dry.archived}

    stop = work.with_suffix(".stop")
    stop.unlink(missing_ok=True)
    import subprocess

    proc = subprocess.Popen([sys.executable, __file__, "--phase", "writer", "--store", str(work), "--stop", str(stop)],
                            stdout=subprocess.PIPE, text=True)
    time.sleep(2.0)  # the writer's interpreter starts and writes a few
    passes = []
    started = time.perf_counter()
    while True:
        report = mem.maintain(now=now)
        passes.append(report)
        if report.complete:
            break
    drain_s = time.perf_counter() - started
    time.sleep(0.5)
    stop.touch()
    written = json.loads(proc.communicate(timeout=120)[0].strip().splitlines()[-1])
    out["drain"] = {
        "passes": len(passes), "seconds": round(drain_s, 2),
        "examined": sum(p.examined for p in passes), "expired": sum(p.expired for p in passes),
        "archived": sum(p.archived for p in passes), "jobs_pruned": sum(p.jobs_pruned for p in passes),
        "touched": sum(p.touched for p in passes), "transactions": sum(p.transactions for p in passes),
        "longest_transaction_ms": round(max(p.longest_transaction_ms for p in passes), 1),
        "pass_seconds_max": round(max(p.seconds for p in passes), 2),
        "rows_per_s": round(sum(p.touched for p in passes) / drain_s),
        "reasons": {k: sum(dict(p.reasons).get(k, 0) for p in passes) for p in passes for k in dict(p.reasons)},
    }
    out["writer_during_drain"] = written
    started = time.perf_counter()
    idle = mem.maintain(now=now, max_rows=10**9, max_seconds=10**9)
    out["idle"] = {"seconds": round(time.perf_counter() - started, 3), "examined": idle.examined,
                   "touched": idle.touched}
    after = mem.stats()
    out["vectors"] = [before["vectors"], after["vectors"]]
    out["claims_by_status_after"] = {k: v for k, v in after.items() if k.startswith("claims_")}
    out["peak_rss_mib"] = peak_rss_mib()
    mem.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=100_000, help="claims in the store")
    parser.add_argument("--store-dir", type=Path, default=WORK)
    parser.add_argument("--reuse", action="store_true", help="keep an existing base store of the right size")
    parser.add_argument("--quick", action="store_true", help="smoke run: 5,000 claims")
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--phase", choices=("build", "measure", "writer"), default=None, help=argparse.SUPPRESS)
    parser.add_argument("--store", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--stop", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quick:
        args.n = 5_000
    if args.phase:
        emit({"build": build, "measure": measure, "writer": writer}[args.phase](args))
        return
    store = args.store_dir / f"maint_{args.n}.db"
    common = ["--n", str(args.n), "--store", str(store)]
    built = None
    if not (args.reuse and store.exists()):
        built = run_phase("maintenance.py", ["--phase", "build", *common], args.timeout)
    measured = run_phase("maintenance.py", ["--phase", "measure", *common], args.timeout)
    summary = {"benchmark": "maintenance", "machine": machine_facts(), "build": built, "measure": measured}
    if built:
        print_table("store build (hash vectors)", [built], ("n", "seconds", "claims_per_s", "claims", "vectors",
                                                           "store_mib"))
    if measured.get("drain"):
        d = measured["drain"]
        print_table("maintenance drain (default bounds, a writer every 20 ms)", [d],
                    ("passes", "seconds", "examined", "expired", "archived", "jobs_pruned", "transactions",
                     "longest_transaction_ms", "pass_seconds_max", "rows_per_s"))
        print_table("writer latency during the drain (ms)", [measured["writer_during_drain"]],
                    ("writes", "p50_ms", "p95_ms", "p99_ms", "max_ms"))
        print_table("dry run / idle pass", [{"pass": "dry run", **measured["dry_run"]},
                                            {"pass": "idle", **measured["idle"]}],
                    ("pass", "seconds", "examined", "expired", "archived", "touched"))
    if args.out:
        args.out.write_text(json.dumps(summary, ensure_ascii=False, indent=2, default=str))
    emit(summary)


if __name__ == "__main__":
    os.environ.setdefault("HLMEM_EMBEDDER", "")
    main()
