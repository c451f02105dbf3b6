"""Train the learned extractor's CRF from the repo's labelled statements, cross-validate, ship it.

    python scripts/train_extractor.py                 # 5-fold CV, threshold, final model into the package
    python scripts/train_extractor.py --folds 0       # no CV: train with the stored threshold
    python scripts/train_extractor.py --out /tmp/m    # somewhere else (the package is left alone)

Training data: benchmarks/extraction/dev.jsonl, fresh_r1.jsonl, fresh_r2.jsonl (never fresh_r3,
the validation set, nor sealed.jsonl). Cross-validation is by item, round robin in file order;
each fold's model tags its held-out fact and non-fact items once, and every threshold on the grid
is scored on those taggings: learned alone, rules alone and both combined (union, fallback), with
the benchmark's own scoring (benchmarks/extraction.py). The threshold shipped is the lowest one
at which the union keeps non-facts silent at ≥ 0.95 and adds no item with a forbidden claim
to the rules' own; sequences are then scored through ``Memory`` at that threshold, fold by fold.
The same data writes the same model file: the script prints its SHA-256.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import extraction as bench  # noqa: E402  (benchmarks/extraction.py: the scoring)

from hlmem.adapters.extraction.tagger import META_FILE, MODEL_FILE, LearnedExtractor, default_model  # noqa: E402
from hlmem.adapters.extraction.training import (PARAMS, build, data_digest, file_digest, folds,  # noqa: E402
                                                load_items, relation_slots, train)
from hlmem.adapters.text.pos import jieba_tagger  # noqa: E402
from hlmem.application.extraction.combine import combine  # noqa: E402
from hlmem.application.extraction.rules import extract as rules_extract  # noqa: E402
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY  # noqa: E402

DATA = [ROOT / "benchmarks" / "extraction" / f"{name}.jsonl" for name in ("dev", "fresh_r1", "fresh_r2")]
GRID = [round(0.30 + 0.05 * k, 2) for k in range(14)]  # 0.30 … 0.95
MODES = ("learned", "rules", "union", "fallback")


def _score(item: Mapping[str, Any], cands: Sequence[Any]) -> tuple[bool, bool, bool]:
    """(passed, has a forbidden claim, has a wrong-subject forbidden claim)."""
    hits = bench.forbidden_hits(item, cands)
    if item["kind"] == "nonfact":
        ok = not cands
    else:
        ok = all(any(bench.matches(e, c.subject, c.predicate, c.value, c.polarity) for c in cands)
                 for e in item["expect"]) and not hits
    return ok, bool(hits), any("subject" in f for f, _ in hits)


def _tally(rows: list[tuple[Mapping[str, Any], tuple[bool, bool, bool]]]) -> dict[str, Any]:
    facts = [s for it, s in rows if it["kind"] == "fact"]
    nonfacts = [s for it, s in rows if it["kind"] == "nonfact"]
    return {"fact_recall": round(sum(s[0] for s in facts) / max(len(facts), 1), 3),
            "nonfact_silent": round(sum(s[0] for s in nonfacts) / max(len(nonfacts), 1), 3),
            "forbidden_items": sum(s[1] for _, s in rows), "wrong_subject_items": sum(s[2] for _, s in rows)}


def cross_validate(items: list[dict[str, Any]], k: int, pos: Any, work: Path) -> dict[str, Any]:
    per_item: list[tuple[dict[str, Any], Any, list[Any], list[Any]]] = []  # item, tagging, rule cands, fold model
    models: dict[int, Path] = {}
    for f, held in enumerate(folds(items, k)):
        t = time.perf_counter()
        held_set = set(held)
        train_items = [it for i, it in enumerate(items) if i not in held_set]
        exs, _ = build(train_items, pos)
        model = work / f"fold{f}.crfsuite"
        train(exs, model)
        (work / f"fold{f}.json").write_text(json.dumps({"threshold": 0.5, "relation_slots": relation_slots(train_items)}))
        models[f] = model
        ext = LearnedExtractor(DEFAULT_REGISTRY, pos, model=model)
        for i in held:
            item = items[i]
            if item["kind"] == "sequence":
                continue
            rules = rules_extract([bench.source(item["text"])], DEFAULT_REGISTRY, tagger=pos)
            per_item.append((item, (ext, ext.tag_text(item["text"])), rules, [f]))
        print(f"  fold {f + 1}/{k}: trained on {len(train_items)} items in {time.perf_counter() - t:.0f} s", flush=True)
    table: dict[float, dict[str, Any]] = {}
    for theta in GRID:
        rows: dict[str, list[Any]] = {m: [] for m in MODES}
        for item, (ext, tagged), rules, _ in per_item:
            learned = ext.claims_of(tagged, "ev_0", threshold=theta)
            for mode, cands in (("learned", learned), ("rules", rules), ("union", combine(rules, learned, "union", item["text"])),
                                ("fallback", combine(rules, learned, "fallback", item["text"]))):
                rows[mode].append((item, _score(item, cands)))
        table[theta] = {m: _tally(r) for m, r in rows.items()}
    return {"table": table, "models": models}


def choose(table: Mapping[float, Mapping[str, Any]], mode: str = "union") -> float:
    """The threshold with the best fact recall among those that keep non-facts silent (≥ 0.95) and add
    no item with a forbidden claim to the rules' own (ties: the higher threshold). The learned
    tagger alone is never free of forbidden claims, so for it only the non-fact limit holds."""
    ok = [(row[mode]["fact_recall"], theta) for theta, row in table.items()
          if row[mode]["nonfact_silent"] >= 0.95
          and (mode == "learned" or row[mode]["forbidden_items"] <= row["rules"]["forbidden_items"])]
    if not ok:
        return max(table)
    return max(ok)[1]


def sequences_cv(items: list[dict[str, Any]], k: int, models: Mapping[int, Path], thresholds: Mapping[str, float],
                 pos: Any) -> dict[str, Any]:
    """Sequence accuracy through ``Memory``, each sequence with the model that did not see it."""
    from hlmem.adapters.extraction.wiring import combined_extractor
    from hlmem.application.extraction.extractors import RuleExtractor

    got: dict[str, list[bool]] = {"rules": [], "union": [], "fallback": [], "learned": []}
    for f, held in enumerate(folds(items, k)):
        made = {m: LearnedExtractor(DEFAULT_REGISTRY, pos, model=models[f], threshold=thresholds[m])
                for m in ("union", "fallback", "learned")}
        extractors = {"rules": RuleExtractor(DEFAULT_REGISTRY, tagger=pos), "learned": made["learned"]} | {
            m: combined_extractor(DEFAULT_REGISTRY, pos, learned=made[m], mode=m) for m in ("union", "fallback")}
        for i in held:
            if items[i]["kind"] != "sequence":
                continue
            for mode, extractor in extractors.items():
                got[mode].append(bench.score_sequence(items[i], extractor=extractor)[0])
    return {m: round(sum(v) / max(len(v), 1), 3) for m, v in got.items()} | {"n": len(got["rules"])}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, nargs="+", default=DATA, help="training JSONL files, in order")
    parser.add_argument("--out", type=Path, default=None, help="folder for the model (default: the package's)")
    parser.add_argument("--folds", type=int, default=5, help="cross-validation folds (0: none, keep the threshold)")
    parser.add_argument("--threshold", type=float, default=None, help="use this threshold instead of choosing one")
    parser.add_argument("--no-sequences", action="store_true", help="skip the sequence cross-validation")
    args = parser.parse_args(argv)
    if any(p.name in ("fresh_r3.jsonl", "sealed.jsonl") for p in args.data):
        parser.error("fresh_r3.jsonl and sealed.jsonl are held out: never train on them")
    model_path, meta_path = default_model()
    if args.out is not None:
        model_path, meta_path = args.out / MODEL_FILE, args.out / META_FILE
    pos = jieba_tagger()
    items = load_items(args.data)
    print(f"training data: {', '.join(p.name for p in args.data)}: {len(items)} items")
    meta: dict[str, Any] = {"format": 1, "data": [p.name for p in args.data], "data_sha256": data_digest(args.data),
                            "params": PARAMS, "relation_slots": relation_slots(items)}
    theta = args.threshold
    if args.folds > 1:
        with tempfile.TemporaryDirectory() as tmp:
            cv = cross_validate(items, args.folds, pos, Path(tmp))
            print(f"{args.folds}-fold cross-validation (fact items and non-facts), per threshold:")
            print(f"{'θ':>5}  " + "  ".join(f"{m:>26}" for m in MODES))
            for t, row in cv["table"].items():
                print(f"{t:>5}  " + "  ".join(f"{row[m]['fact_recall']:>6} {row[m]['nonfact_silent']:>6} "
                                             f"{row[m]['forbidden_items']:>3}/{row[m]['wrong_subject_items']:<3}      "
                                             for m in MODES))
            print("  (each cell: fact recall, non-facts silent, items with a forbidden claim / of them a wrong subject)")
            per_mode = {m: choose(cv["table"], m) for m in ("union", "fallback", "learned")}
            theta = per_mode["union"] if theta is None else theta
            meta["thresholds"] = {m: (theta if m == "union" else t) for m, t in per_mode.items()}
            meta["cv"] = {"folds": args.folds, "thresholds": meta["thresholds"],
                          "at_threshold": {m: cv["table"][t][m] for m, t in meta["thresholds"].items()}
                          | {"rules": cv["table"][theta]["rules"]}}
            if not args.no_sequences:
                meta["cv"]["sequences"] = sequences_cv(items, args.folds, cv["models"], meta["thresholds"], pos)
            print(f"chosen thresholds {meta['thresholds']}: {json.dumps(meta['cv'], ensure_ascii=False)}")
    if theta is None:
        old = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.is_file() else {}
        theta = float(old.get("threshold", 0.5))
        meta["thresholds"] = old.get("thresholds", {})
    meta["threshold"] = theta
    t = time.perf_counter()
    exs, missed = build(items, pos)
    train(exs, model_path)
    meta["examples"] = len(exs)
    meta["unplaced_expectations"] = missed
    meta["model_sha256"] = file_digest(model_path)
    meta_path.write_text(json.dumps(meta, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"model {model_path} ({model_path.stat().st_size:,} bytes, sha256 {meta['model_sha256'][:16]}…) "
          f"trained on {len(exs)} statements in {time.perf_counter() - t:.0f} s; {missed} expectations not found in their text")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
