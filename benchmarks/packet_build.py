"""What building a context packet costs, with the default estimate counted per line or per text.

``build_packet`` counts its whole text for every prefix its search tries and every cut of the
last item. With the default :func:`estimate_tokens` it estimates each distinct line once
(``LineCounter``; the same counts, docs/packet.md "Counting tokens"); any other counter, here the
same estimate behind a wrapper, re-reads every line each time. Items: the first 50 turns of a
LoCoMo conversation as events with ULID-sized ids (what ``Memory.recall(k=50)`` hands the packet),
packed at each budget; CPU time per packet (``process_time``), median of ``--rounds`` rounds.

    python benchmarks/packet_build.py                      # LoCoMo conv-26 from ../shared/datasets
    python benchmarks/packet_build.py --locomo PATH --rounds 7
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import string
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import datasets_dir, emit, machine_facts  # noqa: E402

from hlmem.application.packet import PacketItem, build_packet, estimate_tokens  # noqa: E402

DATASETS = datasets_dir()
ULID_CHARS = string.digits + "ABCDEFGHJKMNPQRSTVWXYZ"


def items(path: Path, n: int) -> list[PacketItem]:
    """The first ``n`` turns of the file's first conversation as events, a minute apart."""
    conv = json.loads(path.read_text(encoding="utf-8"))[0]["conversation"]
    turns = [t for k in sorted((k for k in conv if k.startswith("session_") and k[8:].isdigit()), key=lambda k: int(k[8:]))
             for t in conv[k]][:n]
    rng = random.Random(39)
    start = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
    return [PacketItem(id="ev_" + "".join(rng.choices(ULID_CHARS, k=26)), text=f"{t['speaker']}: {t['text']}",
                       kind="event", occurred_at=start + timedelta(minutes=i)) for i, t in enumerate(turns)]


def cpu_ms(fn, repeat: int) -> float:
    start = time.process_time()
    for _ in range(repeat):
        fn()
    return (time.process_time() - start) * 1000 / repeat


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--locomo", type=Path, default=DATASETS / "locomo" / "locomo_dev.json")
    parser.add_argument("--items", type=int, default=50)
    parser.add_argument("--budgets", default="250,500,1000,2000")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=20, help="packets built per round and budget")
    opts = parser.parse_args(argv)
    if not opts.locomo.exists():
        raise SystemExit(f"{opts.locomo} does not exist (give --locomo PATH)")
    pool = items(opts.locomo, opts.items)
    now = pool[-1].occurred_at + timedelta(days=1)

    def wrapped(text: str) -> int:  # the same estimate, but not the default function: no per-line reuse
        return estimate_tokens(text)

    rows = []
    print(f"{len(pool)} items; CPU ms per packet, median of {opts.rounds} rounds of {opts.repeat}")
    print(f"{'budget':>7} {'items in':>8} {'per line':>9} {'per text':>9} {'speed-up':>8}")
    for budget in (int(b) for b in opts.budgets.split(",")):
        fast = build_packet(pool, budget_tokens=budget, now=now)
        slow = build_packet(pool, budget_tokens=budget, now=now, count_tokens=wrapped)
        assert fast == slow, "the per-line counts must give the same packet"
        line = statistics.median(cpu_ms(lambda: build_packet(pool, budget_tokens=budget, now=now), opts.repeat)
                                 for _ in range(opts.rounds))
        text = statistics.median(cpu_ms(lambda: build_packet(pool, budget_tokens=budget, now=now,
                                                             count_tokens=wrapped), opts.repeat)
                                 for _ in range(opts.rounds))
        rows.append({"budget": budget, "items": len(fast.included), "per_line_ms": round(line, 3),
                     "per_text_ms": round(text, 3), "speedup": round(text / line, 1)})
        print(f"{budget:>7} {len(fast.included):>8} {line:>9.3f} {text:>9.3f} {text / line:>7.1f}x")
    emit({"benchmark": "packet_build", "machine": machine_facts(), "items": len(pool), "rounds": opts.rounds,
          "repeat": opts.repeat, "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
