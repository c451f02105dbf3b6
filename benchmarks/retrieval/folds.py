"""hlmem's margin over a baseline on haystacks no setting was chosen on (leave-one-haystack-out).

``loo`` says which setting the folds choose and its held-out score; this says what the margin
over a baseline is when every haystack is scored by the setting chosen on the *other* ones, and
how much it varies from haystack to haystack (issue 37 item 4: a margin measured on the
conversations it was tuned on partly fits them). Copy one ``run.py`` answers file per setting
into a folder as ``<dataset>_<label>.jsonl`` (every file holds the baseline's rows too: run with
``--methods hlmem,rrf_ctx``), then

    python -m benchmarks.retrieval.folds FOLDER [--baseline rrf_ctx] [--metric r@10] [--json]

prints, per setting, its in-sample score and margin; then the fold choice, the pooled held-out
margin with two paired-bootstrap intervals (questions resampled, and whole haystacks resampled,
the wider and more honest one when haystacks differ), and the margin per haystack and per
category. The objective of a fold is the mean ``metric`` over the other haystacks' questions.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .margins import paired_bootstrap

#: ``{label: {query id: answer row}}`` of hlmem, and the baseline's ``{query id: answer row}``.
Runs = dict[str, dict[str, dict[str, Any]]]


def load(folder: Path, dataset: str, baseline: str) -> tuple[Runs, dict[str, dict[str, Any]]]:
    """hlmem's rows per label and the baseline's rows (the same in every file: the first seen is kept)."""
    runs: Runs = {}
    base: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob(f"{dataset}_*.jsonl")):
        label = path.stem[len(dataset) + 1:]
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        runs[label] = {r["query"]: r for r in rows if r.get("method") == "hlmem"}
        for r in rows:
            if r.get("method") == baseline:
                base.setdefault(r["query"], r)
    return runs, base


def _mean(xs: Iterable[float]) -> float:
    xs = list(xs)
    return sum(xs) / len(xs) if xs else 0.0


def choose(runs: Runs, queries: Iterable[str], metric: str) -> str:
    """The label with the best mean ``metric`` over ``queries`` (ties: the greater label, as ``loo``)."""
    qs = list(queries)
    return max(sorted(runs), key=lambda label: (_mean(runs[label][q][metric] for q in qs if q in runs[label]), label))


def held_out(runs: Runs, base: Mapping[str, Mapping[str, Any]], metric: str = "r@10") -> dict[str, Any]:
    """Every haystack answered by the label chosen on the others; the rows and the choices.

    Only questions every label and the baseline answered take part.

    :raises ValueError: no label, or fewer than two haystacks (nothing to hold out).
    """
    if not runs:
        raise ValueError("no hlmem answers")
    shared = sorted(set(base).intersection(*(set(by_q) for by_q in runs.values())))
    haystacks = sorted({base[q]["haystack"] for q in shared})
    if len(haystacks) < 2:
        raise ValueError(f"leave-one-haystack-out needs two haystacks or more, not {len(haystacks)}")
    rows: list[dict[str, Any]] = []
    chosen: dict[str, str] = {}
    for hay in haystacks:
        label = choose(runs, (q for q in shared if base[q]["haystack"] != hay), metric)
        chosen[hay] = label
        for q in shared:
            if base[q]["haystack"] == hay:
                rows.append({**runs[label][q], "method": "held_out"})
                rows.append({**base[q], "method": "baseline"})
    return {"rows": rows, "chosen": chosen}


def summary(runs: Runs, base: Mapping[str, Mapping[str, Any]], metric: str = "r@10",
            baseline: str = "rrf_ctx") -> dict[str, Any]:
    """In-sample figures per label, and the held-out margin: pooled, per haystack, per category."""
    result = held_out(runs, base, metric)
    rows, chosen = result["rows"], result["chosen"]
    mine = {r["query"]: r for r in rows if r["method"] == "held_out"}
    theirs = {r["query"]: r for r in rows if r["method"] == "baseline"}

    def margin(qs: list[str], m: str) -> float:
        return round(_mean(mine[q][m] - theirs[q][m] for q in qs), 4)

    by_hay: dict[str, list[str]] = defaultdict(list)
    by_cat: dict[str, list[str]] = defaultdict(list)
    for q, r in mine.items():
        by_hay[r["haystack"]].append(q)
        by_cat[str(r.get("category", ""))].append(q)
    qs = sorted(mine)
    labels = {label: {metric: round(_mean(by_q[q][metric] for q in qs), 4),
                      "hit@10": round(_mean(by_q[q]["hit@10"] for q in qs), 4),
                      "margin": round(_mean(by_q[q][metric] - theirs[q][metric] for q in qs), 4)}
              for label, by_q in runs.items()}
    return {
        "metric": metric, "baseline": baseline, "n": len(qs), "labels": labels,
        "chosen": chosen, "chosen_count": dict(Counter(chosen.values())),
        "held_out": round(_mean(mine[q][metric] for q in qs), 4),
        "baseline_score": round(_mean(theirs[q][metric] for q in qs), 4),
        "margin": paired_bootstrap(rows, "held_out", "baseline", metric),
        "margin_by_haystack": paired_bootstrap(rows, "held_out", "baseline", metric, by="haystack"),
        "hit@10_margin": paired_bootstrap(rows, "held_out", "baseline", "hit@10"),
        "per_haystack": {h: {"n": len(v), "margin": margin(v, metric), "hit@10_margin": margin(v, "hit@10"),
                             "chosen": chosen[h]} for h, v in sorted(by_hay.items())},
        "per_category": {c: {"n": len(v), "held_out": round(_mean(mine[q][metric] for q in v), 4),
                             "baseline": round(_mean(theirs[q][metric] for q in v), 4)}
                         for c, v in sorted(by_cat.items())},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--dataset", default="locomo")
    parser.add_argument("--baseline", default="rrf_ctx")
    parser.add_argument("--metric", default="r@10")
    parser.add_argument("--json", action="store_true", help="print only the JSON summary")
    args = parser.parse_args(argv)
    runs, base = load(args.folder, args.dataset, args.baseline)
    if not runs or not base:
        raise SystemExit(f"no {args.dataset}_<label>.jsonl files with hlmem and {args.baseline} rows in {args.folder}")
    s = summary(runs, base, args.metric, args.baseline)
    if not args.json:
        print(f"{'label':40s} {args.metric:>7s} {'hit@10':>7s} {'margin':>7s}   (in sample)")
        for label, v in sorted(s["labels"].items(), key=lambda kv: -kv[1][args.metric]):
            print(f"{label:40s} {v[args.metric]:7.4f} {v['hit@10']:7.4f} {v['margin']:+7.4f}")
        m, mh, hit = s["margin"], s["margin_by_haystack"], s["hit@10_margin"]
        print(f"folds chose {s['chosen_count']}")
        print(f"held out {s['held_out']:.4f} vs {args.baseline} {s['baseline_score']:.4f}: margin {m['margin']:+.4f} "
              f"[{m['ci95'][0]:+.4f}, {m['ci95'][1]:+.4f}] (questions), [{mh['ci95'][0]:+.4f}, {mh['ci95'][1]:+.4f}] "
              f"(haystacks); hit@10 margin {hit['margin']:+.4f} [{hit['ci95'][0]:+.4f}, {hit['ci95'][1]:+.4f}]")
        for hay, v in s["per_haystack"].items():
            print(f"  {hay:12s} n={v['n']:4d} margin {v['margin']:+.4f} hit@10 {v['hit@10_margin']:+.4f} chose {v['chosen']}")
        for cat, v in s["per_category"].items():
            print(f"  category {cat:3s} n={v['n']:4d} held out {v['held_out']:.4f} {args.baseline} {v['baseline']:.4f}")
    print(json.dumps({k: v for k, v in s.items()}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
