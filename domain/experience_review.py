"""The comparative review of a candidate policy inside its situation (ADR 0050): pure statistics.

After every ended episode of a situation, each candidate there is reviewed against the other
approaches tried in the same situation (the same trigger signature), pooled:

- **Probation** is counted in the situation's outcomes — ended succeeded/failed episodes of *any*
  approach — since the proposal (``PolicyState.proposed_outcomes``, recorded in
  ``policy.proposed.v1``), not in the candidate's own outcomes and never in wall time: an outcome
  of another approach is evidence about the comparison too.
- **Lead z**: the two-proportion z statistic, with pooled variance, of the candidate's success
  rate against the other approaches' pooled rate, over the situation's ended episodes. ``None``
  when no other approach was tried (or the candidate has no ended episode): then only the
  absolute bar speaks.
- Once probation is over, the candidate is **activated** when its reliability (the Wilson lower
  bound) meets ``min_reliability`` and its lead z reaches ``z`` (one-sided 95 % by default); it
  is **retired** when even its Wilson *upper* bound is below ``min_reliability``, or its lead z
  fell below ``retire_z`` (it is no longer clearly better than the rest); in between it stays a
  candidate and gathers evidence.

The numbers the decision read go into the event (``statistics``), so the log says why; the
decision itself reads only the situation's episodes, which replay rebuilds, so replaying the log
gives the same states.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from attrs import frozen

#: What a review decides: nothing yet, activate, or retire.
STAY, ACTIVATE, RETIRE = "stay", "activate", "retire"


def wilson_bounds(successes: int, n: int, z: float) -> tuple[float, float]:
    """The Wilson score interval ``(lower, upper)`` of ``successes`` out of ``n`` (``(0, 1)`` for none)."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    centre = p + z2 / (2 * n)
    margin = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    scale = 1 + z2 / n
    # The interval holds the observed rate; clamping to it only undoes rounding (5/5's upper
    # bound came out as 0.9999999999999999).
    return max(0.0, min(p, (centre - margin) / scale)), min(1.0, max(p, (centre + margin) / scale))


def lead_z(successes: int, n: int, others_successes: int, others_n: int) -> float | None:
    """The two-proportion z statistic (pooled variance) of ``successes/n`` against the others'
    ``others_successes/others_n``; None when either side has no outcome. Identical rates give 0;
    when every outcome on both sides is the same, the difference is 0 and so is z."""
    if n <= 0 or others_n <= 0:
        return None
    pooled = (successes + others_successes) / (n + others_n)
    variance = pooled * (1 - pooled) * (1 / n + 1 / others_n)
    diff = successes / n - others_successes / others_n
    if variance <= 0.0:
        return 0.0
    return diff / math.sqrt(variance)


@frozen
class Review:
    """One candidate's standing in its situation, and what it decides."""

    decision: str
    successes: int
    n: int
    others_successes: int
    others_n: int
    reliability: float
    upper: float
    lead_z: float | None
    waited: int

    @property
    def statistics(self) -> tuple[tuple[str, float], ...]:
        """The numbers behind the decision, as recorded in the event (no lead z: none recorded)."""
        out = [("successes", float(self.successes)), ("n", float(self.n)),
               ("others_successes", float(self.others_successes)), ("others_n", float(self.others_n)),
               ("reliability", round(self.reliability, 4)), ("upper", round(self.upper, 4)),
               ("situation_outcomes_since_proposal", float(self.waited))]
        if self.lead_z is not None:
            out.append(("lead_z", round(self.lead_z, 4)))
        return tuple(out)

    @property
    def reason(self) -> str:
        """A sentence for people: what was decided and on which numbers."""
        lead = "no other approach tried" if self.lead_z is None else f"lead z {self.lead_z:.2f}"
        base = (f"{self.successes}/{self.n} succeeded against {self.others_successes}/{self.others_n} for the "
                f"other approaches, {lead}, reliability {self.reliability:.2f} (at most {self.upper:.2f}), "
                f"after {self.waited} outcomes of the situation")
        if self.decision == ACTIVATE:
            return f"passed probation: {base}"
        return f"failed probation: {base}"


def review_candidate(approach: str, counts: Mapping[str, tuple[int, int]], waited: int, *, probation: int,
                     min_reliability: float, z: float, retire_z: float) -> Review:
    """Review the candidate for ``approach`` given each approach's ``(successes, n)`` in the
    situation and ``waited`` situation outcomes since its proposal (module docstring)."""
    s, n = counts.get(approach, (0, 0))
    os_ = sum(c[0] for a, c in counts.items() if a != approach)
    on = sum(c[1] for a, c in counts.items() if a != approach)
    lower, upper = wilson_bounds(s, n, z)
    lz = lead_z(s, n, os_, on)
    decision = STAY
    if waited >= probation:
        if upper < min_reliability or (lz is not None and lz < retire_z):
            decision = RETIRE
        elif lower >= min_reliability and (lz is None or lz >= z):
            decision = ACTIVATE
    return Review(decision, s, n, os_, on, lower, upper, lz, waited)
