"""The retrieval benchmark's scoring: recall@k, hit@k, MRR, percentiles, RRF, dataset loaders and smoke verdicts."""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = "hlmem_bench_retrieval"


def _package():
    """benchmarks/retrieval loaded as a package by path (benchmarks/ is not importable on its own)."""
    if PACKAGE not in sys.modules:
        folder = ROOT / "benchmarks" / "retrieval"
        spec = importlib.util.spec_from_file_location(PACKAGE, folder / "__init__.py",
                                                      submodule_search_locations=[str(folder)])
        module = importlib.util.module_from_spec(spec)
        sys.modules[PACKAGE] = module
        spec.loader.exec_module(module)
    return lambda name: importlib.import_module(f"{PACKAGE}.{name}")


load = _package()
metrics = load("metrics")
data = load("data")
smoke = load("smoke")
baselines = load("baselines")


# --- metrics -------------------------------------------------------------------------------------

@pytest.mark.parametrize(("ranked", "gold", "k", "expected"), [
    (["a", "b", "c"], ["a"], 1, 1.0),
    (["b", "a", "c"], ["a"], 1, 0.0),
    (["b", "a", "c"], ["a"], 5, 1.0),
    (["a", "x", "b"], ["a", "b", "c", "d"], 10, 0.5),   # a fraction of the gold ids
    (["a", "x", "b"], ["a", "b"], 2, 0.5),
    (["a", "a", "b"], ["a", "b"], 2, 0.5),                # a duplicate does not count twice
    ([], ["a"], 10, 0.0),
])
def test_recall_at_k_is_the_fraction_of_gold_in_the_top_k(ranked, gold, k, expected) -> None:
    assert metrics.recall_at_k(ranked, gold, k) == pytest.approx(expected)


def test_recall_needs_gold() -> None:
    with pytest.raises(ValueError):
        metrics.recall_at_k(["a"], [], 1)


def test_hit_at_k_counts_any_gold() -> None:
    assert metrics.hit_at_k(["x", "b"], ["a", "b"], 2) == 1.0
    assert metrics.hit_at_k(["x", "b"], ["a", "b"], 1) == 0.0


@pytest.mark.parametrize(("ranked", "gold", "expected"), [
    (["a", "b"], ["a"], 1.0), (["x", "a"], ["a"], 0.5), (["x", "y", "b", "a"], ["a", "b"], 1 / 3),
    (["x", "y"], ["a"], 0.0), ([], ["a"], 0.0),
])
def test_reciprocal_rank_uses_the_first_gold_id(ranked, gold, expected) -> None:
    assert metrics.reciprocal_rank(ranked, gold) == pytest.approx(expected)


def test_mean_scores_averages_queries_and_names_mrr() -> None:
    rows = [metrics.score_query(["a", "b"], ["a"]), metrics.score_query(["x", "b"], ["b"]),
            metrics.score_query(["x"], ["z"])]
    out = metrics.mean_scores(rows)
    assert out["n"] == 3
    assert out["r@1"] == pytest.approx(1 / 3, abs=1e-4)
    assert out["r@5"] == pytest.approx(2 / 3, abs=1e-4)
    assert out["mrr"] == pytest.approx((1 + 0.5 + 0) / 3, abs=1e-4)


def test_percentile_interpolates_like_numpy() -> None:
    values = [5.0, 1.0, 3.0, 2.0, 4.0]
    assert metrics.percentile(values, 50) == 3.0
    assert metrics.percentile(values, 95) == pytest.approx(4.8)
    assert metrics.latency_summary([]) == {"p50_ms": None, "p95_ms": None, "mean_ms": None}


def test_by_category_groups_rows() -> None:
    rows = [("2", metrics.score_query(["a"], ["a"])), ("1", metrics.score_query(["b"], ["a"])),
            ("2", metrics.score_query(["b"], ["a"]))]
    out = metrics.by_category(rows)
    assert list(out) == ["1", "2"]
    assert out["2"]["r@1"] == 0.5 and out["2"]["n"] == 2


# --- fusion and dense ranking ----------------------------------------------------------------------

def test_rrf_sums_reciprocal_ranks_and_breaks_ties_by_first_appearance() -> None:
    assert baselines.rrf([["a", "b", "c"], ["b", "a", "d"]]) == ["a", "b", "c", "d"]
    assert baselines.rrf([["a", "b"], ["b", "c"]]) == ["b", "a", "c"]
    assert baselines.rrf([[], []]) == []


