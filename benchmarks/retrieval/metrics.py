"""Ranking metrics: recall@k (fraction of the gold ids in the top k), hit@k, reciprocal rank, percentiles.

recall@k follows LoCoMo's offline retrieval metric (SOURCE.md): the fraction of a question's gold
evidence ids found in the top k, averaged over questions. hit@k counts a question as found when
any gold id is in the top k. MRR uses the rank of the first gold id (0 when none is returned).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: The cut-offs every table reports.
KS = (1, 5, 10)


def recall_at_k(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """Fraction of ``gold`` ids among the first ``k`` of ``ranked`` (duplicates in ``ranked`` count once)."""
    wanted = set(gold)
    if not wanted:
        raise ValueError("recall@k needs at least one gold id")
    return len(wanted.intersection(ranked[:k])) / len(wanted)


def hit_at_k(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """1.0 when any gold id is among the first ``k`` of ``ranked``, else 0.0."""
    return 1.0 if set(gold).intersection(ranked[:k]) else 0.0


def first_gold_rank(ranked: Sequence[str], gold: Iterable[str]) -> int | None:
    """1-based rank of the first gold id in ``ranked``, or None."""
    wanted = set(gold)
    return next((i for i, item in enumerate(ranked, start=1) if item in wanted), None)


def reciprocal_rank(ranked: Sequence[str], gold: Iterable[str]) -> float:
    """``1 / rank`` of the first gold id, 0.0 when no gold id is ranked."""
    rank = first_gold_rank(ranked, gold)
    return 1.0 / rank if rank else 0.0


def score_query(ranked: Sequence[str], gold: Sequence[str], ks: Sequence[int] = KS) -> dict[str, float]:
    """``r@k`` and ``hit@k`` for every k, and ``rr``, for one query."""
    out = {f"r@{k}": recall_at_k(ranked, gold, k) for k in ks}
    out.update({f"hit@{k}": hit_at_k(ranked, gold, k) for k in ks})
    out["rr"] = reciprocal_rank(ranked, gold)
    return out


def mean_scores(rows: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Per-key means of :func:`score_query` rows (``rr`` becomes ``mrr``), rounded to 4 decimals."""
    if not rows:
        return {}
    keys = rows[0].keys()
    out = {("mrr" if key == "rr" else key): round(sum(r[key] for r in rows) / len(rows), 4) for key in keys}
    out["n"] = len(rows)
    return out


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) with linear interpolation between closest ranks (numpy's default)."""
    if not values:
        return math.nan
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def latency_summary(ms: Sequence[float]) -> dict[str, Any]:
    """p50/p95/mean of latencies in milliseconds, rounded to 0.01 ms."""
    if not ms:
        return {"p50_ms": None, "p95_ms": None, "mean_ms": None}
    return {"p50_ms": round(percentile(ms, 50), 2), "p95_ms": round(percentile(ms, 95), 2),
            "mean_ms": round(sum(ms) / len(ms), 2)}


def by_category(rows: Sequence[tuple[str, Mapping[str, float]]]) -> dict[str, dict[str, float]]:
    """:func:`mean_scores` per category, from ``(category, score row)`` pairs, categories sorted."""
    groups: dict[str, list[Mapping[str, float]]] = {}
    for category, row in rows:
        groups.setdefault(category, []).append(row)
    return {cat: mean_scores(groups[cat]) for cat in sorted(groups)}
