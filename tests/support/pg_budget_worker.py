"""A worker process on a PostgreSQL store with a daily budget, for tests/integration/test_postgres_budget.py.

    python pg_budget_worker.py URL BASE_URL REQUESTS_PER_DAY GO_FILE

Opens ``Memory(URL)`` with the scripted LLM at ``BASE_URL`` and a budget of ``REQUESTS_PER_DAY``,
waits until ``GO_FILE`` exists (so two workers start together), drains the queue once and prints
its stats as one JSON line.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from hlmem import Memory
from hlmem.adapters.settings import Settings


def main(url: str, base_url: str, requests_per_day: str, go: str) -> int:
    llm = {"provider": "local", "base_url": base_url, "model": "scripted-model", "max_retries": 0,
           "timeout_s": 10.0, "max_tokens": 256}
    settings = Settings.from_mapping({"budget": {"requests_per_day": int(requests_per_day)}})
    with Memory(url, embedder="none", llm=llm, settings=settings) as mem:
        print("ready", flush=True)
        deadline = time.monotonic() + 60
        while not Path(go).exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        stats = mem.run_worker()
        print(json.dumps({"succeeded": stats.jobs_succeeded, "deferred": stats.jobs_deferred,
                          "failed": stats.jobs_failed, "errors": stats.errors}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
