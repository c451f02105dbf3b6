"""Paired bootstrap intervals for the margin between two methods (issue 16).

Both methods answer the same questions, so the margin is taken question by question and the
questions are resampled with replacement (``n`` resamples, a fixed seed so a report can be
reproduced). The interval is the percentile one: the 2.5th and 97.5th percentiles of the
resampled mean margins. Questions of one haystack are not independent (one conversation, one
file), so the interval is on the narrow side; ``by="haystack"`` resamples whole haystacks instead.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

#: Resamples per interval.
RESAMPLES = 2000


def per_query(rows: Iterable[Mapping[str, Any]], method: str, metric: str) -> dict[str, tuple[str, float]]:
    """``{query id: (haystack, metric)}`` of one method's answer rows (rows without the metric are skipped)."""
    return {r["query"]: (r["haystack"], float(r[metric])) for r in rows if r["method"] == method and metric in r}


def paired_bootstrap(rows: Iterable[Mapping[str, Any]], a: str, b: str, metric: str = "r@10", *,
                     n: int = RESAMPLES, seed: int = 16, by: str = "query") -> dict[str, Any]:
    """Mean of ``metric(a) - metric(b)`` over the questions both answered, and its 95% interval.

    :param by: ``query`` resamples questions, ``haystack`` resamples whole haystacks.
    :raises ValueError: the two methods share no question, or ``by`` is unknown.
    """
    if by not in ("query", "haystack"):
        raise ValueError(f"by must be 'query' or 'haystack', not {by!r}")
    rows = list(rows)
    left, right = per_query(rows, a, metric), per_query(rows, b, metric)
    shared = sorted(set(left) & set(right))
    if not shared:
        raise ValueError(f"{a} and {b} share no question with {metric}")
    diffs = np.array([left[q][1] - right[q][1] for q in shared])
    rng = np.random.default_rng(seed)
    if by == "query":
        picks = rng.integers(0, len(diffs), size=(n, len(diffs)))
        means = diffs[picks].mean(axis=1)
    else:
        groups: dict[str, list[int]] = defaultdict(list)
        for i, q in enumerate(shared):
            groups[left[q][0]].append(i)
        sums = np.array([diffs[idx].sum() for idx in groups.values()])
        counts = np.array([len(idx) for idx in groups.values()])
        picks = rng.integers(0, len(sums), size=(n, len(sums)))
        means = sums[picks].sum(axis=1) / counts[picks].sum(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return {"a": a, "b": b, "metric": metric, "n": len(shared), "by": by, "margin": round(float(diffs.mean()), 4),
            "ci95": [round(float(low), 4), round(float(high), 4)]}
