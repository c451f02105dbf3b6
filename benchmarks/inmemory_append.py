"""Per-append cost of the in-memory store as it grows (issue 12): one observation per append,
through ``WriteService.record`` (the path ``Memory.add`` takes, without embedding), timed per
window of appends. An O(1)-amortised append keeps the late windows near the early ones.

    python benchmarks/inmemory_append.py --n 8000 --window 1000
    python benchmarks/inmemory_append.py --n 8000 --profile   # cProfile of the last window

Prints a table and ends with one JSON line (machine facts, ms per append per window).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from datetime import datetime, timedelta, timezone

from _common import emit, machine_facts, print_table

from hlmem.adapters.clock import FixedClock
from hlmem.adapters.ids import SequentialIds
from hlmem.adapters.inmemory.store import InMemoryStorage
from hlmem.application.writes import WriteService
from hlmem.domain.commands import RecordObservation
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

TEXTS = ("I moved to Lisbon last spring", "我们周末去爬山吧", "The meeting is on Thursday at ten",
         "Remind me to call the dentist", "She prefers green tea to coffee")


def run(n: int, window: int, profile: bool) -> list[dict]:
    store = InMemoryStorage()
    clock = FixedClock(datetime(2026, 1, 1, tzinfo=timezone.utc))
    writes = WriteService(store, clock, SequentialIds(), DEFAULT_REGISTRY)
    rows: list[dict] = []
    profiler = cProfile.Profile()
    for start in range(0, n, window):
        last = start + window >= n
        if profile and last:
            profiler.enable()
        began = time.perf_counter()
        for i in range(start, min(start + window, n)):
            clock.advance(timedelta(seconds=1))
            writes.record(RecordObservation(text=f"{TEXTS[i % len(TEXTS)]} #{i}", session_id=f"s{i // 50}"))
        seconds = time.perf_counter() - began
        if profile and last:
            profiler.disable()
        rows.append({"events_before": start, "appends": min(window, n - start),
                     "ms_per_append": round(seconds * 1000 / min(window, n - start), 3)})
    if profile:
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(25)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=8000)
    parser.add_argument("--window", type=int, default=1000)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    rows = run(args.n, args.window, args.profile)
    print_table("in-memory append, per window", rows, ("events_before", "appends", "ms_per_append"))
    emit({"benchmark": "inmemory_append", "machine": machine_facts(), "n": args.n, "window": args.window,
          "windows": rows, "first_ms": rows[0]["ms_per_append"], "last_ms": rows[-1]["ms_per_append"]})


if __name__ == "__main__":
    main()
