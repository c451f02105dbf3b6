"""Compound questions and corrections as people type them: does recall search the right questions?

Each line of a set (format: ``benchmarks/query_parts/README.md``) is a message a user typed and the
questions it asks (``parts``: one for a single question, the last question meant after a
correction). ``hlmem.domain.query_parts.question_parts`` reads the message; an item is right when
it returns as many parts as the gold, in order, each holding its gold part's words (a part may keep
the context said before it: only word characters are compared, case-folded) and none holding
another gold part's words; in a message that corrects itself the last part and its gold part may
differ by at most 4 word characters at their ends (a cue's remnant such as 是: no disowned
question or chatter).

    python benchmarks/query_parts.py                                   # the development set
    python benchmarks/query_parts.py --set PATH -v                     # a held-out set, misses shown

Prints accuracy overall, per language and per class, and one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import unicodedata
from collections import defaultdict
from pathlib import Path

from _common import emit, machine_facts

from hlmem.domain.query_parts import question_parts

HERE = Path(__file__).resolve().parent
DEFAULT = HERE / "query_parts" / "dev.jsonl"


def words(text: str) -> str:
    """The word characters of ``text``, NFKC-normalised and case-folded."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).casefold() if ch.isalnum())


#: After a correction a part may keep this many word characters besides its gold part (a cue's
#: remnant such as "是"); anything longer is the disowned question or chatter kept.
SLACK = 4


def right(predicted: tuple[str, ...], gold: list[str], *, corrected: bool = False) -> bool:
    """Whether ``predicted`` holds the gold parts one to one, in order; with ``corrected`` (the
    message corrects itself) the last part holds little besides its gold part."""
    if len(predicted) != len(gold):
        return False
    got, want = [words(p) for p in predicted], [words(g) for g in gold]
    if corrected:
        if abs(len(got[-1]) - len(want[-1])) > SLACK or not (want[-1] in got[-1] or got[-1] in want[-1]):
            return False
        got[-1] = want[-1]
    return all(w in g for g, w in zip(got, want, strict=True)) and not any(
        want[j] in got[i] for i in range(len(got)) for j in range(len(want)) if i != j and want[j] not in want[i])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", type=Path, default=DEFAULT, help="a JSON Lines set (default: the development set)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every miss")
    args = ap.parse_args(argv)
    rows = [json.loads(line) for line in args.set.read_text(encoding="utf-8").splitlines() if line.strip()]
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    misses = []
    for row in rows:
        predicted = question_parts(row["text"])
        ok = right(predicted, row["parts"], corrected="correction" in row["class"])
        for key in ("all", f"lang {row['lang']}", f"class {row['class']}"):
            tally[key][0] += ok
            tally[key][1] += 1
        if not ok:
            misses.append({"id": row["id"], "text": row["text"], "gold": row["parts"], "got": list(predicted)})
    print(f"query parts: {args.set.name}, {len(rows)} messages")
    for key, (good, n) in sorted(tally.items(), key=lambda kv: (kv[0] != "all", kv[0])):
        print(f"  {key:28} {good:4}/{n:<4} {good / n:.3f}")
    if args.verbose:
        for miss in misses:
            print(json.dumps(miss, ensure_ascii=False), file=sys.stderr)
    emit({"benchmark": "query_parts", "set": args.set.name, "messages": len(rows),
          "accuracy": {k: round(g / n, 3) for k, (g, n) in tally.items()},
          "misses": [m["id"] for m in misses], "machine": machine_facts()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
