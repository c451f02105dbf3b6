"""The cost-effect benchmark (benchmarks/cost_effect.py): the history it counts, the checks, the summary,
a whole run on two tiny datasets, and the optional LLM mode against a scripted server."""

from __future__ import annotations

import json
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"
TESTS = str(Path(__file__).resolve().parents[2])
for _path in (str(BENCHMARKS), TESTS):
    if _path not in sys.path:
        sys.path.insert(0, _path)

import _cost_report as report  # noqa: E402
from _cost_misses import miss_reasons, summarise_misses  # noqa: E402
import cost_effect  # noqa: E402
from _cost_llm import Answerer, sample, token_f1, user_message  # noqa: E402
from retrieval.data import Doc  # noqa: E402

from hlmem.application.packet import PacketItem, build_packet, estimate_tokens  # noqa: E402

UTC = timezone.utc
T = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


# --- the history and the checks ---------------------------------------------------------------------

def test_the_history_is_a_transcript_in_time_order_stamped_where_the_time_changes() -> None:
    docs = [Doc("b1", "Bob: later", session="s2", occurred_at=T + timedelta(days=1)),
            Doc("a1", "Ann: first", session="s1", occurred_at=T), Doc("a2", "Ann:  second\nline", session="s1",
                                                                       occurred_at=T)]
    h = cost_effect.History(docs)
    assert h.lines == ["[2023-05-08 13:56] Ann: first", "Ann: second line", "[2023-05-09 13:56] Bob: later"]
    assert h.upto(T) == 2 and h.upto(T - timedelta(seconds=1)) == 0 and h.upto(None) == 3
    assert h.tokens(2) == estimate_tokens("[2023-05-08 13:56] Ann: first\nAnn: second line")
    assert "@2023-05-09" in h.normalised(3) and "@2023-05-09" not in h.normalised(2)
    calls = []

    def counter(text: str) -> int:
        calls.append(text)
        return len(text)

    assert h.counted(2, counter) == h.counted(2, counter) == len(h.text(2)) and h.counted(3, counter) == len(h.text(3))
    assert calls == [h.text(2), h.text(3)]  # once per prefix


def test_evidence_counts_a_gold_turn_shown_whole_only() -> None:
    items = [PacketItem(id="ev_1", text="Ann: I paint   landscapes.", kind="event", occurred_at=T),
             PacketItem(id="ev_2", text="Bob: " + "I run every morning before work. " * 20, kind="event",
                        occurred_at=T)]
    packet = build_packet(items, budget_tokens=120, now=T)
    assert packet.cut == ("ev_2",)
    assert cost_effect.evidence_share(packet.text, ["Ann: I paint landscapes."]) == 1.0
    assert cost_effect.evidence_share(packet.text, ["Ann: I paint landscapes.", items[1].text]) == 0.5
    assert cost_effect.evidence_share(packet.text, ["paint"]) == 0.0  # a part of a line is not a turn
    assert cost_effect.evidence_share("", []) == 0.0


def test_a_packets_answer_tokens_leave_out_its_header_and_truncation_line() -> None:
    text = "memory v1 (best first; times UTC)\n- Ann: 3 cats [event, said 2023-05-08; id ev_1]\n[truncated: 2 omitted]"
    tokens = cost_effect.packet_tokens(text)
    assert "3" in tokens and "2" not in tokens and "v1" not in tokens and "@2023-05-08" in tokens


def test_the_baseline_packs_the_events_hlmem_stored() -> None:
    docs = {"D1": Doc("D1", "Ann: hi", occurred_at=T), "D2": Doc("D2", "Bob: yo", occurred_at=T)}
    items = cost_effect.baseline_items(["D2", "D1"], docs, {"D1": "ev_a", "D2": "ev_b"}, k=1)
    assert items == [PacketItem(id="ev_b", text="Bob: yo", kind="event", occurred_at=T)]


