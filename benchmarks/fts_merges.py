"""What merging a small store's full-text segments (ADR 0088) costs per add, and until which size it fires.

    python benchmarks/fts_merges.py                  # LoCoMo conv-26 and conv-30, merges on then off, twice
    python benchmarks/fts_merges.py --growth 4124    # every LoCoMo dev turn into one store: where merges stop

Per add, as ``benchmarks/locomo_overhead.py`` measures it (one ``Memory.add(…, extract=False)`` per
turn, SQLite ``synchronous=FULL``, embedder ``none`` — the vector is not what is measured here): CPU
time of each add, split into the adds whose transaction merged a table and the others, with the
merges on and with them off (``fts_compact.compact`` replaced by a no-op), alternating. With
``--growth N``: N turns into one store, and for each table the number of events at its last merge
and its segments and pages at the end. One JSON line at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

DEFAULT_LOCOMO = Path("/work/shared/datasets/locomo/locomo_dev.json")


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * (len(ordered) - 1)))] if ordered else 0.0


#: ``fts_compact.compact``'s settings for this run (``--min-segments``, ``--pages``; empty: its defaults).
SETTINGS: dict[str, int] = {}


def _adds(docs: list[Any], path: Path, merging: bool, synchronous: str) -> tuple[list[float], list[list[str]], Any]:
    """CPU seconds of each add and the tables its transaction merged."""
    from hlmem import Memory
    from hlmem.adapters.sqlite import fts_compact

    real = fts_compact.compact
    merged: list[str] = []

    def counting(con: Any, tables: Any = fts_compact.TABLES) -> list[str]:
        done = real(con, tables, **SETTINGS) if merging else []
        merged.extend(done)
        return done

    fts_compact.compact = counting
    times, merges = [], []
    try:
        mem = Memory(path, embedder="none", synchronous=synchronous)
        try:
            for doc in docs:
                merged.clear()
                c = time.process_time()
                mem.add(doc.text, session=doc.session or "default", role=doc.speaker or "user",
                        occurred_at=doc.occurred_at, extract=False)
                times.append(time.process_time() - c)
                merges.append(list(merged))
            state = {t: fts_compact.segments(mem.storage.connection, t) for t in fts_compact.TABLES}
        finally:
            mem.close()
    finally:
        fts_compact.compact = real
    return times, merges, state


def per_add(args: argparse.Namespace, hays: list[Any]) -> dict[str, Any]:
    ms = 1000.0
    rounds: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="hlmem-merges-") as tmp:
        _adds(list(hays[0].docs[:3]), Path(tmp) / "warm.db", True, args.synchronous)  # jieba, caches
        for r in range(args.rounds):
            for merging in (True, False):
                times, merges = [], []
                for hay in hays:
                    t, m, _ = _adds(list(hay.docs), Path(tmp) / f"{hay.name}-{r}-{merging}.db", merging,
                                    args.synchronous)
                    times += t
                    merges += m
                with_merge = [t for t, m in zip(times, merges) if m]
                rounds.append({
                    "round": r + 1, "merges": "on" if merging else "off", "adds": len(times),
                    "mean": round(statistics.mean(times) * ms, 3), "p50": round(_pct(times, 0.5) * ms, 3),
                    "p95": round(_pct(times, 0.95) * ms, 3), "max": round(max(times) * ms, 3),
                    "adds_merging": len(with_merge) if merging else 0,
                    "merging_mean": round(statistics.mean(with_merge) * ms, 3) if merging and with_merge else None,
                    "merging_max": round(max(with_merge) * ms, 3) if merging and with_merge else None,
                    "loadavg": round(os.getloadavg()[0], 2)})
                print(json.dumps(rounds[-1]), file=sys.stderr)
    return {"per_add": rounds}


def growth(args: argparse.Namespace, hays: list[Any]) -> dict[str, Any]:
    docs = [d for h in hays for d in h.docs][:args.growth]
    with tempfile.TemporaryDirectory(prefix="hlmem-merges-") as tmp:
        times, merges, state = _adds(docs, Path(tmp) / "growth.db", not args.off, args.synchronous)
    last = {t: max((n + 1 for n, m in enumerate(merges) if t in m), default=None) for t in state}
    counts = {t: sum(t in m for m in merges) for t in state}
    ms = 1000.0
    tail = times[len(times) // 2:]  # the second half: the store at its larger sizes
    return {"growth": {"merging": not args.off, "events": len(docs), "synchronous": args.synchronous,
                       "add_cpu_ms": {"mean": round(statistics.mean(times) * ms, 3),
                                      "second_half_mean": round(statistics.mean(tail) * ms, 3),
                                      "p95": round(_pct(times, 0.95) * ms, 3), "max": round(max(times) * ms, 3)}, "last_merge_at_event": last, "merges": counts,
                       "segments_pages_at_end": {t: list(v) if v else None for t, v in state.items()}}}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    ap.add_argument("--conversations", default="conv-26,conv-30")
    ap.add_argument("--synchronous", default="FULL", choices=("FULL", "NORMAL", "OFF"))
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--growth", type=int, default=None, help="add this many LoCoMo turns to one store instead")
    ap.add_argument("--off", action="store_true", help="with --growth: merges off (the store as before)")
    ap.add_argument("--min-segments", type=int, default=None, help="fts_compact.compact's min_segments")
    ap.add_argument("--pages", type=int, default=None, help="fts_compact.compact's merge budget in pages")
    args = ap.parse_args(argv)
    from retrieval.data import load_locomo

    SETTINGS.update({k: v for k, v in (("min_segments", args.min_segments), ("pages", args.pages)) if v is not None})

    hays = load_locomo(args.locomo).haystacks
    if args.growth is None:
        wanted = [c.strip() for c in args.conversations.split(",") if c.strip()]
        result = per_add(args, [h for h in hays if h.name in wanted])
    else:
        result = growth(args, hays)
    print(json.dumps({"benchmark": "fts_merges", "settings": SETTINGS, **result, "loadavg": [round(x, 2) for x in os.getloadavg()]}))


if __name__ == "__main__":
    main()
