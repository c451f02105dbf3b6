"""Regression: the extraction benchmark's dev set still meets the targets (docs/extraction.md).

The dev set (benchmarks/extraction/dev.jsonl) is scored by the benchmark's own functions: facts
and non-facts through the extractor, sequences through a real in-memory ``Memory`` write path.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _bench():
    if "hlmem_bench_extraction" not in sys.modules:
        spec = importlib.util.spec_from_file_location("hlmem_bench_extraction", ROOT / "benchmarks" / "extraction.py")
        module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        sys.modules[spec.name] = module  # type: ignore[union-attr]
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    return sys.modules["hlmem_bench_extraction"]


def test_dev_set_meets_the_targets(capsys) -> None:
    bench = _bench()
    items = bench.load(bench.DEV)
    kinds = {i["kind"] for i in items}
    assert kinds == {"fact", "nonfact", "sequence"} and len(items) >= 200
    summary = bench.statements(items, verbose=False)
    assert summary["fact_recall"] >= 0.85, summary["failures"]
    assert summary["nonfact_precision"] >= 0.95, summary["failures"]
    assert summary["sequence_accuracy"] >= 0.90, summary["failures"]


def test_the_scorer_compares_subjects_without_the_possessive() -> None:
    bench = _bench()
    assert bench.same_subject("表哥", "用户的表哥") and bench.same_subject("sister", "user's sister")
    assert bench.same_subject("user", "用户") and not bench.same_subject("user", "用户的表哥")
    assert not bench.same_subject("Tom", "user's Tom-cat")
