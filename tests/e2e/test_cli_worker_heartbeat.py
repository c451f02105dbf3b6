"""A real ``hlmem worker`` process beats; ``doctor`` sees it fresh, stopped after SIGTERM, stale
after SIGKILL (ADR 0035). The clock is fixed (``--now``), so ages do not depend on the machine."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import apsw
import pytest

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support.cli import HLMEM, cli_env, run_cli  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.domain.time import format_timestamp  # noqa: E402

pytestmark = pytest.mark.skipif(HLMEM is None, reason="the hlmem console script is not installed")
T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)


def _beats(db: Path) -> list[tuple[str, int]]:
    con = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return con.execute("SELECT state, pid FROM worker_heartbeats").fetchall()
    finally:
        con.close()


def _wait_for(condition, what: str, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _worker(db: Path) -> subprocess.Popen:
    return subprocess.Popen([HLMEM, "--now", format_timestamp(T0), "worker"], env=cli_env(db, HLMEM_EMBEDDER="none"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=db.parent)


def _worker_check(db: Path, at: datetime) -> dict:
    run = run_cli(db, ["--now", format_timestamp(at), "doctor", "--json"], env=cli_env(db, HLMEM_EMBEDDER="none"))
    return {c["name"]: c for c in json.loads(run.out)["checks"]}["worker"]


def test_a_worker_process_beats_and_says_stopped_on_sigterm_or_goes_stale_when_killed(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    Memory(db, embedder="none").close()
    proc = _worker(db)
    try:
        _wait_for(lambda: _beats(db) != [], "the first heartbeat")
        [(state, pid)] = _beats(db)
        assert state in ("running", "idle") and pid == proc.pid
        fresh = _worker_check(db, T0 + timedelta(seconds=10))
        assert fresh["status"] == "ok" and f"pid {proc.pid}" in fresh["detail"]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert _beats(db) == [("stopped", proc.pid)]
    assert "stopped" in _worker_check(db, T0 + timedelta(hours=1))["detail"]

    killed = _worker(db)
    try:
        _wait_for(lambda: dict((p, st) for st, p in _beats(db)).get(killed.pid) in ("running", "idle"),
                  "the second worker's heartbeat")
        killed.send_signal(signal.SIGKILL)
        killed.wait(timeout=30)
    finally:
        if killed.poll() is None:
            killed.kill()
            killed.wait()
    stale = _worker_check(db, T0 + timedelta(minutes=20))
    assert stale["status"] == "warn" and "may have died" in stale["detail"] and f"pid {killed.pid}" in stale["detail"]