def test_dense_index_ranks_by_cosine() -> None:
    import numpy as np

    index = baselines.DenseIndex(["x", "y", "z"], np.array([[1, 0], [0, 1], [0.7071, 0.7071]], dtype=np.float32))
    assert index.rank(np.array([1, 0.1], dtype=np.float32), 2) == ["x", "z"]
    assert index.rank(np.array([0, 1], dtype=np.float32), 10) == ["y", "z", "x"]


# --- loaders -------------------------------------------------------------------------------------

LOCOMO_SAMPLE = {
    "sample_id": "conv-x",
    "conversation": {
        "speaker_a": "Ann", "speaker_b": "Bob",
        "session_2_date_time": "9:00 am on 2 June, 2023",
        "session_2": [{"speaker": "Ann", "dia_id": "D2:1", "text": "Moved to Oslo."}],
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "I paint."},
                      {"speaker": "Bob", "dia_id": "D1:2", "text": "I run.", "blip_caption": "a shoe"}],
    },
    "qa": [
        {"question": "What does Ann do?", "answer": "paint", "evidence": ["D1:1"], "category": 4},
        {"question": "Where and what?", "answer": "x", "evidence": ["D1:1; D2:1", "D9:9"], "category": 1},
        {"question": "Trick?", "adversarial_answer": "y", "evidence": ["D1:2"], "category": 5},
        {"question": "No evidence", "answer": "z", "evidence": [], "category": 2},
        {"question": "Broken id", "answer": "z", "evidence": ["D"], "category": 2},
    ],
}


def test_locomo_haystack_has_a_doc_per_turn_and_categories_1_to_4_with_resolvable_gold() -> None:
    hay = data.locomo_haystack(LOCOMO_SAMPLE)
    assert [d.id for d in hay.docs] == ["D1:1", "D1:2", "D2:1"]   # sessions in number order
    assert hay.docs[0].speaker == "Ann" and hay.docs[0].session == "session_1"
    assert hay.docs[0].text == "Ann: I paint."
    assert data.locomo_haystack(LOCOMO_SAMPLE, speaker_in_text=False).docs[0].text == "I paint."
    assert hay.docs[0].occurred_at == datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
    assert [(q.text, q.gold, q.category) for q in hay.queries] == [
        ("What does Ann do?", ("D1:1",), "4"), ("Where and what?", ("D1:1", "D2:1"), "1")]


def test_load_locomo_limits_conversations_and_questions(tmp_path: Path) -> None:
    second = dict(LOCOMO_SAMPLE, sample_id="conv-y")
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([LOCOMO_SAMPLE, second]))
    assert len(data.load_locomo(path).haystacks) == 2
    ds = data.load_locomo(path, limit=1, questions=1)
    assert [h.name for h in ds.haystacks] == ["conv-x"] and ds.queries == 1 and ds.docs == 3
    assert len(ds.source_sha) == 64


MEMDAILY_SAMPLE = [
    {"tid": 1, "message_list": [
        {"mid": 0, "message": "我的上司名叫赵雅琳。", "time": "2024年04月01日 周一 08:39", "place": "北京"},
        {"mid": 1, "message": "赵雅琳喜欢跑步。", "time": "2024年04月02日 周二 20:05", "place": "北京"}],
     "question_list": [{"qid": 0, "question": "我的上司叫什么？", "answer": "赵雅琳", "target_step_id": [0],
                        "choices": {}, "ground_truth": "A", "time": "2024年04月03日 周三 09:00"}]},
    {"tid": 3, "message_list": [{"mid": 0, "message": "我表弟身高169厘米。", "time": "bad", "place": ""}],
     "question_list": [{"qid": 0, "question": "我表弟多高？", "answer": "169", "target_step_id": [0, 9]}]},
]


@pytest.mark.parametrize(("stem", "kind"), [
    ("01_simple_roles", "simple"), ("05_post_processing_events", "post_processing"), ("06_noisy_hybrid", "noisy"),
    ("odd", "odd"),
])
def test_memdaily_question_type_comes_from_the_file_name(stem: str, kind: str) -> None:
    assert data.memdaily_question_type(stem) == kind


