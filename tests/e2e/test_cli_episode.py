"""``hlmem episode`` through the console script's entry function: start, step, end, show, list, policies,
procedures, induce, forget, with --json and the errors for bad input (docs/experience.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

from support.cli import HLMEM, run_cli  # noqa: E402

pytestmark = pytest.mark.skipif(HLMEM is None, reason="the hlmem console script is not installed")

NOW = ["--now", "2026-03-01T09:30:00Z", "--embedder", "hash"]


def hl(db: Path, *args: str):
    return run_cli(db, [*NOW, *args])


def test_an_episode_from_start_to_forget(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    started = hl(db, "episode", "start", "Install package foo 1.2", "--approach", "pip", "--json").json()
    eid = started["id"]
    assert started["status"] == "running" and started["signature"] == "install package foo <n>"
    step = hl(db, "episode", "step", eid, "pip install foo", "--tool", "pip", "--cost", "0.5", "--json").json()
    assert step["step"]["index"] == 1 and step["step"]["cost"] == 0.5
    ended = hl(db, "episode", "end", eid, "succeeded", "--reward", "0.9", "--outcome", "installed", "--json").json()
    assert ended["status"] == "succeeded" and ended["reward"] == 0.9 and ended["changes"] == []
    shown = hl(db, "episode", "show", eid)
    assert shown.code == 0 and "pip: pip install foo" in shown.out and "[succeeded]" in shown.out
    listed = hl(db, "episode", "list", "--json").json()
    assert [e["id"] for e in listed] == [eid]
    assert hl(db, "episode", "policies", "--json").json() == []
    assert hl(db, "episode", "induce", "--json").json() == []
    gone = hl(db, "episode", "forget", eid, "--json").json()
    assert gone["counts"]["episodes"] == 1 and gone["counts"]["steps"] == 1 and gone["items"] == [eid]
    again = hl(db, "forget", eid)
    assert again.code == 0 and "already forgotten" in again.out
    assert hl(db, "episode", "list", "--json").json() == []
    assert hl(db, "episode", "show", eid, "--json").json()["goal"] == ""


def test_policies_and_procedures_come_from_repeated_episodes(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    for n in range(9):
        eid = hl(db, "episode", "start", f"deploy service web{n}", "--approach", "blue-green", "--json").json()["id"]
        assert hl(db, "episode", "step", eid, "build image", "--tool", "docker").code == 0
        assert hl(db, "episode", "step", eid, "switch traffic", "--tool", "lb").code == 0
        assert hl(db, "episode", "end", eid, "succeeded").code == 0
    policies = hl(db, "episode", "policies", "--json").json()
    assert len(policies) == 1 and policies[0]["approach"] == "blue-green" and policies[0]["status"] == "active"
    assert policies[0]["support"] == 9 and policies[0]["reliability"] > 0.6
    procs = hl(db, "episode", "procedures", "--json").json()
    assert procs and procs[0]["steps"] == ["docker: build image", "lb: switch traffic"] and procs[0]["version"] == 1
    asked = hl(db, "episode", "policies", "--query", "how do I deploy service web?", "--status", "active", "--json")
    assert [p["id"] for p in asked.json()] == [policies[0]["id"]]
    found = hl(db, "recall", "how do I deploy service web", "--json").json()["items"]
    assert [i["kind"] for i in found[:2]] == ["procedure", "policy"] and found[1]["support"] == 9
    facts = hl(db, "recall", "how do I deploy service web", "--intent", "facts", "--json").json()["items"]
    assert all(i["kind"] in ("claim", "event") for i in facts)


def test_bad_input_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    unknown = hl(db, "episode", "step", "ep_nothing", "x")
    assert unknown.code == 1 and "no episode ep_nothing" in unknown.err
    assert "not an episode id" in hl(db, "episode", "show", "cl_1").err
    eid = hl(db, "episode", "start", "write the report", "--json").json()["id"]
    bad = hl(db, "episode", "end", eid, "succeeded", "--reward", "1.5")
    assert bad.code == 1 and "reward must be 0..1" in bad.err
    evidence = hl(db, "episode", "step", eid, "cite", "--evidence", "ev_missing")
    assert evidence.code == 1 and "ev_missing" in evidence.err
    assert hl(db, "episode", "show", eid, "--json").json()["step_count"] == 0  # nothing was written
    assert hl(db, "episode", "end", eid, "cancelled").code == 0
    late = hl(db, "episode", "step", eid, "too late")
    assert late.code == 1 and "already ended" in late.err
    assert hl(db, "episode", "end", eid, "maybe").code == 2
    empty = hl(db, "episode", "start", "  ")
    assert empty.code == 1 and "goal is empty" in empty.err


EAGER_TOML = ("[experience]\nrule = \"wilson\"\nmin_support = 3\nmin_reliability = 0.3\nprobation = 1\n"
              "procedure_min_successes = 3\nprocedure_min_reliability = 0.3\n")


def test_the_config_files_experience_thresholds_drive_induction(tmp_path: Path) -> None:
    db, config = tmp_path / "m.db", tmp_path / "hlmem.toml"
    config.write_text(EAGER_TOML, encoding="utf-8")
    for _ in range(4):
        eid = hl(db, "--config", str(config), "episode", "start", "rotate the TLS certificate", "--approach",
                 "certbot", "--json").json()["id"]
        assert hl(db, "--config", str(config), "episode", "step", eid, "certbot renew", "--tool", "certbot").code == 0
        ended = hl(db, "--config", str(config), "episode", "end", eid, "succeeded", "--json").json()
    assert {c["event"] for c in ended["changes"]} >= {"PolicyActivated", "ProcedurePromoted"}
    policies = hl(db, "--config", str(config), "episode", "policies", "--json").json()
    assert [(p["status"], p["support"]) for p in policies] == [("active", 4)]
    assert hl(db, "episode", "policies", "--json").json()[0]["status"] == "active"  # learnt: stays without the file
    shown = hl(db, "--config", str(config), "config", "show", "--json").json()["settings"]["experience"]
    assert shown["value"]["min_support"] == 3 and shown["value"]["z"] == 1.645
    assert shown["source"] == f"{config}:experience"


def test_a_bad_experience_threshold_in_the_config_file_is_named(tmp_path: Path) -> None:
    config = tmp_path / "hlmem.toml"
    config.write_text("[experience]\nmin_support = 0\nmin_reliabilty = 0.5\n", encoding="utf-8")
    bad = hl(tmp_path / "m.db", "--config", str(config), "episode", "list")
    assert bad.code == 1 and "experience.min_support must be a whole number of at least 1, not 0" in bad.err
    assert "unknown key(s) min_reliabilty" in bad.err and not (tmp_path / "m.db").exists()