def test_a_missed_gold_turn_is_put_down_to_ranking_history_cut_or_budget() -> None:
    items = [PacketItem(id=f"ev_{i}", text=f"Ann: note number {i} " + "and more words " * 6, kind="event",
                        occurred_at=T, history=i == 1) for i in range(6)]
    packet = build_packet(items, budget_tokens=160, now=T, leave_out_history=True)
    assert packet.history == ("ev_1",) and packet.cut and packet.omitted
    ranked = [(i.id, ("ev_folded",) if i.id == "ev_4" else (), i.text) for i in items]
    text = {i.id: i.text for i in items}
    gold = [("ev_0", text["ev_0"]), ("ev_1", text["ev_1"]), ("ev_2", text["ev_2"]), ("ev_5", text["ev_5"]),
            ("ev_gone", "Bob: never said"), ("ev_folded", "Ann: the same as ev_4"),
            ("ev_twin", "Ann:  " + text["ev_0"][5:])]  # the same words said again elsewhere
    shown = cost_effect.shown_whole(packet.text, [t for _, t in gold])
    assert shown == [True, False, False, False, False, False, True]
    got = miss_reasons(gold, shown, ranked, packet)
    assert got["miss"] == pytest.approx({"not_ranked": 1 / 7, "history": 1 / 7, "cut": 1 / 7, "over_budget": 2 / 7})
    assert got["ranks"] == [1, 2, 3, 6, None, 5, 1]
    rows = [{"method": "hlmem", "budget": 200, **got}, {"method": "hlmem", "budget": 400, **got}]
    summary = summarise_misses(rows, (200, 400))
    assert summary["hlmem"]["400"]["over_budget"] == pytest.approx(2 / 7, abs=1e-4) and "rrf_ctx" not in summary
    assert summary["hlmem"]["recall_at"] == {"5": round(5 / 7, 4), "10": round(6 / 7, 4), "20": round(6 / 7, 4),
                                             "50": round(6 / 7, 4)}


# --- the summary ----------------------------------------------------------------------------------

def _rows() -> list[dict]:
    rows = []
    for i in range(20):
        base = {"dataset": "d", "haystack": "h", "query": f"q{i}", "category": "4" if i % 2 else "simple"}
        rows.append({**base, "method": "history", "budget": None, "tokens": 1000, "e5_tokens": None,
                     "evidence": 1.0, "evidence_all": 1.0, "answer": 1.0 if i < 10 else 0.0})
        for budget in (100, 200):
            for method, ev in (("hlmem", 1.0 if i < 16 else 0.0), ("rrf_ctx", 1.0 if i < 8 else 0.0)):
                rows.append({**base, "method": method, "budget": budget, "tokens": budget - 5, "e5_tokens": None,
                             "items": 3, "evidence": ev, "evidence_all": ev, "answer": None if i == 0 else ev})
    return rows


def test_the_summary_gives_shares_of_the_history_margins_and_the_targets() -> None:
    d = report.summarise(_rows(), (100, 200))["d"]
    assert d["questions"] == 20 and d["history"]["tokens_mean"] == 1000
    hl = next(p for p in d["packets"] if p["method"] == "hlmem" and p["budget"] == 100)
    assert hl["evidence"] == 0.8 and hl["evidence_of_history"]["value"] == 0.8
    low, high = hl["evidence_ci"]
    assert low < 0.8 < high
    assert hl["answer_n"] == 19  # a question without answer tokens is not scored
    margin = d["margins"]["100"]["evidence"]
    assert margin["value"] == pytest.approx(0.4) and margin["ci95"][0] > 0
    assert d["targets"] == {"evidence_of_history_at_1000": None, "met_95_at_1000": None,
                            "beats_rrf_ctx_every_budget": True, "alt_evidence_of_history_at_1000": None}
    assert set(d["by_category"]) == {"4 single-hop", "simple"}
    assert report.main_rows(d)[0]["packet"] == "full history"


def test_paired_intervals() -> None:
    a = {f"q{i}": float(i % 2) for i in range(50)}
    b = dict.fromkeys(a, 0.0)
    assert report.paired(a, b)["value"] == 0.5
    assert report.paired(a, {"x": 1.0}) is None
    assert report.paired(a, b, ratio=True) is None  # nothing to divide by
    assert report.paired(b, a, ratio=True)["value"] == 0.0
    assert report.mean_ci([]) == []


