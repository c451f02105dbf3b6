"""Several ``hlmem`` processes on one store at once, on a busy machine (ADR 0024): writers wait for
each other instead of failing, readers never wait for a writer, and nothing acknowledged is lost.

Under the thorough profile the test keeps the machine busy itself with two CPU burners; the load
is bounded: each burner stops itself after a fixed time and is killed at the end of the test
anyway. Nothing asserts how long a command took.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import apsw
import pytest

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support.cli import HLMEM, Run, cli_env, run_cli  # noqa: E402
from support.profile import THOROUGH  # noqa: E402

from hlmem import Memory  # noqa: E402

pytestmark = pytest.mark.skipif(HLMEM is None, reason="the hlmem console script is not installed")

#: Adds per writer process chain; the two chains run at the same time.
ADDS = 2
#: Seconds after which a CPU burner stops by itself (the test kills it sooner when done).
BURN_SECONDS = 120


def turn(name: str, i: int) -> str:
    return f"{name} turn {i}: we planted tomatoes 我们种了西红柿"


def hlmem(db: Path, *args: str) -> Run:
    run = run_cli(db, args, env=cli_env(db, HLMEM_EMBEDDER="none"), timeout=240, process=True)  # real processes
    assert "Traceback" not in run.out + run.err, run
    return run


@pytest.fixture
def cpu_load() -> Iterator[None]:
    """Under the thorough profile, two busy loops (the cores of the 2-core machines the suite must
    pass on), bounded in time; in the default run the suite's own parallel workers are the load
    (burners would slow every other test on the machine for the length of this one)."""
    if not THOROUGH:
        yield
        return
    burn = f"import time\nend = time.monotonic() + {BURN_SECONDS}\nwhile time.monotonic() < end:\n    pass\n"
    burners = [subprocess.Popen([sys.executable, "-c", burn]) for _ in range(2)]
    try:
        yield
    finally:
        for proc in burners:
            proc.kill()
            proc.wait(timeout=30)


def test_two_cli_writers_and_a_reader_under_load_lose_nothing(tmp_path: Path, cpu_load: None) -> None:
    db = tmp_path / "memory.db"  # not created yet: the first commands race to create it too

    def writer(name: str) -> list[Run]:
        return [hlmem(db, "add", turn(name, i), "--session", name) for i in range(ADDS)]

    def reader() -> list[Run]:
        runs = [hlmem(db, "recall", "西红柿 tomatoes")]
        runs += [hlmem(db, "stats"), hlmem(db, "recall", "tomatoes", "--json")]
        return runs

    with ThreadPoolExecutor(max_workers=3) as pool:
        chains = [pool.submit(writer, "alice"), pool.submit(writer, "bob"), pool.submit(reader)]
        alice, bob, read = (chain.result(timeout=900) for chain in chains)
    failed = [run for run in (*alice, *bob, *read) if run.code != 0]
    assert failed == [], failed
    acknowledged = [run.out.split()[1] for run in (*alice, *bob)]
    assert all(run.out.startswith("recorded ev_") for run in (*alice, *bob)), alice + bob
    with Memory(db, embedder="none") as mem:
        stored = mem.storage.get_observations(acknowledged)
        assert sorted(stored) == sorted(acknowledged)  # zero lost
        said = [turn(name, i) for name in ("alice", "bob") for i in range(ADDS)]
        assert sorted(o.text for o in stored.values()) == sorted(said)
        assert mem.stats()["observations"] == 2 * ADDS


def test_read_commands_succeed_while_another_process_holds_the_write_lock(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    with Memory(db, embedder="none") as mem:
        event = mem.add("I live in Hangzhou", session="chat").id
        claim = mem.storage.claims_citing(event)[0]
    holder = apsw.Connection(str(db))
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('held', 'by another process')")
    try:
        recall = hlmem(db, "recall", "Hangzhou")
        stats = hlmem(db, "stats")
        explain = hlmem(db, "explain", claim)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert (recall.code, stats.code, explain.code) == (0, 0, 0), (recall, stats, explain)
    assert claim[:12] in recall.out and "Hangzhou" in explain.out
