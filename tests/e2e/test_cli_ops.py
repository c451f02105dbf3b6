"""``hlmem doctor`` and ``hlmem ops report`` end to end: text, JSON, exit codes, a live probe on
127.0.0.1, a store that is never written, secrets never printed (ADR 0035)."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support.cli import cli_env, run_cli  # noqa: E402
from support.llm_server import ScriptedLLMServer, completion, error  # noqa: E402
from support.rerank_server import cohere_answer  # noqa: E402

from hlmem import Memory  # noqa: E402

SECRET = "sk-proj-Zq81xVb3Kd0Lm7Tw"


def _store(tmp_path: Path, *, drain: bool = True) -> Path:
    db = tmp_path / "memory.db"
    with Memory(db, embedder="hash") as mem:
        mem.add("我现在主要用深色模式。", session="s1", process=False)
        mem.add("I live in Hangzhou.", session="s2", process=False)
        if drain:
            mem.run_worker(once=True)
    return db


def _files(db: Path) -> dict[str, tuple[str, int] | None]:
    out = {}
    for suffix in ("", "-wal"):
        f = Path(f"{db}{suffix}")
        out[suffix] = (hashlib.sha256(f.read_bytes()).hexdigest(), f.stat().st_mtime_ns) if f.exists() else None
    return out


def _by_name(data: dict) -> dict[str, dict]:
    return {c["name"]: c for c in data["checks"]}


def test_doctor_on_a_healthy_store_is_all_ok_exit_0(tmp_path: Path) -> None:
    db = _store(tmp_path)
    run = run_cli(db, ["doctor", "--json"])
    data = json.loads(run.out)
    assert run.code == 0, run
    assert data["status"] == "ok" and data["exit_code"] == 0 and data["store"] == str(db)
    checks = _by_name(data)
    assert list(checks) == ["versions", "store", "migrations", "embedder", "worker", "integrity", "replay",
                            "temporaries", "disk", "secrets", "plugins"]
    assert "not allowlisted (never imported)" in checks["plugins"]["detail"]
    assert all(c["status"] == "ok" and c["action"] is None for c in checks.values())
    assert "stopped" in checks["worker"]["detail"] and "events replayed on a copy" in checks["replay"]["detail"]
    text = run_cli(db, ["doctor"])
    assert text.code == 0 and "hlmem doctor" in text.out and "integrity" in text.out and "replay" in text.out


def test_doctor_warns_exit_1_when_jobs_wait_and_no_worker_ran(tmp_path: Path) -> None:
    db = _store(tmp_path, drain=False)
    run = run_cli(db, ["doctor", "--json"])
    assert run.code == 1
    worker = _by_name(json.loads(run.out))["worker"]
    assert worker["status"] == "warn" and "2 jobs pending" in worker["detail"]
    text = run_cli(db, ["doctor"])
    assert text.code == 1 and "hlmem worker" in text.out


def test_doctor_on_a_store_that_does_not_exist_fails_exit_2_and_creates_nothing(tmp_path: Path) -> None:
    db = tmp_path / "new" / "memory.db"
    run = run_cli(tmp_path / "x.db", ["--db", str(db), "doctor", "--json"])
    assert run.code == 2
    data = json.loads(run.out)
    assert data["status"] == "fail" and _by_name(data)["store"]["status"] == "fail"
    assert "nothing was created" in _by_name(data)["store"]["detail"]
    assert not db.parent.exists()
    assert run_cli(tmp_path / "x.db", ["--db", str(db), "doctor"]).code == 2


def test_doctor_fails_exit_2_on_a_damaged_store_and_leaves_it_as_it_was(tmp_path: Path) -> None:
    db = _store(tmp_path)
    data = bytearray(db.read_bytes())
    data[4096 * 3: 4096 * 3 + 200] = b"\xff" * 200  # a page in the middle
    db.write_bytes(bytes(data))
    before = _files(db)
    run = run_cli(db, ["doctor", "--json"])
    assert run.code == 2
    failed = [c for c in json.loads(run.out)["checks"] if c["status"] == "fail"]
    assert failed and all(c["action"] for c in failed)
    assert _files(db)[""] == before[""]
    assert not Path(f"{db}-wal").exists() or Path(f"{db}-wal").stat().st_size == 0


def test_doctor_never_modifies_the_store(tmp_path: Path) -> None:
    db = _store(tmp_path, drain=False)  # pending jobs, an erasure-free store, migrations current
    before = _files(db)
    listing = sorted(p.name for p in tmp_path.iterdir())
    assert run_cli(db, ["doctor", "--json"]).code == 1
    assert run_cli(db, ["ops", "report", "--json"]).code == 0
    assert _files(db)[""] == before[""]  # bytes and mtime of the database file
    wal = Path(f"{db}-wal")
    # A read-only connection may leave SQLite's empty -wal/-shm beside a closed store; never content.
    assert not wal.exists() or wal.stat().st_size == 0
    assert {p.name for p in tmp_path.iterdir()} - set(listing) <= {"memory.db-wal", "memory.db-shm"}


def test_secrets_are_reported_by_name_never_by_value(tmp_path: Path) -> None:
    db = _store(tmp_path)
    env = cli_env(db, HLMEM_LLM="openai", OPENAI_API_KEY=SECRET)
    for argv in (["doctor", "--json"], ["doctor"]):
        run = run_cli(db, argv, env=env)
        assert run.code == 0, run
        assert "OPENAI_API_KEY is set" in run.out
        for piece in (SECRET, SECRET[-10:], SECRET[3:12]):
            assert piece not in run.out and piece not in run.err
    missing = run_cli(db, ["doctor", "--json"], env=cli_env(db, HLMEM_LLM="openai"))
    assert missing.code == 2 and _by_name(json.loads(missing.out))["secrets"]["status"] == "fail"


def test_doctor_live_reaches_the_llm_and_the_reranker_on_127_0_0_1(tmp_path: Path) -> None:
    db = _store(tmp_path)
    with ScriptedLLMServer() as server:
        server.script(completion({"ok": True}), cohere_answer([0.7]))
        env = cli_env(db, HLMEM_LLM="local", HLMEM_LLM_BASE_URL=server.base_url, HLMEM_LLM_MODEL="m",
                      HLMEM_RERANK="local", HLMEM_RERANK_BASE_URL=server.base_url, HLMEM_RERANK_MODEL="r")
        quiet = run_cli(db, ["doctor", "--json"], env=env)
        assert quiet.code == 0 and server.requests == []  # nothing is sent without --live
        run = run_cli(db, ["doctor", "--live", "--json"], env=env)
        assert run.code == 0, run
        checks = _by_name(json.loads(run.out))
        assert checks["llm live"]["status"] == "ok" and checks["rerank live"]["status"] == "ok"
        assert [r.path for r in server.requests] == ["/v1/chat/completions", "/v1/rerank"]
        assert server.requests[0].json()["model"] == "m"
        server.script(error(503, "overloaded"))
        down = run_cli(db, ["doctor", "--live", "--json"], env=env)
        assert down.code == 2
        live = _by_name(json.loads(down.out))["llm live"]
        assert live["status"] == "fail" and "local:m" in live["detail"]
        # One attempt per provider (the doctor never retries): both fail on the server's 503/500.
        assert [r.path for r in server.requests[2:]] == ["/v1/chat/completions", "/v1/rerank"]
        assert _by_name(json.loads(down.out))["rerank live"]["status"] == "fail"
    # The live probes write nothing: the store's ledger has no row of them.
    with Memory(db, embedder="hash") as mem:
        assert mem.storage.db.con.execute("SELECT count(*) FROM llm_calls").fetchone()[0] == 0


def test_ops_report_text_and_json(tmp_path: Path) -> None:
    db = _store(tmp_path)
    data = run_cli(db, ["ops", "report", "--since", "7d", "--json"]).json()
    assert data["version"] == 1 and data["exists"] is True
    assert data["jobs"]["counts"]["succeeded"] == 2 and data["worker"]["state"] == "stopped"
    assert data["storage"]["db"] == db.stat().st_size and data["warnings"] == []
    text = run_cli(db, ["ops", "report"])
    assert text.code == 0 and "provider calls since" in text.out and "2 succeeded" in text.out
    bad = run_cli(db, ["ops", "report", "--since", "last tuesday"])
    assert bad.code == 1 and "duration such as 90m" in bad.err


def test_ops_report_on_a_missing_store_shows_zeros_and_creates_nothing(tmp_path: Path) -> None:
    db = tmp_path / "none.db"
    data = run_cli(db, ["ops", "report", "--json"]).json()
    assert data["exists"] is False and data["jobs"]["total"] == 0 and data["providers"] == []
    assert not db.exists()


def test_doctor_at_the_default_path_before_the_first_write_warns_exit_1(tmp_path: Path) -> None:
    """A fresh installation: nothing configured, no store yet at the user data directory's
    ``memory.db``. That is a warning, not a failure, and nothing is created."""
    env = {k: v for k, v in cli_env(tmp_path / "unused.db").items() if k != "HLMEM_DB"}
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    run = run_cli(tmp_path / "unused.db", ["doctor", "--json"], env=env)
    data = json.loads(run.out)
    assert run.code == 1, run
    store = _by_name(data)["store"]
    assert store["status"] == "warn" and "nothing was created" in store["detail"]
    assert data["store"] == str(tmp_path / "data" / "hlmem" / "memory.db")
    assert not (tmp_path / "data").exists()
