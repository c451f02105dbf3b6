"""How sure the evidence makes us that an approach is its situation's best (pure, ADR 0066).

Under the namespace's rate prior (:mod:`hlmem.domain.experience_prior`), a situation's counts give
an exact posterior over its hypotheses: "approach ``a`` is the one best approach" for each approach
tried, and "flat": the approach does not matter. :func:`standing` computes it. A policy "in
situation T prefer P" is warranted when the posterior that P is the best — its **confidence** —
is high; it is the same number whether P was tried 5 times or 500, and whether the others were
tried often or not, because the prior says how far apart best and other approaches usually are.

The lifecycle (``domain/experience_policy.py``, ``rule = "bayes"``) proposes the approach with the
highest confidence once it reaches ``min_confidence``, activates it at once (``probation`` 0, ADR
0091) or after probation when it still does, and retires a live policy whose confidence fell below
its :func:`retire_bar`: ``min_confidence`` less what one more outcome could take from it
(:func:`swing`), never below ``retire_confidence`` — a gap sized by the evidence.
"""

from __future__ import annotations

from collections.abc import Mapping

from attrs import frozen

from hlmem.domain.experience_counts import Counts
from hlmem.domain.experience_prior import Likelihood, RatePrior, hypotheses


@frozen
class Standing:
    """The posterior of one situation's hypotheses: per approach tried (in name order), the
    probability that it is the best; ``flat``, that the approach does not matter."""

    approaches: tuple[str, ...]
    best: tuple[float, ...]
    flat: float

    def confidence(self, approach: str) -> float:
        """The posterior that ``approach`` is the best (0 for one never tried)."""
        try:
            return self.best[self.approaches.index(approach)]
        except ValueError:
            return 0.0

    @property
    def leader(self) -> str | None:
        """The approach most likely to be the best (the first in name order on a tie), None when
        nothing was tried."""
        if not self.approaches:
            return None
        return max(zip(self.approaches, self.best, strict=True), key=lambda ab: (ab[1], -self.approaches.index(ab[0])))[0]


def standing(counts: Mapping[str, Counts], prior: RatePrior) -> Standing:
    """The posterior of the situation with these counts per approach (approaches with none left out)."""
    tried = sorted(a for a, c in counts.items() if c.n)
    if not tried:
        return Standing((), (), 1.0)
    post, *_ = hypotheses(Likelihood([counts[a] for a in tried]), prior)
    return Standing(tuple(tried), tuple(post[:-1]), post[-1])


#: What a review decides (the same words as :mod:`hlmem.domain.experience_review`).
STAY, ACTIVATE, RETIRE = "stay", "activate", "retire"


@frozen
class BayesReview:
    """One live policy's standing in its situation under the prior, and what it decides."""

    decision: str
    approach: str
    confidence: float
    flat: float
    successes: int
    n: int
    others_successes: int
    others_n: int
    waited: int
    prior: RatePrior

    @property
    def statistics(self) -> tuple[tuple[str, float], ...]:
        """The numbers behind the decision, as recorded in the event, the prior's summary included."""
        return (("confidence", round(self.confidence, 4)), ("flat", round(self.flat, 4)),
                ("successes", float(self.successes)), ("n", float(self.n)),
                ("others_successes", float(self.others_successes)), ("others_n", float(self.others_n)),
                ("situation_outcomes_since_proposal", float(self.waited)), *self.prior.summary())

    @property
    def reason(self) -> str:
        """A sentence for people: what was decided and on which numbers."""
        base = (f"confidence {self.confidence:.2f} that {self.approach} is the best approach ({self.successes}/"
                f"{self.n} succeeded against {self.others_successes}/{self.others_n} for the others; "
                f"{self.flat:.2f} that the approach does not matter), after {self.waited} outcomes of the situation")
        if self.decision == ACTIVATE:
            return f"backed at its proposal: {base}" if self.waited == 0 else f"passed probation: {base}"
        return f"no longer the likely best: {base}"


def swing(counts: Mapping[str, Counts], prior: RatePrior, approach: str) -> float:
    """The most the confidence in ``approach`` could fall with one more outcome in its situation:
    over every approach tried and both outcomes, the largest drop (0 when none lowers it). Thin
    evidence swings a lot (a third of an approach's record is a few outcomes), thick evidence little."""
    now = standing(counts, prior).confidence(approach)
    drop = 0.0
    for a, c in counts.items():
        if not c.n:
            continue
        for more in (Counts(c.successes + 1, c.failures), Counts(c.successes, c.failures + 1)):
            drop = max(drop, now - standing({**counts, a: more}, prior).confidence(approach))
    return drop


def retire_bar(counts: Mapping[str, Counts], prior: RatePrior, approach: str, *, min_confidence: float,
               retire_confidence: float) -> float:
    """The confidence under which a live policy retires (ADR 0091): ``min_confidence`` less what one
    more outcome could take from it, never below ``retire_confidence``. The gap between proposing and
    retiring is there so that one unlucky outcome does not undo a policy the evidence just backed;
    once the record is long, one outcome moves little, and a policy that sits below the bar stays
    below it by more than an outcome's worth only because the evidence no longer backs it."""
    return max(retire_confidence, min(min_confidence, min_confidence - swing(counts, prior, approach)))


def review_policy(approach: str, status: str, counts: Mapping[str, Counts], waited: int, prior: RatePrior, *,
                  probation: int, min_confidence: float, retire_confidence: float) -> BayesReview:
    """Review a live policy for ``approach`` (``status`` candidate or active) given its situation's
    counts and ``waited`` outcomes of the situation since its proposal: a candidate past probation
    is activated when its confidence is at least ``min_confidence``; any live policy whose
    confidence fell below its :func:`retire_bar` retires (a candidate only after probation)."""
    st = standing(counts, prior)
    own = counts.get(approach, Counts(0, 0))
    others = [c for a, c in counts.items() if a != approach]
    confidence = st.confidence(approach)
    decision = STAY
    if status == "active" or waited >= probation:
        if confidence < retire_bar(counts, prior, approach, min_confidence=min_confidence,
                                   retire_confidence=retire_confidence):
            decision = RETIRE
        elif status == "candidate" and confidence >= min_confidence:
            decision = ACTIVATE
    return BayesReview(decision, approach, confidence, st.flat, own.successes, own.n,
                       sum(c.successes for c in others), sum(c.n for c in others), waited, prior)
