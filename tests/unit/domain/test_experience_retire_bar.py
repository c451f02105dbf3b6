"""ADR 0091: a policy backed at its proposal is active at once, and a live policy retires once its
confidence falls below the bar by more than one more outcome could move it (never below
``retire_confidence``)."""

from __future__ import annotations

import itertools
import random

from hypothesis import example, given
from hypothesis import strategies as st

from hlmem.domain.experience_bayes import ACTIVATE, RETIRE, STAY, retire_bar, review_policy, standing, swing
from hlmem.domain.experience_counts import Counts
from hlmem.domain.experience_events import PolicyActivated, PolicyProposed
from hlmem.domain.experience_policy import PolicyThresholds
from hlmem.domain.experience_prior import DEFAULT_PRIOR, SHAPE, STRENGTH, fit_prior

from test_experience_bayes import _world
from test_experience_policy import World

PRIOR = fit_prior(_world(random.Random(11)))
KW = dict(min_confidence=0.8, retire_confidence=0.7)


def _scaled(counts: dict[str, Counts], k: int) -> dict[str, Counts]:
    return {a: Counts(c.successes * k, c.failures * k) for a, c in counts.items()}


def test_one_outcome_moves_thin_evidence_more_than_thick() -> None:
    thin = {"make": Counts(5, 1), "ninja": Counts(2, 4), "bazel": Counts(3, 3)}
    thick = _scaled(thin, 8)
    assert swing(thin, PRIOR, "make") > swing(thick, PRIOR, "make") >= 0.0
    assert swing(thin, PRIOR, "make") > 0.03


def test_the_retire_bar_lies_between_retire_and_min_confidence() -> None:
    thin = {"make": Counts(5, 1), "ninja": Counts(2, 4), "bazel": Counts(3, 3)}
    assert retire_bar(thin, PRIOR, "make", **KW) == 0.7  # one outcome moves it by more than the gap
    deep = {"make": Counts(60, 16), "ninja": Counts(30, 32), "bazel": Counts(28, 30)}
    bar = retire_bar(deep, PRIOR, "make", **KW)
    assert swing(deep, PRIOR, "make") < 0.01 and bar == 0.8 - swing(deep, PRIOR, "make") and bar > 0.79


@given(st.dictionaries(st.sampled_from(("make", "ninja", "bazel")),
                       st.tuples(st.integers(0, 60), st.integers(0, 60)).map(lambda t: Counts(*t)),
                       min_size=1, max_size=3),
       st.floats(0.05, 0.95), st.floats(0.0, 0.5))
@example({"make": Counts(0, 0)}, 0.8, 0.1)
def test_the_retire_bar_is_always_within_the_two_thresholds(counts: dict[str, Counts], high: float,
                                                            gap: float) -> None:
    low = max(0.01, high - gap)
    for approach in counts:
        bar = retire_bar(counts, DEFAULT_PRIOR, approach, min_confidence=high, retire_confidence=low)
        assert low <= bar <= high
        assert 0.0 <= swing(counts, DEFAULT_PRIOR, approach) <= 1.0


def test_a_long_record_that_sits_below_the_bar_retires_where_a_short_one_stays() -> None:
    # The same confidence, a short and a long record: the short one may be one unlucky outcome away
    # from the bar; the long one sits below it by more than an outcome can move it.
    # (make 32 of 60 against 18 of 40 and 10 of 40: the kind of record a followed noise-only policy
    # gathers, ADR 0091.)
    long = {"make": Counts(32, 28), "ninja": Counts(18, 22), "bazel": Counts(10, 30)}
    assert 0.7 < standing(long, PRIOR).confidence("make") < 0.8 - swing(long, PRIOR, "make")
    assert review_policy("make", "active", long, 0, PRIOR, probation=0, **KW).decision == RETIRE
    short = {"make": Counts(5, 2), "ninja": Counts(2, 4), "bazel": Counts(3, 3)}
    conf = standing(short, PRIOR).confidence("make")
    assert 0.7 <= conf < 0.8 and swing(short, PRIOR, "make") > 0.8 - 0.7
    assert review_policy("make", "active", short, 0, PRIOR, probation=0, **KW).decision == STAY


def test_probation_zero_activates_a_backed_candidate_at_once() -> None:
    strong = {"make": Counts(11, 1), "ninja": Counts(3, 9)}
    review = review_policy("make", "candidate", strong, 0, PRIOR, probation=0, **KW)
    assert review.decision == ACTIVATE and review.reason.startswith("backed at its proposal")


def test_the_default_lifecycle_proposes_and_activates_in_one_end() -> None:
    assert PolicyThresholds().probation == 0 and STRENGTH == 1.0 and SHAPE == "beta"  # ADR 0095
    w = World(PolicyThresholds(min_support=4, retire_after=50))
    outcomes = itertools.cycle([True, True, True, True, True, False])
    for n in range(30):
        approach = ("make", "ninja", "bazel")[n % 3]
        changes = w.run(approach, next(outcomes) if approach == "make" else n % 4 == 0)
        if any(isinstance(e, PolicyProposed) for e in changes):
            assert [type(e) for e in changes][-2:] == [PolicyProposed, PolicyActivated]
            break
    else:
        raise AssertionError("make was never proposed")
    (policy,) = w.policies.values()
    assert policy.status == "active" and policy.approach == "make"


def test_probation_zero_under_the_wilson_rule_activates_at_once_too() -> None:
    w = World(PolicyThresholds(rule="wilson", min_support=4, min_reliability=0.3, min_lead=0.05, probation=0))
    for n in range(24):
        approach = ("make", "ninja")[n % 2]
        w.run(approach, approach == "make" or n % 6 == 1)
    assert [p.status for p in w.policies.values()] == ["active"]
