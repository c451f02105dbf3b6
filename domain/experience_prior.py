"""The rate prior of a namespace's situations, learnt from their own counts (empirical Bayes; pure, ADR 0066).

How good is "5 of 6 succeeded" against "4 of 11"? That depends on what success rates approaches
have *in this store*: where most approaches succeed 30 % of the time and the good ones 85 %, five
of six is strong evidence; where everything succeeds about half the time, it is a lucky streak.
The lifecycle's posterior (:mod:`hlmem.domain.experience_bayes`) asks that question of a prior,
and this module fits the prior to the namespace's situations, so nothing is assumed about the
world but the shape of the model:

- a situation is either **flat** — the approach does not matter, every approach tried there shares
  one success rate, drawn from ``flat`` — or it has **one best approach**, whose rate is drawn
  from ``best`` while each other approach's is drawn from ``rest``; ``distinct`` is the share of
  situations of the second kind;
- ``best``, ``rest`` and ``flat`` are distributions of a *recorded* success rate (mislabelled
  outcomes included) on a grid of :data:`GRID_POINTS` rates, each a discretised Beta.

:func:`fit_prior` finds them by expectation-maximisation over the situations' counts (each
situation's hypotheses weighted by their posterior, each approach's rate by its posterior on the
grid), matching each Beta to the weighted mean and variance of the rates it is responsible for.
Two pseudo-counts keep a store with few situations from overfitting: ``strength`` pseudo-situations
of a uniform rate's variance widen each Beta, and one pseudo-situation of each kind pulls
``distinct`` towards 1/2. With no situation at all the fit is :data:`DEFAULT_PRIOR`.

The fit costs O(situations × approaches × grid × iterations); at most
:data:`MAX_FIT_SITUATIONS` situations (those with the most outcomes) enter it, so it is bounded
however large the namespace grows, and the service refits only as the namespace's outcomes grow
(``application/experience.py``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from attrs import frozen

from hlmem.domain.experience_counts import Counts

GRID_POINTS = 32
#: The success rates the prior's distributions are defined on (midpoints of equal bins of 0..1).
GRID: tuple[float, ...] = tuple((i + 0.5) / GRID_POINTS for i in range(GRID_POINTS))
_LOG_Q = tuple(math.log(q) for q in GRID)
_LOG_1Q = tuple(math.log1p(-q) for q in GRID)
#: The situations with the most outcomes that a fit reads (the rest add little and cost time).
MAX_FIT_SITUATIONS = 400
#: The variance of a uniform rate: what ``strength`` pseudo-situations contribute to each Beta.
_UNIFORM_VARIANCE = 1 / 12
#: Pseudo-situations of a uniform rate's variance that widen each fitted Beta (3 in ADR 0066; 1 since
#: ADR 0091: three made a best approach's rate so broad that 12 of 16 against 2 of 7 and 3 of 13 left
#: a quarter of the posterior on the others being the best).
STRENGTH = 1.0
#: How a fitted distribution is shaped (ADR 0095): ``"beta"`` matches a Beta's mean and variance to
#: the EM step's weighted rates (ADR 0066), whose tails reach past any edge the world has;
#: ``"grid"`` keeps those weighted rates themselves on the grid (a histogram, mixed with
#: ``strength`` pseudo-situations of a uniform rate), a prior with the world's edges. Measured on
#: the tuning seeds the grid named fewer real types at more noise-only policies at 1,000 episodes
#: (its fit on thin early counts is rougher), so the Beta stays the default.
SHAPE = "beta"
SHAPES = ("grid", "beta")


def beta_weights(mean: float, variance: float) -> tuple[float, ...]:
    """A Beta distribution of this mean and variance, discretised on :data:`GRID` (weights sum to 1).
    The mean is kept within 0.02..0.98 and the variance below the largest a Beta of that mean has."""
    mean = min(max(mean, 0.02), 0.98)
    variance = min(max(variance, 1e-4), 0.95 * mean * (1 - mean))
    k = mean * (1 - mean) / variance - 1
    a, b = mean * k, (1 - mean) * k
    logs = [(a - 1) * lq + (b - 1) * l1 for lq, l1 in zip(_LOG_Q, _LOG_1Q, strict=True)]
    top = max(logs)
    weights = [math.exp(v - top) for v in logs]
    total = sum(weights)
    return tuple(w / total for w in weights)


@frozen
class RatePrior:
    """What success rates look like in a namespace (module docstring): the share of situations with
    one best approach, and the rate distributions of best, other and flat approaches."""

    distinct: float
    best: tuple[float, ...]
    rest: tuple[float, ...]
    flat: tuple[float, ...]
    #: The situations and outcomes it was fitted on (0 for the default).
    situations: int = 0
    outcomes: int = 0

    def summary(self) -> tuple[tuple[str, float], ...]:
        """Its numbers as an event's statistics: the share of situations with a best approach, the
        mean rate of best, other and flat approaches, what it was fitted on."""
        def mean(weights: tuple[float, ...]) -> float:
            return round(sum(w * q for w, q in zip(weights, GRID, strict=True)), 4)

        return (("prior_distinct", round(self.distinct, 4)), ("prior_best_rate", mean(self.best)),
                ("prior_other_rate", mean(self.rest)), ("prior_flat_rate", mean(self.flat)),
                ("prior_situations", float(self.situations)), ("prior_outcomes", float(self.outcomes)))


#: The prior before any situation is known: as likely flat as not, best approaches around 0.7,
#: others around 0.35, flat ones around 0.5, all broad.
DEFAULT_PRIOR = RatePrior(0.5, beta_weights(0.7, 0.03), beta_weights(0.35, 0.03), beta_weights(0.5, 0.05))


class Likelihood:
    """One situation's counts as likelihoods on the grid: per approach and for one shared rate,
    each shifted by its largest log so that it stays finite (the shift is kept in ``scale``)."""

    __slots__ = ("per", "flat")

    def __init__(self, counts: Sequence[Counts]) -> None:
        self.per: list[tuple[list[float], float]] = []
        total = [0.0] * GRID_POINTS
        for c in counts:
            logs = [c.successes * lq + c.failures * l1 for lq, l1 in zip(_LOG_Q, _LOG_1Q, strict=True)]
            for i, v in enumerate(logs):
                total[i] += v
            self.per.append(_shifted(logs))
        self.flat = _shifted(total)


def _shifted(logs: list[float]) -> tuple[list[float], float]:
    top = max(logs)
    return [math.exp(v - top) for v in logs], top


def hypotheses(lik: Likelihood, prior: RatePrior) -> tuple[list[float], list, list, tuple[list[float], float]]:
    """The posterior of "approach ``a`` is the best" for each approach, then of "flat" (last), and the
    pieces EM reuses: per approach the best- and rest-weighted grid terms with their sums and scales,
    and the flat-weighted terms with their sum."""
    as_best, as_rest = [], []
    for values, scale in lik.per:
        wb = [g * v for g, v in zip(prior.best, values, strict=True)]
        wr = [g * v for g, v in zip(prior.rest, values, strict=True)]
        as_best.append((wb, max(sum(wb), 1e-300), scale))
        as_rest.append((wr, max(sum(wr), 1e-300), scale))
    k = len(lik.per)
    rest_total = sum(math.log(m) + s for _, m, s in as_rest)
    logs = [math.log(max(prior.distinct, 1e-12) / k) + math.log(mb) + sb + rest_total - math.log(mr) - sr
            for (_, mb, sb), (_, mr, sr) in zip(as_best, as_rest, strict=True)]
    values, scale = lik.flat
    wf = [g * v for g, v in zip(prior.flat, values, strict=True)]
    mf = max(sum(wf), 1e-300)
    logs.append(math.log(max(1 - prior.distinct, 1e-12)) + math.log(mf) + scale)
    top = max(logs)
    weights = [math.exp(v - top) for v in logs]
    total = sum(weights)
    return [w / total for w in weights], as_best, as_rest, (wf, mf)


def fit_prior(situations: Iterable[Mapping[str, Counts]], *, iterations: int = 40,
              strength: float | None = None, shape: str | None = None) -> RatePrior:
    """The prior that best explains these situations' counts (module docstring); situations with no
    outcome are left out, and at most :data:`MAX_FIT_SITUATIONS` (the most outcomes first) enter.
    EM starts from :data:`DEFAULT_PRIOR` and stops after ``iterations`` or once no number of the
    prior moves by more than 1e-5, so the fit is a function of the counts alone."""
    shape = SHAPE if shape is None else shape
    strength = STRENGTH if strength is None else strength
    if shape not in SHAPES:
        raise ValueError(f"a prior's shape is one of {', '.join(SHAPES)}, not {shape!r}")
    usable = [tuple(c for _, c in sorted(s.items()) if c.n) for s in situations]
    usable = sorted((s for s in usable if s), key=lambda s: -sum(c.n for c in s))[:MAX_FIT_SITUATIONS]
    if not usable:
        return DEFAULT_PRIOR
    liks = [Likelihood(s) for s in usable]
    prior = DEFAULT_PRIOR
    for _ in range(iterations):
        acc_best, acc_rest, acc_flat = [0.0] * GRID_POINTS, [0.0] * GRID_POINTS, [0.0] * GRID_POINTS
        distinct = 0.0
        for lik in liks:
            post, as_best, as_rest, (wf, mf) = hypotheses(lik, prior)
            flat = post[-1]
            distinct += 1 - flat
            for a, ((wb, mb, _), (wr, mr, _)) in enumerate(zip(as_best, as_rest, strict=True)):
                fb, fr = post[a] / mb, max(0.0, 1 - flat - post[a]) / mr
                acc_best = [x + fb * w for x, w in zip(acc_best, wb, strict=True)]
                acc_rest = [x + fr * w for x, w in zip(acc_rest, wr, strict=True)]
            ff = flat / mf
            acc_flat = [x + ff * w for x, w in zip(acc_flat, wf, strict=True)]
        match = _matched if shape == "beta" else _histogram
        new = RatePrior((distinct + 1) / (len(liks) + 2), match(acc_best, prior.best, strength),
                        match(acc_rest, prior.rest, strength), match(acc_flat, prior.flat, strength))
        moved = max(abs(x - y) for x, y in zip((new.distinct, *new.best, *new.rest, *new.flat),
                                              (prior.distinct, *prior.best, *prior.rest, *prior.flat), strict=True))
        prior = new
        if moved < 1e-5:
            break
    return RatePrior(prior.distinct, prior.best, prior.rest, prior.flat, len(usable),
                     sum(c.n for s in usable for c in s))


def _matched(acc: list[float], old: tuple[float, ...], strength: float) -> tuple[float, ...]:
    """The Beta with the weighted mean and variance of ``acc`` (widened by ``strength``
    pseudo-situations of a uniform rate's variance); ``old`` when nothing was assigned."""
    total = sum(acc)
    if total < 1e-9:
        return old
    mean = sum(w * q for w, q in zip(acc, GRID, strict=True)) / total
    variance = sum(w * (q - mean) ** 2 for w, q in zip(acc, GRID, strict=True)) / total
    return beta_weights(mean, (total * variance + strength * _UNIFORM_VARIANCE) / (total + strength))


def _histogram(acc: list[float], old: tuple[float, ...], strength: float) -> tuple[float, ...]:
    """The weighted rates of ``acc`` themselves, mixed with ``strength`` pseudo-situations of a
    uniform rate (each point gets at least that share); ``old`` when nothing was assigned. Unlike
    :func:`_matched` it keeps an edge: where no situation's rate lies, only the uniform share does."""
    total = sum(acc)
    if total < 1e-9:
        return old
    floor = strength / GRID_POINTS
    return tuple((w + floor) / (total + strength) for w in acc)
