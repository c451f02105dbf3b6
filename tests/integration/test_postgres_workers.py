"""Multi-writer (issue 18 item 4): 8 worker processes drain one PostgreSQL job queue.

200 jobs over 40 sessions; eight processes lease windows (``FOR UPDATE SKIP LOCKED`` under a
per-session advisory lock) and record each job in the transaction that completes it. One more
process leases a window and is SIGKILLed holding it; its lease expires and the others take
those jobs. Afterwards every job succeeded, every job was recorded exactly once, and the killed
worker's jobs were taken again (a second attempt).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import psycopg

from hlmem.adapters.ids import SequentialIds
from hlmem.adapters.postgres.jobs import PostgresJobQueue
from hlmem.adapters.postgres.store import PostgresStorage

WORKER = str(Path(__file__).resolve().parents[1] / "support" / "pg_queue_worker.py")
JOBS, SESSIONS, WORKERS = 200, 40, 8


def _start(url: str, owner: str, mode: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-P", WORKER, url, owner, mode], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})


def test_eight_workers_drain_one_queue_once_each_and_a_killed_workers_jobs_are_not_lost(postgres_url: str) -> None:
    store = PostgresStorage(postgres_url)
    try:
        store.db.execute("CREATE TABLE processed (job_id text NOT NULL, owner text NOT NULL, attempts int NOT NULL)")
        queue = PostgresJobQueue(store.db, SequentialIds().new)
        now = datetime.now(timezone.utc)
        with store.transaction():
            for n in range(JOBS):
                queue.enqueue(kind="test.work", idempotency_key=f"k{n}", namespace="default",
                              session_id=f"s{n % SESSIONS}", payload={"n": n}, now=now)
    finally:
        store.close()
    victim = _start(postgres_url, "victim", "stall")
    line = victim.stdout.readline()
    assert line.startswith("leased "), (line, victim.stderr.read() if victim.poll() is not None else "")
    stalled = line.split()[1:]
    workers = [_start(postgres_url, f"w{i}", "drain") for i in range(WORKERS)]
    os.kill(victim.pid, signal.SIGKILL)  # dies holding its lease
    victim.wait(timeout=30)
    outputs = [w.communicate(timeout=240) for w in workers]
    assert all(w.returncode == 0 for w in workers), [err[-2000:] for _out, err in outputs]
    with psycopg.connect(postgres_url, autocommit=True) as con:
        states = dict(con.execute("SELECT state, count(*) FROM jobs GROUP BY state").fetchall())
        assert states == {"succeeded": JOBS}
        rows = con.execute("SELECT job_id, owner, attempts FROM processed").fetchall()
        owners = {r[1] for r in rows}
    ids = [r[0] for r in rows]
    assert len(ids) == len(set(ids)) == JOBS  # none processed twice, none lost
    assert "victim" not in owners and len(owners) >= 2  # several workers shared the queue
    retried = {r[0]: r[2] for r in rows if r[0] in stalled}
    assert set(retried) == set(stalled) and all(a == 2 for a in retried.values())
    done = sum(int(out.split()[-1]) for out, _err in outputs)
    assert done == JOBS
