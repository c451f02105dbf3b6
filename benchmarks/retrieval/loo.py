"""Leave-one-haystack-out choice of ranking settings from end-to-end answers files.

Each ``run.py`` run writes every answer to ``<cache-dir>/results/<dataset>-<embedder>-answers.jsonl``.
Copy one such file per setting into a folder as ``<dataset>_<label>.jsonl`` (the label names the
setting, e.g. ``0.3_0.2`` for ``--ranking text_weight=0.3,context_weight=0.2``); then

    python -m benchmarks.retrieval.loo FOLDER [--metric r@10] [--json]

prints every setting's score per dataset and, for every haystack, the setting that is best on all
the *other* haystacks (objective: the mean over datasets of each dataset's mean ``metric``), scored
on the held-out haystack. The pooled held-out score is the honest estimate of the chosen setting;
the labels the folds chose say how stable the choice is.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path


def load(folder: Path, metric: str) -> dict[str, dict[str, dict[str, list[float]]]]:
    """``{dataset: {label: {haystack: [metric per question]}}}`` from ``<dataset>_<label>.jsonl`` files."""
    out: dict[str, dict[str, dict[str, list[float]]]] = defaultdict(dict)
    for path in sorted(folder.glob("*.jsonl")):
        dataset, sep, label = path.stem.partition("_")
        if not sep:
            continue
        per_hay: dict[str, list[float]] = defaultdict(list)
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row.get("method", "hlmem") == "hlmem" and metric in row:
                per_hay[row["haystack"]].append(float(row[metric]))
        out[dataset][label] = dict(per_hay)
    return dict(out)


def mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def leave_one_out(runs: dict[str, dict[str, dict[str, list[float]]]]) -> dict[str, dict]:
    """Per dataset: the label each held-out haystack's fold chose and the pooled held-out score."""
    labels = sorted(set.intersection(*(set(by_label) for by_label in runs.values())))
    if not labels:
        raise SystemExit("no label has an answers file for every dataset")
    result = {}
    for dataset, by_label in runs.items():
        chosen, held = [], []
        for hay in sorted(by_label[labels[0]]):
            def objective(label: str, hay: str = hay) -> float:
                return mean([mean([x for h, xs in runs[d][label].items() if h != hay for x in xs]) for d in runs])
            best = max(labels, key=lambda label: (objective(label), label))
            chosen.append(best)
            held += runs[dataset][best][hay]
        result[dataset] = {"chosen": dict(Counter(chosen)), "held_out": round(mean(held), 4)}
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--metric", default="r@10", help="per-question field of the answers files (r@10, r@1, rr…)")
    parser.add_argument("--json", action="store_true", help="print only the JSON summary")
    args = parser.parse_args(argv)
    runs = load(args.folder, args.metric)
    if not runs:
        raise SystemExit(f"no <dataset>_<label>.jsonl files in {args.folder}")
    scores = {d: {label: round(mean([x for xs in hays.values() for x in xs]), 4) for label, hays in by.items()}
              for d, by in runs.items()}
    loo = leave_one_out(runs)
    if not args.json:
        datasets = sorted(runs)
        print("label".ljust(16) + "".join(d.rjust(12) for d in datasets))
        for label in sorted({lb for by in scores.values() for lb in by}):
            print(label.ljust(16) + "".join(f"{scores[d].get(label, float('nan')):12.4f}" for d in datasets))
        for d in datasets:
            print(f"{d}: folds chose {loo[d]['chosen']}; held-out {args.metric} {loo[d]['held_out']:.4f}")
    print(json.dumps({"metric": args.metric, "scores": scores, "leave_one_out": loo}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
