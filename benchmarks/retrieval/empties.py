"""Which questions come back empty, and why: ``python -m benchmarks.retrieval.empties ANSWERS.jsonl [...]``.

Reads the answers files ``run.py`` writes (``<cache-dir>/results/<label>-answers.jsonl``) and
prints, per file, how many hlmem answers are empty and for what reason, read from the row's
notes and from the retry without time reading that the runner makes for every empty answer:

- ``time reading``: the answer is empty, but the same question asked without reading its time
  words (``understand_query=False``, same reference time) returns something. These must be 0.
- ``after the question``: empty with or without time reading, but not when asked at the wall clock
  (second retry): every memory that matched happened after the question's own date, so none is
  visible at it (valid time); none of them can be the question's answer.
- ``relevance floor``: nothing reached the similarity floor, with or without time reading.
- ``known_at (old)``: an answer of a run without the retry (hlmem before the reference time) whose
  notes say it was filtered at an inferred knowledge time, the defect of issue 11 part 3.
- ``other``: empty for another reason (listed with the question id).

It also counts inferred periods (how many questions were read as a period) and, of those, the
periods that start after the question's reference time or in another year than the data's
(``period after reference`` uses the row's ``reference``, or for rows of older runs that lack
it, the question's own date from the data set named by ``--references locomo|memdaily``, found under ``--data DIR``, default the runner's data folder).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any


def reason(row: dict[str, Any]) -> str:
    """Why an empty answer is empty (see the module docstring)."""
    notes = row.get("notes", [])
    if row.get("empty_without_time_reading") is False:
        return "time reading"
    if row.get("empty_at_the_clock") is False:
        return "after the question"
    if any(n.startswith("relevance floor") for n in notes):
        return "relevance floor"
    if any(n.startswith("inferred known_at") for n in notes):
        return "known_at (old)"
    return "other"


def _period_start(row: dict[str, Any]) -> str | None:
    if row.get("period"):
        return row["period"][0]
    for note in row.get("notes", []):
        if note.startswith("inferred period ["):
            start = note[len("inferred period ["):].split(",")[0]
            return None if start == "None" else start
    return None


def references(dataset: str, folder: Path | None = None) -> dict[str, str]:
    """Question id -> the question's own date (ISO 8601), from the data set's file under ``folder``."""
    from .cli import DATASETS
    from .data import load_locomo, load_memdaily

    folder = folder or DATASETS
    ds = (load_locomo(folder / "locomo" / "locomo_dev.json") if dataset == "locomo"
          else load_memdaily(folder / "memsim_memdaily"))
    return {q.id: q.reference.isoformat() for h in ds.haystacks for q in h.queries if q.reference is not None}


def summarize(path: Path, refs: dict[str, str] | None = None) -> dict[str, Any]:
    """Counts for one answers file (hlmem rows only); ``refs`` fills in a missing ``reference``."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [r if r.get("reference") or not refs else {**r, "reference": refs.get(r["query"])}
            for r in rows if r["method"] == "hlmem"]
    empty = [r for r in rows if not r["ranked"]]
    periods = [r for r in rows if r.get("period") or any(n.startswith("inferred period") for n in r.get("notes", []))]
    starts = [s for r in periods if (s := _period_start(r))]
    after = sum(1 for r in periods if r.get("reference") and (s := _period_start(r))
                and datetime.fromisoformat(s) > datetime.fromisoformat(r["reference"]))
    scored = [r for r in rows if r["gold"]]
    return {
        "file": path.name, "questions": len(rows), "empty": len(empty),
        "empty_by_reason": dict(Counter(reason(r) for r in empty)),
        "other": [r["query"] for r in empty if reason(r) == "other"],
        "time_reading": [r["query"] for r in empty if reason(r) == "time reading"],
        "r@10": round(sum(r["r@10"] for r in scored) / len(scored), 3) if scored else None,
        "periods": len(periods), "period_after_reference": after,
        "period_start_years": dict(sorted(Counter(s[:4] for s in starts).items())),
        "as_of": sum(1 for r in rows if any("(as of)" in n for n in r.get("notes", []))),
    }


def main(argv: list[str] | None = None) -> int:
    """Print one JSON summary per answers file."""
    args = list(sys.argv[1:] if argv is None else argv)
    refs = None
    if "--references" in args:
        at = args.index("--references")
        folder = None
        if "--data" in args:
            where = args.index("--data")
            folder = Path(args[where + 1])
            del args[where:where + 2]
            at = args.index("--references")
        refs = references(args[at + 1], folder)
        del args[at:at + 2]
    if not args:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    for path in map(Path, args):
        print(json.dumps(summarize(path, refs), ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
