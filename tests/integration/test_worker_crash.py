"""A worker process killed with SIGKILL in the middle of a job, then restarted.

The worker is the real ``hlmem worker`` console script against a SQLite file, extracting with an
LLM (a scripted server on 127.0.0.1 that holds its answer back, so the kill lands while the job
is running). Time is the CLI's ``--now``: the restart runs at a later fixed instant, after the
lease expired, instead of waiting for it. (``WorkerConfig.lease_seconds`` is not settable from
the CLI; moving the clock past the default 300 s lease is the same thing seen from the queue.)
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import apsw
import pytest

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support.cli import HLMEM, cli_env  # noqa: E402
from support.llm_server import ScriptedLLMServer, completion  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.domain.events import ExtractionRecorded  # noqa: E402

pytestmark = pytest.mark.skipif(HLMEM is None, reason="the hlmem console script is not installed")

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
TURNS = ["I live in Hangzhou", "the weather is nice today", "I work at Acme", "lunch was good", "see you tomorrow"]
ANSWER = {"claims": [
    {"event": 1, "subject": "user", "predicate": "lives_in", "value": "Hangzhou", "qualifiers": [], "polarity": True,
     "importance": 0.8, "scope": "permanent", "valid_from": None, "valid_to": None,
     "evidence_quote": "I live in Hangzhou"},
    {"event": 3, "subject": "user", "predicate": "works_at", "value": "Acme", "qualifiers": [], "polarity": True,
     "importance": 0.8, "scope": "permanent", "valid_from": None, "valid_to": None, "evidence_quote": "I work at Acme"},
]}


def iso(at: datetime) -> str:
    return at.isoformat().replace("+00:00", "Z")


def env_for(db: Path, server: ScriptedLLMServer) -> dict[str, str]:
    return cli_env(db, HLMEM_EMBEDDER="none", HLMEM_LLM="local", HLMEM_LLM_BASE_URL=server.base_url,
                   HLMEM_LLM_MODEL="scripted-model")


def worker_once(db: Path, server: ScriptedLLMServer, at: datetime) -> dict[str, Any]:
    done = subprocess.run([HLMEM, "--now", iso(at), "worker", "--once", "--json"], env=env_for(db, server),
                          capture_output=True, text=True, timeout=120, cwd=db.parent)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return json.loads(done.stdout)


def wait_for(condition, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def snapshot(db: Path, at: datetime) -> dict[str, Any]:
    with Memory(db, embedder="none", now=at, llm="none") as mem:
        jobs = mem.jobs.jobs(limit=100)
        extractions = [s.event for s in mem.storage.read() if isinstance(s.event, ExtractionRecorded)]
        return {
            "observations": sorted(o.text for o in mem.storage.get_observations(
                [j.payload["event_id"] for j in jobs]).values()),
            "jobs": sorted((j.state, j.attempts) for j in jobs),
            "owners": {j.lease_owner for j in jobs},
            "claims": mem.storage.counts()["claims"],
            "extractions": [len(e.source_events) for e in extractions],
            "citing": sorted(len(mem.storage.claims_citing(j.payload["event_id"])) for j in jobs),
            "replay_equal": mem.replay().equal,
        }


def test_a_worker_killed_mid_job_loses_nothing_and_the_job_completes_once(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    with Memory(db, embedder="none", now=T0) as mem:
        for i, text in enumerate(TURNS):
            mem.clock.set(T0 + timedelta(seconds=i))
            mem.add(text, session="chat", process=False)

    with ScriptedLLMServer() as server:
        server.script(completion(ANSWER, delay_s=60))  # holds the answer until the server stops
        # --window 5: the five turns fill a window, so the (fixed-clock) worker takes them at once.
        proc = subprocess.Popen([HLMEM, "--now", iso(T0 + timedelta(seconds=10)), "worker", "--window", "5"],
                                env=env_for(db, server), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=tmp_path)
        try:
            wait_for(lambda: len(server.requests) == 1 or proc.poll() is not None, 60, "the worker's LLM call")
            assert proc.poll() is None, proc.communicate()
            proc.send_signal(signal.SIGKILL)
            assert proc.wait(timeout=30) == -signal.SIGKILL
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
            proc.stderr.close()
        (request,) = server.requests
        assert [e["text"] for e in json.loads(request.json()["messages"][1]["content"].split("\n", 1)[1])["events"]] \
            == TURNS

        # Killed mid-job: every event is there, the window is leased to the dead worker, nothing written.
        crashed = snapshot(db, T0 + timedelta(seconds=20))
        assert crashed["observations"] == sorted(TURNS)
        assert crashed["jobs"] == [("running", 1)] * 5
        assert len(crashed["owners"]) == 1 and None not in crashed["owners"]
        assert (crashed["claims"], crashed["extractions"]) == (0, [])
        assert crashed["replay_equal"]

        # A restart while the lease still holds leaves the job alone.
        assert worker_once(db, server, T0 + timedelta(seconds=60))["windows"] == 0
        assert len(server.requests) == 1

        # After the lease expired, the window is taken again and completes, once.
        server.script(completion(ANSWER))
        stats = worker_once(db, server, T0 + timedelta(minutes=10))
        assert (stats["windows"], stats["jobs_succeeded"], stats["jobs_failed"], stats["claims"]) == (1, 5, 0, 2)
        assert len(server.requests) == 2
        assert worker_once(db, server, T0 + timedelta(hours=1))["windows"] == 0
        assert len(server.requests) == 2

    done = snapshot(db, T0 + timedelta(hours=1))
    assert done["observations"] == sorted(TURNS)
    assert done["jobs"] == [("succeeded", 2)] * 5
    assert done["owners"] == {None}
    assert done["claims"] == 2
    assert done["extractions"] == [5]  # one ExtractionRecorded for the window: it completed exactly once
    assert done["citing"] == [0, 0, 0, 1, 1]  # no duplicate claims
    assert done["replay_equal"]
    con = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        con.close()