def test_memdaily_haystack_holds_every_trajectory_of_a_file(tmp_path: Path) -> None:
    (tmp_path / "01_simple_roles.json").write_text(json.dumps(MEMDAILY_SAMPLE, ensure_ascii=False), encoding="utf-8")
    (tmp_path / "02_conditional_items.json").write_text("[]", encoding="utf-8")
    ds = data.load_memdaily(tmp_path, files=["simple"])
    (hay,) = ds.haystacks
    assert hay.name == "01_simple_roles"
    assert [d.id for d in hay.docs] == ["1:0", "1:1", "3:0"]
    assert hay.docs[0].occurred_at == datetime(2024, 4, 1, 8, 39, tzinfo=timezone(timedelta(hours=8)))
    assert hay.docs[2].occurred_at is None
    assert [(q.gold, q.category) for q in hay.queries] == [(("1:0",), "simple"), (("3:0", "3:9"), "simple")]
    assert len(data.load_memdaily(tmp_path).haystacks) == 2
    (small,) = data.load_memdaily(tmp_path, files=["simple"], trajectories=1).haystacks
    assert [d.id for d in small.docs] == ["1:0", "1:1"] and len(small.queries) == 1


def test_each_question_carries_its_own_reference_time(tmp_path: Path) -> None:
    locomo = data.locomo_haystack(LOCOMO_SAMPLE)  # asked after the conversation: its last session's date
    assert {q.reference for q in locomo.queries} == {datetime(2023, 6, 2, 9, 0, tzinfo=timezone.utc)}
    (memdaily := tmp_path / "01_simple_roles.json").write_text(json.dumps(MEMDAILY_SAMPLE, ensure_ascii=False),
                                                                 encoding="utf-8")
    (hay,) = data.load_memdaily(tmp_path).haystacks
    assert memdaily.exists() and [q.reference for q in hay.queries] == [
        datetime(2024, 4, 3, 9, 0, tzinfo=timezone(timedelta(hours=8))), None]  # the second has no time


def test_empties_are_sorted_by_reason(tmp_path: Path) -> None:
    empties = load("empties")
    rows = [
        {"method": "hlmem", "query": "q1", "ranked": [], "gold": ["a"], "r@10": 0.0,
         "notes": ["relevance floor: nothing reached similarity 0.2"], "empty_without_time_reading": True},
        {"method": "hlmem", "query": "q2", "ranked": [], "gold": ["a"], "r@10": 0.0, "notes": [],
         "empty_without_time_reading": False, "reference": "2023-05-20T00:00:00+00:00",
         "period": ["2023-06-01T00:00:00+00:00", "2023-07-01T00:00:00+00:00"]},
        {"method": "hlmem", "query": "q3", "ranked": [], "gold": ["a"], "r@10": 0.0,
         "notes": ["inferred period [2023-12-01T00:00:00+00:00, 2024-01-01T00:00:00+00:00) from the query",
                   "inferred known_at=2023-12-31T23:59:59.999999+00:00 from the query"]},
        {"method": "hlmem", "query": "q4", "ranked": ["a"], "gold": ["a"], "r@10": 1.0, "notes": []},
        {"method": "hlmem", "query": "q5", "ranked": [], "gold": ["a"], "r@10": 0.0, "notes": [],
         "empty_without_time_reading": True, "empty_at_the_clock": False},
        {"method": "bm25", "query": "q4", "ranked": [], "gold": ["a"], "r@10": 0.0},
    ]
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = empties.summarize(path, {"q3": "2023-05-20T00:00:00+00:00"})
    assert out["questions"] == 5 and out["empty"] == 4 and out["r@10"] == 0.2
    assert out["empty_by_reason"] == {"relevance floor": 1, "time reading": 1, "known_at (old)": 1,
                                      "after the question": 1}
    assert out["time_reading"] == ["q2"] and out["period_after_reference"] == 2
    assert out["period_start_years"] == {"2023": 2}


SMOKE_LINES = [
    {"id": "c-recall", "type": "recall", "input": {"query": "q", "memories": [{"id": "g", "text": "t"}]},
     "expected": {"event_ids": ["g"], "max_rank": 5}},
    {"id": "c-temporal", "type": "temporal", "input": {"query": "q", "as_of": "2025-06-01T00:00:00+00:00", "memories": [
        {"id": "old", "text": "t", "valid_from": "2025-01-01T00:00:00+00:00", "valid_to": "2026-01-01T00:00:00+00:00"}]},
     "expected": {"event_ids": ["old"]}},
    {"id": "c-neg", "type": "negative", "input": {"query": "q", "memories": []},
     "expected": {"event_ids": [], "no_match": True}},
    {"id": "c-sup", "type": "supersede", "input": {"query": "q", "memories": [
        {"id": "a", "text": "x", "occurred_at": "2025-01-01T00:00:00+00:00"}, {"id": "b", "text": "y"}]},
     "expected": {"event_ids": ["b"], "winner_event_id": "b", "superseded_event_id": "a"}},
    {"id": "c-rel", "type": "relation_storage", "input": {"memories": [{"id": "a", "text": "x"}], "relation": {}},
     "expected": {"relation_type": "supports"}},
]


