"""What ``run.py`` reports: each system's figures, hlmem's ratios to each peer, and issue 36's goals.

A system's *run* is the list of its calls' replies, each tagged with its conversation: adds
(``cpu_ms``, ``wall_ms``) and recalls (``cpu_ms``, ``wall_ms``, the dataset ids returned and the
question's gold evidence). Per-add CPU is the mean over every add (the cost a user pays in
total, divided by the adds) with p50/p95 beside it; recall latency is the wall time of the call
(p50/p95), its CPU beside it; R@k is LoCoMo's recall@k (the share of a question's evidence turns
among the first k turns returned), averaged over questions.

Ratios are ``peer / hlmem`` for costs (above 1: hlmem is cheaper or faster) and ``hlmem - peer``
for R@k; issue 36 item 4 sets the goals in :data:`GOALS`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from retrieval.margins import paired_bootstrap
from retrieval.metrics import hit_at_k, percentile, recall_at_k

#: The cut-offs reported.
KS = (5, 10)
#: The system the ratios are taken against.
BASE = "hlmem"
#: Issue 36 item 4: hlmem's per-add CPU and recall p50 at least this many times the peer's, and a better R@5.
GOALS: Mapping[str, Mapping[str, float]] = {
    "mem0": {"add_cpu_x": 5.0, "recall_p50_x": 3.0},
    "hl-mem": {"add_cpu_x": 50.0, "recall_p50_x": 50.0},
}


def score_recall(ids: Sequence[str], gold: Sequence[str], ks: Sequence[int] = KS) -> dict[str, float]:
    """``r@k`` and ``hit@k`` of one answer (``ids`` best first) for each k."""
    out = {f"r@{k}": recall_at_k(ids, gold, k) for k in ks}
    out.update({f"hit@{k}": hit_at_k(ids, gold, k) for k in ks})
    return out


def _ms(values: Sequence[float], q: float) -> float | None:
    return round(percentile(values, q), 3) if values else None


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def summarize(adds: Sequence[Mapping[str, Any]], recalls: Sequence[Mapping[str, Any]],
              ks: Sequence[int] = KS) -> dict[str, Any]:
    """One system's figures from its add replies and its scored recall replies (``r@k`` keys)."""
    add_cpu = [float(a["cpu_ms"]) for a in adds]
    add_wall = [float(a["wall_ms"]) for a in adds]
    rec_wall = [float(r["wall_ms"]) for r in recalls]
    rec_cpu = [float(r["cpu_ms"]) for r in recalls]
    out: dict[str, Any] = {
        "adds": len(adds),
        "add_cpu_mean_ms": _mean(add_cpu), "add_cpu_p50_ms": _ms(add_cpu, 50), "add_cpu_p95_ms": _ms(add_cpu, 95),
        "add_wall_p50_ms": _ms(add_wall, 50),
        "recalls": len(recalls),
        "recall_p50_ms": _ms(rec_wall, 50), "recall_p95_ms": _ms(rec_wall, 95),
        "recall_cpu_mean_ms": _mean(rec_cpu), "recall_cpu_p50_ms": _ms(rec_cpu, 50),
        "returned_mean": _mean([float(r.get("returned", len(r.get("ids", ())))) for r in recalls]),
    }
    for key in [f"r@{k}" for k in ks] + [f"hit@{k}" for k in ks]:
        values = [float(r[key]) for r in recalls if key in r]
        out[key] = round(sum(values) / len(values), 4) if values else None
    return out


def _ratio(peer: float | None, base: float | None) -> float | None:
    if peer is None or base is None or base <= 0:
        return None
    return round(peer / base, 2)


def ratios(summaries: Mapping[str, Mapping[str, Any]], base: str = BASE) -> dict[str, dict[str, Any]]:
    """For every system but ``base``: its costs over ``base``'s and ``base``'s R@k minus its own."""
    if base not in summaries:
        return {}
    ours = summaries[base]
    out: dict[str, dict[str, Any]] = {}
    for name, theirs in summaries.items():
        if name == base:
            continue
        row: dict[str, Any] = {
            "add_cpu_x": _ratio(theirs.get("add_cpu_mean_ms"), ours.get("add_cpu_mean_ms")),
            "add_cpu_p50_x": _ratio(theirs.get("add_cpu_p50_ms"), ours.get("add_cpu_p50_ms")),
            "recall_p50_x": _ratio(theirs.get("recall_p50_ms"), ours.get("recall_p50_ms")),
            "recall_p95_x": _ratio(theirs.get("recall_p95_ms"), ours.get("recall_p95_ms")),
            "recall_cpu_x": _ratio(theirs.get("recall_cpu_mean_ms"), ours.get("recall_cpu_mean_ms")),
        }
        for key in ("r@5", "r@10"):
            a, b = ours.get(key), theirs.get(key)
            row[f"{key}_delta"] = round(a - b, 4) if a is not None and b is not None else None
        out[name] = row
    return out


def goals(ratio_rows: Mapping[str, Mapping[str, Any]],
          targets: Mapping[str, Mapping[str, float]] = GOALS) -> dict[str, dict[str, Any]]:
    """Each peer's goals: the target, the measured ratio and whether it is met (R@5 must be better)."""
    out: dict[str, dict[str, Any]] = {}
    for peer, wanted in targets.items():
        row = ratio_rows.get(peer)
        if row is None:
            continue
        checks: dict[str, Any] = {}
        for key, target in wanted.items():
            measured = row.get(key)
            checks[key] = {"goal": target, "measured": measured, "met": measured is not None and measured >= target}
        delta = row.get("r@5_delta")
        checks["r@5_delta"] = {"goal": "> 0", "measured": delta, "met": delta is not None and delta > 0}
        checks["all_met"] = all(c["met"] for c in checks.values())
        out[peer] = checks
    return out


def margin_rows(scored: Mapping[str, Iterable[Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """Rows for :func:`retrieval.margins.paired_bootstrap` from each system's scored recalls."""
    rows: list[dict[str, Any]] = []
    for name, recalls in scored.items():
        for r in recalls:
            rows.append({"method": name, "query": r["query"], "haystack": r["conversation"],
                         **{k: r[k] for k in r if k.startswith(("r@", "hit@"))}})
    return rows


def r5_margins(scored: Mapping[str, Iterable[Mapping[str, Any]]], base: str = BASE,
               metric: str = "r@5") -> dict[str, dict[str, Any]]:
    """hlmem's paired margin over each peer on ``metric`` with its 95% bootstrap interval."""
    rows = margin_rows(scored)
    out: dict[str, dict[str, Any]] = {}
    for name in scored:
        if name == base or base not in scored:
            continue
        try:
            out[name] = paired_bootstrap(rows, base, name, metric)
        except ValueError:
            continue
    return out
