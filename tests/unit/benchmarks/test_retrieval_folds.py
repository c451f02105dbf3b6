"""hlmem's held-out margin over a baseline by leave-one-haystack-out (benchmarks/retrieval/folds.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from test_retrieval_metrics import load  # benchmarks/retrieval loaded as a package

folds = load("folds")


def _row(method: str, query: str, hay: str, r10: float, hit: float | None = None, cat: str = "1") -> dict:
    return {"method": method, "query": query, "haystack": hay, "category": cat, "r@10": r10,
            "hit@10": r10 if hit is None else hit}


def _runs() -> tuple[dict, dict]:
    # "good" wins on h1 and h2, "fit" only on h3 (where it is perfect) and loses elsewhere.
    qs = [(f"{h}:q{i}", h) for h in ("h1", "h2", "h3") for i in range(4)]
    good = {q: _row("hlmem", q, h, 0.75) for q, h in qs}
    fit = {q: _row("hlmem", q, h, 1.0 if h == "h3" else 0.25) for q, h in qs}
    base = {q: _row("rrf_ctx", q, h, 0.5) for q, h in qs}
    return {"good": good, "fit": fit}, base


def test_each_haystack_is_scored_by_the_label_chosen_on_the_others() -> None:
    runs, base = _runs()
    out = folds.held_out(runs, base)
    assert out["chosen"] == {"h1": "good", "h2": "good", "h3": "good"}
    held = [r for r in out["rows"] if r["method"] == "held_out"]
    assert len(held) == 12 and {r["r@10"] for r in held} == {0.75}


def test_a_label_that_fits_one_haystack_is_not_chosen_for_it() -> None:
    runs, base = _runs()
    # In sample on h3 "fit" is best (1.0), but h3's fold is chosen on h1 and h2, where "good" wins.
    assert folds.choose(runs, [q for q in base if base[q]["haystack"] == "h3"], "r@10") == "fit"
    s = folds.summary(runs, base)
    assert s["per_haystack"]["h3"]["chosen"] == "good"
    assert s["margin"]["margin"] == pytest.approx(0.25)
    assert s["labels"]["fit"]["margin"] == pytest.approx(0.0)


def test_the_summary_holds_both_intervals_per_haystack_and_per_category() -> None:
    runs, base = _runs()
    s = folds.summary(runs, base)
    assert s["n"] == 12 and s["held_out"] == pytest.approx(0.75) and s["baseline_score"] == pytest.approx(0.5)
    assert s["margin_by_haystack"]["by"] == "haystack"
    low, high = s["margin"]["ci95"]
    assert low <= s["margin"]["margin"] <= high
    assert set(s["per_haystack"]) == {"h1", "h2", "h3"} and s["per_category"]["1"]["n"] == 12
    assert s["hit@10_margin"]["margin"] == pytest.approx(0.25)


def test_one_haystack_cannot_be_held_out() -> None:
    runs = {"a": {"q": _row("hlmem", "q", "h1", 1.0)}}
    with pytest.raises(ValueError, match="two haystacks"):
        folds.held_out(runs, {"q": _row("rrf_ctx", "q", "h1", 0.0)})
    with pytest.raises(ValueError, match="no hlmem"):
        folds.held_out({}, {})


def test_answers_files_are_read_by_dataset_and_label(tmp_path: Path) -> None:
    runs, base = _runs()
    for label, by_q in runs.items():
        rows = [*by_q.values(), *base.values()]
        (tmp_path / f"locomo_{label}.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    (tmp_path / "memdaily_x.jsonl").write_text(json.dumps(_row("hlmem", "m", "f", 1.0)) + "\n")
    got, got_base = folds.load(tmp_path, "locomo", "rrf_ctx")
    assert set(got) == {"fit", "good"} and len(got_base) == 12
    assert folds.main([str(tmp_path), "--json"]) == 0
