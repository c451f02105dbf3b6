"""The peers benchmark's figures (benchmarks/peers/peers_scoring.py), its conversation loop and
ordering (run.py) and its peer bookkeeping (peers_systems.py): offline, with stub drivers."""

from __future__ import annotations

import importlib.util
import json
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"
for folder in (BENCHMARKS, BENCHMARKS / "peers"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

import peers_scoring as scoring  # noqa: E402
import peers_systems as systems  # noqa: E402
from peers_protocol import decode_vector, encode_vector  # noqa: E402
from retrieval.data import Doc, Haystack, Query  # noqa: E402

# run.py under its own name: "run" alone is too common a module name to put in sys.modules.
_spec = importlib.util.spec_from_file_location("peers_run", BENCHMARKS / "peers" / "run.py")
peers_run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(peers_run)


def test_score_recall_counts_gold_turns_in_the_first_k():
    ranked = ["D1:1", "D1:2", "D1:3", "D1:4", "D1:5", "D1:6"]
    assert scoring.score_recall(ranked, ["D1:2", "D1:6"], ks=(5, 10)) == {
        "r@5": 0.5, "r@10": 1.0, "hit@5": 1.0, "hit@10": 1.0}
    assert scoring.score_recall([], ["D1:1"], ks=(5,))["r@5"] == 0.0


def calls(cpu: list[float], wall: list[float] | None = None) -> list[dict]:
    return [{"cpu_ms": c, "wall_ms": w} for c, w in zip(cpu, wall or cpu)]


def test_summarize_takes_the_mean_add_and_percentile_recalls():
    adds = calls([1.0, 2.0, 3.0, 10.0])
    recalls = [{**r, "r@5": s, "r@10": 1.0, "hit@5": s, "hit@10": 1.0, "returned": 10}
               for r, s in zip(calls([1.0, 1.0, 1.0], [2.0, 4.0, 6.0]), (1.0, 0.0, 0.5))]
    out = scoring.summarize(adds, recalls)
    assert out["adds"] == 4 and out["add_cpu_mean_ms"] == 4.0 and out["add_cpu_p50_ms"] == 2.5
    assert out["recalls"] == 3 and out["recall_p50_ms"] == 4.0 and out["recall_cpu_mean_ms"] == 1.0
    assert out["r@5"] == 0.5 and out["r@10"] == 1.0 and out["returned_mean"] == 10.0


def test_summarize_of_nothing_has_no_figures():
    out = scoring.summarize([], [])
    assert out["adds"] == 0 and out["add_cpu_mean_ms"] is None and out["recall_p50_ms"] is None
    assert out["r@5"] is None


def summary(add: float, p50: float, r5: float, **extra) -> dict:
    return {"add_cpu_mean_ms": add, "add_cpu_p50_ms": add, "recall_p50_ms": p50,
            "recall_p95_ms": None if p50 is None else 2 * p50, "recall_cpu_mean_ms": p50,
            "r@5": r5, "r@10": r5, **extra}


def test_ratios_are_the_peers_cost_over_hlmems_and_the_recall_margin():
    rows = scoring.ratios({"hlmem": summary(0.5, 2.0, 0.6), "mem0": summary(1.5, 9.0, 0.5),
                           "hl-mem": summary(60.0, 300.0, 0.7)})
    assert set(rows) == {"mem0", "hl-mem"}
    assert rows["mem0"]["add_cpu_x"] == 3.0 and rows["mem0"]["recall_p50_x"] == 4.5
    assert rows["mem0"]["r@5_delta"] == pytest.approx(0.1)
    assert rows["hl-mem"]["add_cpu_x"] == 120.0 and rows["hl-mem"]["r@5_delta"] == pytest.approx(-0.1)


def test_ratios_without_hlmem_or_with_missing_figures():
    assert scoring.ratios({"mem0": summary(1.0, 1.0, 0.5)}) == {}
    row = scoring.ratios({"hlmem": summary(0.0, None, None), "mem0": summary(1.0, 1.0, 0.5)})["mem0"]
    assert row["add_cpu_x"] is None and row["recall_p50_x"] is None and row["r@5_delta"] is None


def test_goals_follow_issue_36():
    verdict = scoring.goals({"mem0": {"add_cpu_x": 5.2, "recall_p50_x": 2.9, "r@5_delta": 0.01},
                             "hl-mem": {"add_cpu_x": 80.0, "recall_p50_x": 51.0, "r@5_delta": 0.02}})
    assert verdict["mem0"]["add_cpu_x"]["met"] and not verdict["mem0"]["recall_p50_x"]["met"]
    assert not verdict["mem0"]["all_met"]
    assert verdict["hl-mem"]["all_met"]
    assert not scoring.goals({"mem0": {"add_cpu_x": 9, "recall_p50_x": 9, "r@5_delta": 0.0}})["mem0"]["all_met"]
    assert scoring.goals({}) == {}


def test_r5_margins_pair_the_same_questions():
    def recalls(values):
        return [{"query": f"q{i}", "conversation": "conv-1", "r@5": v} for i, v in enumerate(values)]

    margins = scoring.r5_margins({"hlmem": recalls([1, 1, 0, 1]), "mem0": recalls([0, 1, 0, 0])})
    assert set(margins) == {"mem0"}
    assert margins["mem0"]["margin"] == 0.5 and margins["mem0"]["n"] == 4
    low, high = margins["mem0"]["ci95"]
    assert low <= 0.5 <= high


def test_the_order_rotates_per_conversation():
    names = ["hlmem", "mem0", "hl-mem"]
    assert [peers_run.order_for(i, names) for i in range(4)] == [
        ["hlmem", "mem0", "hl-mem"], ["mem0", "hl-mem", "hlmem"], ["hl-mem", "hlmem", "mem0"],
        ["hlmem", "mem0", "hl-mem"]]
    assert peers_run.order_for(5, ["hlmem"]) == ["hlmem"]


class StubDriver:
    """Answers like a driver whose store returns the turns in the order they were added."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.turns: list[str] = []

    def call(self, op, **fields):
        self.requests.append({"op": op, **fields})
        if op == "add":
            assert len(decode_vector(fields["vector"], 2)) == 2
            self.turns.append(fields["id"])
            return {"ok": True, "ref": fields["id"], "cpu_ms": 1.0, "wall_ms": 2.0}
        if op == "recall":
            return {"ok": True, "ids": self.turns[: fields["k"]], "returned": fields["k"],
                    "cpu_ms": 3.0, "wall_ms": 4.0}
        if op == "close":
            return {"ok": True, "stats": {"memories": len(self.turns)}}
        return {"ok": True}


def test_run_conversation_adds_every_turn_then_asks_and_scores_every_question(tmp_path):
    when = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
    docs = tuple(Doc(id=f"D1:{i}", text=f"A: turn {i}", session="session_1", speaker="A", occurred_at=when)
                 for i in range(1, 4))
    queries = (Query(id="c:q0", text="first?", gold=("D1:1",), category="4", reference=when),
               Query(id="c:q1", text="third?", gold=("D1:3",), category="2", reference=when))
    hay = Haystack("conv-x", docs, queries)
    vec = encode_vector([0.6, 0.8])
    driver = StubDriver()
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "db").write_bytes(b"x" * 2048)
    adds, recalls, stats = peers_run.run_conversation(driver, hay, [vec] * 3, [vec] * 2, store=tmp_path / "store",
                                                      dim=2, model="m", k=2)
    assert [r["op"] for r in driver.requests] == ["open", "add", "add", "add", "recall", "recall", "close"]
    first_add = driver.requests[1]
    assert first_add["text"] == "A: turn 1" and first_add["session"] == "session_1" and first_add["speaker"] == "A"
    assert first_add["occurred_at"] == when.isoformat() and driver.requests[0]["scope"] == "conv-x"
    assert adds == [{"cpu_ms": 1.0, "wall_ms": 2.0}] * 3
    assert [(r["query"], r["r@5"], r["category"]) for r in recalls] == [("c:q0", 1.0, "4"), ("c:q1", 0.0, "2")]
    assert driver.requests[4]["now"] == when.isoformat() and driver.requests[4]["k"] == 2
    assert stats["memories"] == 3 and stats["store_mib"] == round(2048 / 2**20, 2)


def test_alternate_warms_every_driver_then_rotates_them_over_conversations_and_rounds(tmp_path):
    log: list[tuple[str, str, str]] = []

    class Logged(StubDriver):
        def __init__(self, name):
            super().__init__()
            self.name = name

        def call(self, op, **fields):
            if op == "open":
                self.turns = []
            log.append((self.name, op, fields.get("scope", "")))
            return super().call(op, **fields)

    vec = encode_vector([1.0, 0.0])
    hays = [Haystack(name, (Doc(id="D1:1", text="A: hi"), Doc(id="D1:2", text="B: yo")),
                     (Query(id=f"{name}:q0", text="who?", gold=("D1:2",), category="4"),)) for name in ("c1", "c2")]
    drivers = {name: Logged(name) for name in ("hlmem", "mem0")}
    runs, rows = peers_run.alternate(drivers, ["hlmem", "mem0"], hays, {h.name: ([vec, vec], [vec]) for h in hays},
                                     stores=tmp_path, dim=2, model="m", k=10, repeat=2)
    assert [entry[:2] for entry in log[:2]] == [("hlmem", "warm"), ("mem0", "warm")]
    opens = [(name, scope) for name, op, scope in log if op == "open"]
    assert opens == [("hlmem", "c1"), ("mem0", "c1"), ("mem0", "c2"), ("hlmem", "c2"),
                     ("hlmem", "c1"), ("mem0", "c1"), ("mem0", "c2"), ("hlmem", "c2")]
    assert [(r["conversation"], r["round"], r["slot"], r["system"]) for r in rows[:4]] == [
        ("c1", 1, 1, "hlmem"), ("c1", 1, 2, "mem0"), ("c2", 1, 1, "mem0"), ("c2", 1, 2, "hlmem")]
    assert len(runs["hlmem"]["adds"]) == 8 and [r["round"] for r in runs["mem0"]["recalls"]] == [1, 1, 2, 2]
    assert all(r["r@5"] == 1.0 for r in runs["hlmem"]["recalls"])


def test_a_peer_is_ready_only_with_the_packages_asked_for(tmp_path):
    ready, why = systems.peer_state(tmp_path, "mem0")
    assert not ready and "install_peers.py" in why
    folder = systems.venv_dir(tmp_path, "mem0")
    folder.mkdir(parents=True)
    marker = folder / "peer.json"
    marker.write_text(json.dumps({"status": "failed", "error": "no interpreter"}))
    assert "no interpreter" in systems.peer_state(tmp_path, "mem0")[1]
    marker.write_text(json.dumps({"status": "ok", "packages": ["mem0ai==0.1"]}))
    assert "--force" in systems.peer_state(tmp_path, "mem0")[1]
    marker.write_text(json.dumps({"status": "ok", "packages": list(systems.PEERS["mem0"].packages)}))
    assert "missing" in systems.peer_state(tmp_path, "mem0")[1]
    (folder / "bin").mkdir()
    (folder / "bin" / "python").touch()
    assert systems.peer_state(tmp_path, "mem0") == (True, "ok")


def test_drivers_run_without_the_parents_python_path(monkeypatch, tmp_path):
    monkeypatch.setenv("PYTHONPATH", "/somewhere/else")
    env = systems.driver_env("mem0", tmp_path)
    assert "PYTHONPATH" not in env and env["MEM0_TELEMETRY"] == "False"
    assert systems.driver_env("hlmem", tmp_path, hlmem_extract=True)["HLMEM_PEERS_EXTRACT"] == "1"
    assert systems.driver_command("hl-mem", tmp_path)[0].endswith("venvs/hl-mem/bin/python")


def test_the_dataset_argument_takes_a_folder_or_a_file(tmp_path):
    with pytest.raises(SystemExit, match="no LoCoMo data"):
        peers_run.dataset_file(tmp_path / "absent.json")
    with pytest.raises(SystemExit, match="no locomo_dev.json"):
        peers_run.dataset_file(tmp_path)
    (tmp_path / "locomo_dev.json").write_text("[]")
    assert peers_run.dataset_file(tmp_path) == tmp_path / "locomo_dev.json"