# --- a whole run ------------------------------------------------------------------------------------

LOCOMO = [{
    "sample_id": "conv-t",
    "conversation": {
        "speaker_a": "Ann", "speaker_b": "Bob",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a grey cat called Pixel yesterday."},
                      {"speaker": "Bob", "dia_id": "D1:2", "text": "Lovely! I started pottery classes."},
                      {"speaker": "Ann", "dia_id": "D1:3", "text": "Pottery sounds fun, where do you go?"},
                      {"speaker": "Bob", "dia_id": "D1:4", "text": "A studio near the harbour in Lisbon."}],
        "session_2_date_time": "9:00 am on 2 June, 2023",
        "session_2": [{"speaker": "Ann", "dia_id": "D2:1", "text": "Pixel knocked my vase over this morning."},
                      {"speaker": "Bob", "dia_id": "D2:2", "text": "I ran my first marathon on 28 May, 2023."}],
    },
    "qa": [{"question": "What is the name of Ann's cat?", "answer": "Pixel", "evidence": ["D1:1"], "category": 4},
           {"question": "When did Bob run his first marathon?", "answer": "28 May 2023", "evidence": ["D2:2"],
            "category": 2},
           {"question": "Where are Bob's pottery classes?", "answer": "Lisbon", "evidence": ["D1:4"], "category": 1}],
}]


def _memdaily(folder: Path) -> None:
    trajectories = []
    for tid in (1, 2):
        messages = [{"mid": 0, "message": f"我的上司名叫赵雅琳{tid}。", "time": "2024年04月01日 周一 08:39", "place": ""},
                    {"mid": 1, "message": f"我有{tid + 2}只猫。", "time": "2024年04月02日 周二 09:10", "place": ""}]
        question = {"qid": 0, "question": "我有几只猫？", "answer": f"{tid + 2}只", "target_step_id": [1],
                    "choices": {"A": "1只", "B": "2只", "C": "3只", "D": "4只"}, "ground_truth": "C" if tid == 1 else "D",
                    "time": "2024年04月03日 周三 10:00"}
        trajectories.append({"tid": tid, "message_list": messages, "question_list": [question]})
    (folder / "01_simple_items.json").write_text(json.dumps(trajectories, ensure_ascii=False), encoding="utf-8")


def _last_json(out: str) -> dict:
    return json.loads(out.strip().splitlines()[-1])


def test_a_whole_run_on_tiny_datasets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("rank_bm25")
    (tmp_path / "locomo.json").write_text(json.dumps(LOCOMO), encoding="utf-8")
    (tmp_path / "md").mkdir()
    _memdaily(tmp_path / "md")
    args = ["--locomo", str(tmp_path / "locomo.json"), "--memdaily", str(tmp_path / "md"), "--embedder", "hash",
            "--no-e5", "--cache-dir", str(tmp_path / "cache"), "--budgets", "200,2000", "--quiet",
            "--rows", str(tmp_path / "rows.jsonl")]
    if _has_matplotlib():
        args += ["--png", str(tmp_path / "chart.png")]
    assert cost_effect.main(args) == 0
    summary = _last_json(capsys.readouterr().out)
    assert summary["benchmark"] == "cost_effect" and summary["budgets"] == [200, 2000]
    locomo, memdaily = summary["datasets"]["locomo"], summary["datasets"]["memdaily"]
    assert locomo["questions"] == 3 and memdaily["questions"] == 2
    for d in (locomo, memdaily):
        assert d["history"]["evidence"] == 1.0
        for p in d["packets"]:
            assert p["tokens_mean"] <= p["budget"]
        big = next(p for p in d["packets"] if p["method"] == "hlmem" and p["budget"] == 2000)
        assert big["evidence"] == 1.0  # a haystack this small fits whole
    assert locomo["history"]["answer"] == 1.0  # Pixel, 28 May 2023 (said as "28 May, 2023"), Lisbon
    rows = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    assert {r["method"] for r in rows} == {"history", "hlmem", "rrf_ctx", "hlmem-v1", "rrf_ctx-v1"}
    for r in rows:
        if r["method"] != "history":  # every gold turn is shown whole or missed for one reason
            assert r["evidence"] + sum(r["miss"].values()) == pytest.approx(1.0)
    assert set(locomo["misses"]) == {"hlmem", "rrf_ctx"} and "misses@1000" not in locomo["by_category"]["4 single-hop"]
    if _has_matplotlib():
        assert (tmp_path / "chart.png").read_bytes()[:4] == b"\x89PNG"


