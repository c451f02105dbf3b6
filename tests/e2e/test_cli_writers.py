"""``hlmem add`` writers at once on one store (issue 33, ADR 0064; four processes, eight under the
thorough profile): every command succeeds and
every acknowledged write is there, with its extraction done.

Real processes (the console script), the ``hash`` embedder, one add per writer (benchmarks/cli_contention.py runs more). The writers load
the 2-core machines the suite runs on by themselves; nothing asserts how long anything took.
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support.cli import HLMEM, Run, cli_env, run_cli  # noqa: E402
from support.profile import sized  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.adapters.embedders.hashing import HashEmbedder  # noqa: E402

pytestmark = pytest.mark.skipif(HLMEM is None, reason="the hlmem console script is not installed")

WRITERS = sized(4, 8)
ADDS = 1  # processes racing to create and write one store; the benchmark (cli_contention.py) runs longer chains


def turn(writer: int, i: int) -> str:
    """A turn the rule extractor makes claims of; every writer's corroborate each other's."""
    return f"我叫李明{writer}，我住在杭州，喜欢喝乌龙茶。(turn {writer}.{i})"


def test_cli_writers_at_once_all_succeed_and_lose_nothing(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"  # not created yet: the first writers race to create it too
    trace = tmp_path / "locks.jsonl"
    env = cli_env(db, HLMEM_EMBEDDER="hash", HLMEM_LOCK_TRACE=str(trace))

    def writer(w: int) -> list[Run]:
        return [run_cli(db, ["add", turn(w, i), "--session", f"writer-{w}"], env=env, timeout=600, process=True)
                for i in range(ADDS)]

    with ThreadPoolExecutor(max_workers=WRITERS) as pool:
        runs = [r for chain in pool.map(writer, range(WRITERS)) for r in chain]
    failed = [r for r in runs if r.code != 0 or "Traceback" in r.out + r.err]
    assert failed == [], failed
    acknowledged = [r.out.split()[1] for r in runs]
    assert all(r.out.startswith("recorded ev_") for r in runs), runs
    with Memory(db, embedder=HashEmbedder()) as mem:
        stored = mem.storage.get_observations(acknowledged)
        assert sorted(stored) == sorted(acknowledged)  # zero lost
        assert sorted(o.text for o in stored.values()) == sorted(turn(w, i) for w in range(WRITERS)
                                                                 for i in range(ADDS))
        assert all(mem.storage.claims_citing(e) for e in acknowledged)  # each add's extraction ran and wrote
        assert mem.jobs.job_counts() == {"extract": {"succeeded": WRITERS * ADDS}}
    # Every write transaction of every process got the lock (none gave up), and each was timed.
    timings = [json.loads(line) for line in trace.read_text().splitlines()]
    assert {t["outcome"] for t in timings} <= {"commit", "rollback"}
    assert len({t["pid"] for t in timings}) == WRITERS * ADDS