def test_smoke_loader_and_verdicts(tmp_path: Path) -> None:
    path = tmp_path / "smoke.jsonl"
    path.write_text("\n".join(json.dumps(c) for c in SMOKE_LINES) + "\n")
    ds, cases = data.load_smoke(path)
    hays = {h.name: h for h in ds.haystacks}
    temporal = hays["c-temporal"]
    assert temporal.queries[0].as_of == datetime(2025, 6, 1, tzinfo=timezone.utc)
    assert temporal.docs[0].occurred_at == temporal.docs[0].valid_from == datetime(2025, 1, 1, tzinfo=timezone.utc)
    assert hays["c-rel"].queries == ()
    results = {"c-recall": {"m": ["x", "x2", "x3", "x4", "g"]}, "c-temporal": {"m": ["other", "old"]},
               "c-neg": {"m": []}, "c-sup": {"m": ["b", "a"]}}
    rows = {r["case"]: r for r in smoke.case_rows(cases, results, ["m"])}
    assert {c: r["m"] for c, r in rows.items()} == {
        "c-recall": "pass", "c-temporal": "FAIL", "c-neg": "pass", "c-sup": "pass", "c-rel": "n/a"}
    assert "superseded at 2" in rows["c-sup"]["m_note"]
    counts = smoke.pass_counts(list(rows.values()), ["m"])
    assert counts["m"]["total"] == 3 and counts["m"]["relation"] == 0


def test_negative_verdict_fails_when_anything_comes_back() -> None:
    query = data.Query(id="n", text="q", gold=(), category="negative", no_match=True)
    assert smoke.verdict(query, []) == (True, "empty")
    assert smoke.verdict(query, ["a"])[0] is False


def test_ranking_option_parses_numbers_booleans_and_refuses_bare_words() -> None:
    parse = load("cli")._ranking
    assert parse("") == ()
    assert parse("text_weight=0.3, context_weight=0,fold_duplicates=false,fusion=rrf,rrf_k=30") == (
        ("text_weight", 0.3), ("context_weight", 0), ("fold_duplicates", False), ("fusion", "rrf"), ("rrf_k", 30))
    with pytest.raises(SystemExit, match="key=value"):
        parse("text_weight")


def _answers(folder: Path, name: str, rows: dict[str, list[float]]) -> None:
    lines = [json.dumps({"haystack": hay, "method": "hlmem", "r@10": x}) for hay, xs in rows.items() for x in xs]
    (folder / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_leave_one_out_scores_each_haystack_with_the_setting_best_on_the_others(tmp_path: Path) -> None:
    loo = load("loo")
    # Setting "a" wins on haystacks h1, h2 and the other dataset; "b" only on h3.
    _answers(tmp_path, "conv_a", {"h1": [1.0], "h2": [1.0], "h3": [0.0]})
    _answers(tmp_path, "conv_b", {"h1": [0.0], "h2": [0.5], "h3": [1.0]})
    _answers(tmp_path, "chat_a", {"x": [0.6]})
    _answers(tmp_path, "chat_b", {"x": [0.4]})
    runs = loo.load(tmp_path, "r@10")
    assert runs["conv"]["a"] == {"h1": [1.0], "h2": [1.0], "h3": [0.0]}
    out = loo.leave_one_out(runs)
    # Fold h1: on h2, h3 and chat, b scores (0.75 + 0.4) / 2 > a's (0.5 + 0.6) / 2, so h1 gets b's 0.0.
    # Folds h2, h3 choose a: 1.0 and 0.0. Held out: 1/3, below every in-sample setting's 2/3 and 1/2.
    assert out["conv"] == {"chosen": {"b": 1, "a": 2}, "held_out": 0.3333}
    assert out["chat"] == {"chosen": {"a": 1}, "held_out": 0.6}
