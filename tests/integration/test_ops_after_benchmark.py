"""``doctor`` and ``ops report`` on a store written by the write-pipeline benchmark
(benchmarks/llm_calls.py, ``drain`` mode: deferred turns, one ``worker --once``, an LLM on 127.0.0.1)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for folder in (ROOT / "benchmarks", ROOT / "tests"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

import llm_calls  # noqa: E402
from support.cli import run_cli  # noqa: E402


def _locomo(path: Path, sessions: int, turns: int) -> Path:
    """A LoCoMo-shaped file (the benchmark's input format) with ``sessions`` × ``turns`` turns."""
    conv = {"speaker_a": "Ann", "speaker_b": "Bo"}
    for n in range(1, sessions + 1):
        conv[f"session_{n}"] = [{"speaker": "Ann" if i % 2 == 0 else "Bo", "text": f"我在杭州住了{n}年，turn {i}"}
                                for i in range(turns)]
        conv[f"session_{n}_date_time"] = f"1:{n:02d} pm on {n} May, 2023"
    path.write_text(json.dumps([{"sample_id": "t1", "conversation": conv}]), encoding="utf-8")
    return path


def test_doctor_and_ops_report_after_the_write_pipeline_benchmark(tmp_path: Path) -> None:
    data = llm_calls.sessions(_locomo(tmp_path / "locomo.json", 3, 10), 3, 0)
    db = tmp_path / "bench.db"
    row = llm_calls.run_mode("drain", data, 0.0, 8, 120.0, 600.0, db)
    assert row["events"] == 30 and row["llm_calls"] == 6  # windows of 8, 2 per session
    # The benchmark's clock is fixed at LoCoMo's dates (jobs, heartbeat); the LLM ledger records
    # the wall clock: the report's period is the last 30 days of the wall clock.
    doctor = run_cli(db, ["doctor", "--json"])
    checks = {c["name"]: c for c in json.loads(doctor.out)["checks"]}
    assert doctor.code == 0, doctor
    assert " events, " in checks["store"]["detail"]
    assert checks["replay"]["status"] == "ok" and checks["worker"]["status"] == "ok"
    report = run_cli(db, ["ops", "report", "--since", "30d", "--json"]).json()
    assert report["jobs"]["counts"]["succeeded"] == 30 and report["jobs"]["counts"]["pending"] == 0
    assert report["worker"]["state"] == "stopped" and report["worker"]["jobs_done"] == 30
    [calls] = report["providers"]
    assert (calls["provider"], calls["model"], calls["requests"], calls["successes"]) == ("local", "scripted", 6, 6)
    assert calls["tokens_in"] > 0 and calls["latency_ms"]["p50"] is not None
    assert report["warnings"] == []
