"""A worker process draining a PostgreSQL job queue, for tests/integration/test_postgres_workers.py.

    python pg_queue_worker.py URL OWNER drain   # lease windows, record each job, complete, until empty
    python pg_queue_worker.py URL OWNER stall   # lease one window, say so, then hang (to be SIGKILLed)

Recording a job and completing it are one transaction: a worker killed in between leaves neither,
and a job whose lease was lost (``ConcurrencyConflict`` from ``complete``) is not recorded either.
"""

from __future__ import annotations

import sys
import time
from datetime import datetime, timezone

from hlmem.adapters.ids import UlidGenerator
from hlmem.adapters.postgres.jobs import PostgresJobQueue
from hlmem.adapters.postgres.store import PostgresStorage
from hlmem.domain.errors import ConcurrencyConflict

KIND = "test.work"
LEASE_SECONDS = 2.0


def _now() -> datetime:
    return datetime.now(timezone.utc)


def main(url: str, owner: str, mode: str) -> int:
    store = PostgresStorage(url)
    queue = PostgresJobQueue(store.db, UlidGenerator().new)
    idle_since = time.monotonic()
    done = 0
    try:
        while True:
            jobs = queue.claim_window(kind=KIND, owner=owner, now=_now(), lease_seconds=LEASE_SECONDS, size=3,
                                      max_wait_seconds=0.0, flush=True)
            if mode == "stall" and jobs:
                print("leased " + " ".join(j.job_id for j in jobs), flush=True)
                time.sleep(3600)
            if not jobs:
                # Nothing ready: finished, unless a lease of a killed worker is still to expire.
                (left,) = store.db.execute("SELECT count(*) FROM jobs WHERE state <> 'succeeded'").fetchone()
                if not left or time.monotonic() - idle_since > 30:
                    break
                time.sleep(0.1)
                continue
            idle_since = time.monotonic()
            for job in jobs:
                try:
                    with store.transaction():
                        store.db.execute("INSERT INTO processed (job_id, owner, attempts) VALUES (%s, %s, %s)",
                                         (job.job_id, owner, job.attempts))
                        time.sleep(0.005)  # the work
                        queue.complete([job.job_id], owner=owner, now=_now())
                    done += 1
                except ConcurrencyConflict:
                    pass  # the lease expired and another worker has the job: nothing was recorded
    finally:
        store.close()
    print(f"done {done}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
