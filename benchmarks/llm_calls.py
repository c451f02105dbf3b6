"""LLM calls per 100 chat events: how much the write pipeline's per-session batching saves.

Chat turns come from LoCoMo (``locomo_dev.json``: N sessions × up to M turns each, both speakers,
in order). Each mode ingests them into a fresh SQLite store with ``Memory(..., llm=local)``
pointed at a scripted OpenAI-compatible server on 127.0.0.1 (``tests/support/llm_server.py``)
that answers every call with a valid, empty extraction, and counts the requests it received.

Modes:

- ``per_event``: ``add`` without ``--defer``; each add processes its own session at once (the
  CLI default when a user types one line), so every event is its own window: the baseline;
- ``drain``: every event deferred, then one ``worker --once`` (cron): windows of ``--window``
  events per session, partial windows flushed at the end;
- ``live``: events arrive ``--gap`` seconds apart (LoCoMo has a date per session, none per turn)
  while a worker polls: it steps at each arrival, before and after the event is added, so a
  window that became ready while the chat went on is taken then. A window closes at
  ``--window`` events, when its session has had no new event for ``--idle`` seconds, or when its
  oldest event has waited ``--max-wait`` seconds (ADR 0013). Sessions are a day apart, so a
  session's last partial window closes by idleness before the next session starts.

Time is a ``FixedClock`` moved by the script: nothing sleeps. Target: ≤ 20 calls per 100 events.

    python benchmarks/llm_calls.py                                  # 20 sessions, all their turns
    python benchmarks/llm_calls.py PATH/locomo_dev.json --sessions 60 --gap 10 30 60
    python benchmarks/llm_calls.py --window 5 --idle inf --max-wait 120   # the old rule: 5 events or 120 s
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from _common import HERE, emit, machine_facts, print_table

sys.path.insert(0, str(HERE.parent / "tests"))
from support.llm_server import ScriptedLLMServer, completion  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.application.worker import WorkerConfig  # noqa: E402

DEFAULT_DATA = Path("/work/shared/datasets/locomo/locomo_dev.json")
TARGET_PER_100 = 20
COLUMNS = ("mode", "gap_s", "sessions", "events", "llm_calls", "calls_per_100", "events_per_call",
           "max_events_per_call", "prompt_kib_per_call", "seconds", "events_per_s")


def sessions(path: Path, count: int, turns: int) -> list[tuple[str, datetime, list[tuple[str, str]]]]:
    """The first ``count`` sessions in file order: (id, start, [(role, text)]), ``turns`` at most each."""
    out = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        conv = sample["conversation"]
        speaker_a = conv["speaker_a"]
        numbers = sorted(int(k.split("_")[1]) for k in conv if k.startswith("session_") and k.count("_") == 1)
        for n in numbers:
            dialog = conv[f"session_{n}"]
            if not dialog:
                continue
            start = datetime.strptime(conv[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
            lines = [("user" if d["speaker"] == speaker_a else "assistant", d["text"]) for d in dialog
                     if d.get("text", "").strip()]
            out.append((f"{sample['sample_id']}:s{n}", start.replace(tzinfo=timezone.utc), lines[:turns or None]))
            if len(out) == count:
                return out
    return out


def _turns(data, gap: float) -> Iterator[tuple[str, datetime, str, str]]:
    """(session, occurred_at, role, text), in arrival order.

    Sessions are laid one after another on one timeline (each starts a day after the previous
    one ended): LoCoMo's session dates are not ordered across conversations, and a clock that
    cannot go back would otherwise squeeze turns together and overstate batching.
    """
    at = data[0][1]
    for session_id, _start, lines in data:
        for role, text in lines:
            yield session_id, at, role, text
            at += timedelta(seconds=gap)
        at += timedelta(days=1)


def run_mode(mode: str, data, gap: float, window: int, idle: float, max_wait: float, store: Path) -> dict[str, Any]:
    """Ingest every turn under ``mode``; count the LLM requests the server saw."""
    with ScriptedLLMServer(fallback=completion({"claims": []})) as server:
        settings = {"provider": "local", "base_url": server.base_url, "model": "scripted", "max_retries": 0}
        first = data[0][1]
        with Memory(store, embedder="none", now=first, llm=settings) as mem:
            worker = mem._container.worker()
            worker.config.window_size = window
            worker.config.window_idle_seconds = idle
            worker.config.window_max_seconds = max_wait
            events = 0
            started = time.perf_counter()
            for session_id, at, role, text in _turns(data, gap):
                mem.clock.set(max(mem.clock.now(), at))
                if mode == "live":
                    _step_all(worker)  # windows that became ready while the chat went on
                mem.add(text, session=session_id, role=role, occurred_at=at, process=mode == "per_event")
                events += 1
                if mode == "live":
                    _step_all(worker)  # a window this event filled
            quiet = min(idle, max_wait)
            if mode == "live" and math.isfinite(quiet):  # the last session goes quiet
                mem.clock.advance(timedelta(seconds=quiet))
                _step_all(worker)
                left = mem.jobs.job_counts().get("extract", {}).get("pending", 0)
                assert left == 0, f"{left} jobs still pending after the last session went quiet"
            mem.run_worker(once=True)  # anything left (drain: everything)
            seconds = time.perf_counter() - started
            counts = mem.jobs.job_counts().get("extract", {})
            ledger_calls = len(mem._container.ledger().calls())
        sizes = [len(r.body) for r in server.requests]
        per_call = [len(json.loads(r.json()["messages"][1]["content"].split("\n", 1)[1])["events"])
                    for r in server.requests]
    calls = len(sizes)
    assert calls == ledger_calls, (calls, ledger_calls)
    assert counts == {"succeeded": events}, counts
    return {
        "mode": mode, "gap_s": gap if mode == "live" else None, "sessions": len(data), "events": events,
        "llm_calls": calls, "calls_per_100": round(100 * calls / events, 2) if events else None,
        "events_per_call": round(events / calls, 2) if calls else None,
        "max_events_per_call": max(per_call, default=0),
        "prompt_kib_per_call": round(sum(sizes) / calls / 1024, 1) if calls else None,
        "seconds": round(seconds, 2), "events_per_s": round(events / seconds, 1) if seconds else None,
    }


def _step_all(worker) -> None:
    """What a polling worker does at one instant: take every window that is ready."""
    while worker.step():
        pass


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", type=Path, default=DEFAULT_DATA, help="locomo_dev.json")
    parser.add_argument("--sessions", type=int, default=20, help="sessions to ingest (file order)")
    parser.add_argument("--turns", type=int, default=0, help="turns per session at most (0: all)")
    defaults = WorkerConfig()
    parser.add_argument("--window", type=int, default=defaults.window_size, help="WorkerConfig.window_size")
    parser.add_argument("--idle", type=float, default=defaults.window_idle_seconds,
                        help="WorkerConfig.window_idle_seconds: a session this quiet closes its window")
    parser.add_argument("--max-wait", type=float, default=defaults.window_max_seconds,
                        help="WorkerConfig.window_max_seconds: the oldest event waits no longer")
    parser.add_argument("--gap", type=float, nargs="+", default=[10.0, 30.0, 60.0],
                        help="seconds between turns in live mode (one row each)")
    args = parser.parse_args(argv)

    data = sessions(args.data, args.sessions, args.turns)
    if not data:
        raise SystemExit(f"no sessions in {args.data}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="hlmem-llm-calls-") as tmp:
        plan = [("per_event", 0.0), ("drain", 0.0), *(("live", g) for g in args.gap)]
        for i, (mode, gap) in enumerate(plan):
            rows.append(run_mode(mode, data, gap, args.window, args.idle, args.max_wait, Path(tmp) / f"{i}.db"))
    events = rows[0]["events"]
    ideal = sum(math.ceil(len(lines) / args.window) for _, _, lines in data)
    print_table(f"LLM calls per 100 chat events (LoCoMo, {len(data)} sessions, {events} events; window "
                f"{args.window} events, {args.idle:g} s idle or {args.max_wait:g} s oldest; "
                f"fewest possible: {ideal} calls)", rows, COLUMNS)
    batched = [r for r in rows if r["mode"] != "per_event"]
    worst = max(r["calls_per_100"] for r in batched)
    print(f"\ntarget ≤ {TARGET_PER_100} calls per 100 events: "
          f"{'met' if worst <= TARGET_PER_100 else 'NOT met'} (worst batched mode: {worst})")
    emit({"benchmark": "llm_calls", "data": str(args.data), "sessions": len(data), "events": events,
          "window_size": args.window, "window_idle_seconds": args.idle, "window_max_seconds": args.max_wait,
          "fewest_calls": ideal,
          "target_calls_per_100": TARGET_PER_100, "target_met": worst <= TARGET_PER_100,
          "results": rows, "machine": machine_facts()})


if __name__ == "__main__":
    main()
