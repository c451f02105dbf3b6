"""Paired bootstrap intervals of a margin (benchmarks/retrieval/margins.py) and the ablation's
variants (benchmarks/retrieval/ablation.py)."""

from __future__ import annotations

import pytest

from test_retrieval_metrics import load  # benchmarks/retrieval loaded as a package

margins = load("margins")
ablation = load("ablation")
ranking = pytest.importorskip("hlmem.application.ranking")


def _rows(method: str, scores: list[float], haystacks: list[str] | None = None) -> list[dict]:
    haystacks = haystacks or ["h"] * len(scores)
    return [{"method": method, "query": f"q{i}", "haystack": hay, "r@10": s} for i, (s, hay) in
            enumerate(zip(scores, haystacks, strict=True))]


def test_the_margin_is_the_mean_paired_difference_inside_its_interval() -> None:
    rows = _rows("a", [1, 1, 0, 1, 0.5, 1, 0, 1]) + _rows("b", [0, 1, 0, 0, 0.5, 1, 0, 0])
    got = margins.paired_bootstrap(rows, "a", "b")
    assert got["n"] == 8 and got["margin"] == pytest.approx(3 / 8)
    low, high = got["ci95"]
    assert 0 <= low <= got["margin"] <= high <= 1


def test_identical_methods_have_a_zero_width_interval_at_zero() -> None:
    rows = _rows("a", [1, 0, 0.5]) + _rows("b", [1, 0, 0.5])
    assert margins.paired_bootstrap(rows, "a", "b")["ci95"] == [0.0, 0.0]


def test_it_is_reproducible_and_a_seed_changes_it() -> None:
    a = [((i * 7) % 11) / 10 for i in range(60)]
    b = [((i * 5) % 13) / 12 for i in range(60)]
    rows = _rows("a", a) + _rows("b", b)
    first, again = margins.paired_bootstrap(rows, "a", "b"), margins.paired_bootstrap(rows, "a", "b")
    assert first == again
    assert margins.paired_bootstrap(rows, "a", "b", seed=1)["ci95"] != first["ci95"]


def test_only_shared_questions_count() -> None:
    rows = _rows("a", [1, 1, 1]) + _rows("b", [0, 0])
    assert margins.paired_bootstrap(rows, "a", "b")["n"] == 2


def test_haystack_resampling_widens_an_interval_driven_by_one_haystack() -> None:
    hay = ["x"] * 10 + ["y"] * 10
    rows = _rows("a", [1] * 10 + [0] * 10, hay) + _rows("b", [0] * 20, hay)
    by_query = margins.paired_bootstrap(rows, "a", "b")
    by_hay = margins.paired_bootstrap(rows, "a", "b", by="haystack")
    assert by_hay["margin"] == by_query["margin"] == 0.5
    assert by_hay["ci95"][1] - by_hay["ci95"][0] > by_query["ci95"][1] - by_query["ci95"][0]


def test_bad_requests_are_refused() -> None:
    with pytest.raises(ValueError, match="share no question"):
        margins.paired_bootstrap(_rows("a", [1]), "a", "b")
    with pytest.raises(ValueError, match="by must be"):
        margins.paired_bootstrap(_rows("a", [1]) + _rows("b", [1]), "a", "b", by="file")


def test_every_ablation_variant_names_real_ranking_settings() -> None:
    for name, (overrides, _understand) in ablation.VARIANTS.items():
        ranking.RankingConfig(**overrides)  # an unknown field or a bad value raises here
        assert name == "full" or overrides or not _understand