def _has_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def test_bad_arguments_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    for bad in (["smoke"], ["--budgets", "x"], ["--budgets", "0"], ["--llm", "--llm-budget", "300"]):
        with pytest.raises(SystemExit):
            cost_effect.parse_args(bad)
    with pytest.raises(SystemExit, match="does not exist"):
        cost_effect.main(["locomo", "--locomo", "/nonexistent/locomo.json"])


# --- the LLM mode --------------------------------------------------------------------------------

def test_llm_scores_and_samples() -> None:
    assert token_f1("Pixel the cat", "Pixel") == pytest.approx(2 / 3)  # "the" is dropped: precision 1/2
    assert token_f1("7 May 2023", "May 7, 2023") == 1.0 and token_f1("no", "yes") == 0.0
    assert sample([f"q{i}" for i in range(10)], 3) == {"q0", "q3", "q6"} and len(sample(["a"], 5)) == 1
    text, schema = user_message("哪个？", {"choices": {"B": "二", "A": "一"}}, "")
    assert "(empty)" in text and text.index("A. 一") < text.index("B. 二") and schema["required"] == ["choice"]


def test_no_llm_configured_is_a_clear_error() -> None:
    from hlmem.adapters.settings import Settings

    with pytest.raises(SystemExit, match="no LLM is configured"):
        Answerer.from_settings(limit=3, settings=Settings())


def test_the_llm_answers_from_a_packet_and_its_tokens_are_the_providers() -> None:
    from support.llm_server import ScriptedLLMServer, completion

    from hlmem.adapters.settings import Settings

    with ScriptedLLMServer() as server:
        server.script(completion({"choice": "c"}, prompt_tokens=321), completion({"answer": "Pixel"}, prompt_tokens=55),
                      completion({"answer": "a dog"}))
        answerer = Answerer.from_settings(limit=1, settings=Settings(llm="local", llm_model="m",
                                                                      llm_base_url=server.base_url))
        try:
            asker = answerer.for_dataset("memdaily", ["q1", "q2"])
            assert asker.wants("q1") and not asker.wants("q2")
            got = asker.ask("我有几只猫？", {"choices": {"A": "1", "B": "2", "C": "3", "D": "4"}, "ground_truth": "C"},
                            "- 我有3只猫。")
            assert got["correct"] == 1.0 and got["prompt_tokens"] == 321 and got["answer"] == "C"
            gold = {"answer": "Pixel"}
            assert asker.ask("Cat's name?", gold, "memory")["correct"] == 1.0
            assert asker.ask("Cat's name?", gold, "memory")["correct"] == 0.0
            sent = server.requests[0].json()
            assert "我有3只猫" in sent["messages"][-1]["content"]
        finally:
            answerer.close()


def test_saved_summaries_are_merged_for_the_chart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = {"benchmark": "cost_effect", "machine": {}, "wall_s": 1.0, "k": 50, "embedder": "hash", "budgets": [100, 200],
            "tokens": "estimate"}
    rows = _rows()
    for name in ("a", "b"):
        for r in rows:
            r["dataset"] = name
        (tmp_path / f"{name}.json").write_text(json.dumps({**base, "datasets": report.summarise(rows, (100, 200))}))
    args = ["--from-json", str(tmp_path / "a.json"), str(tmp_path / "b.json")]
    if _has_matplotlib():
        args += ["--png", str(tmp_path / "c.png")]
    assert cost_effect.main(args) == 0
    merged = _last_json(capsys.readouterr().out)
    assert list(merged["datasets"]) == ["a", "b"] and len(merged["runs"]) == 2
