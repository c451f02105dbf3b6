"""Why a packet misses a gold turn (``benchmarks/cost_effect.py``): ranking, or packing.

For every gold turn of a question that a packet does not show whole, one reason, the first that
applies:

- ``not_ranked``: the method's ranking (hlmem's ``k`` recalled items, the baseline's top ``k``)
  does not hold it at all: a ranking miss that no budget can mend;
- ``history``: hlmem recalled it but left it out of the current-time packet as history (ADR 0060);
- ``cut``: it is the packet's last item, shortened to fit;
- ``over_budget``: ranked, but below the last item that fits: a packing miss, which a larger budget
  (or shorter lines) would mend.

A turn counts once per question: the reasons of a question are fractions of its gold turns, so they
average like the ``evidence`` column (``evidence`` + the four reasons = 1 for every question).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

REASONS = ("not_ranked", "history", "cut", "over_budget")
#: One item of a method's ranking: its id, the ids folded into it, its text.
Ranked = tuple[str, Sequence[str], str]


def miss_reasons(gold: Sequence[tuple[str, str]], shown: Iterable[bool], ranked: Sequence[Ranked],
                 packet: Any) -> dict[str, Any]:
    """Each reason's share of ``gold`` and the 1-based rank of each gold turn in ``ranked``.

    ``gold`` are the turns as (item id, text); ``shown[i]`` says whether the packet shows
    ``gold[i]`` whole; ``ranked`` the method's items in order, each (id, ids folded into it, text);
    ``packet`` a :class:`hlmem.application.packet.Packet` built from them (its ``history`` and
    ``cut``). A gold turn is ranked where the first item is that is it, has it folded in, or says
    the same words (the evidence check reads words, so a duplicate said elsewhere shows it too)."""
    first: dict[str, int] = {}
    for i, (item, folded, text) in enumerate(ranked):
        for key in (item, *folded, _words(text)):
            first.setdefault(key, i)
    counts = dict.fromkeys(REASONS, 0)
    ranks: list[int | None] = []
    for (item, text), whole in zip(gold, shown):
        at = min((first[k] for k in (item, _words(text)) if k in first), default=None)
        ranks.append(None if at is None else at + 1)
        if whole:
            continue
        if at is None:
            counts["not_ranked"] += 1
        elif ranked[at][0] in packet.history:
            counts["history"] += 1
        elif ranked[at][0] in packet.cut:
            counts["cut"] += 1
        else:
            counts["over_budget"] += 1
    n = len(gold) or 1
    return {"miss": {r: c / n for r, c in counts.items()}, "ranks": ranks}


def _words(text: str) -> str:
    return "\0" + " ".join(text.split())  # never an id


def summarise_misses(rows: Sequence[Mapping[str, Any]], budgets: Sequence[int],
                     methods: Sequence[str] = ("hlmem", "rrf_ctx")) -> dict[str, Any]:
    """Per method and budget: each reason's mean share of the gold turns, and recall@n of the rankings.

    ``recall@n`` (n = 5, 10, 20, 50) is the share of gold turns the method's ranking holds in its
    first n: what a packet holding n items would show at best."""
    out: dict[str, Any] = {}
    for method in methods:
        mine = [r for r in rows if r["method"] == method and r.get("miss") is not None]
        if not mine:
            continue
        entry: dict[str, Any] = {}
        for b in budgets:
            at = [r for r in mine if r["budget"] == b]
            if at:
                entry[str(b)] = {reason: round(float(np.mean([r["miss"][reason] for r in at])), 4) for reason in REASONS}
        first = [r for r in mine if r["budget"] == budgets[0]]
        entry["recall_at"] = {str(n): round(float(np.mean([_within(r["ranks"], n) for r in first])), 4)
                              for n in (5, 10, 20, 50)}
        out[method] = entry
    return out


def _within(ranks: Sequence[int | None], n: int) -> float:
    return sum(r is not None and r <= n for r in ranks) / len(ranks) if ranks else 0.0


def miss_rows(misses: Mapping[str, Any], budgets: Sequence[int]) -> list[dict[str, str]]:
    """Table rows: method @ budget → each reason's share of the gold turns."""
    rows = []
    for method, entry in misses.items():
        for b in budgets:
            if str(b) in entry:
                rows.append({"packet": f"{method} @{b}", **{r.replace("_", " "): f"{entry[str(b)][r]:.3f}" for r in REASONS}})
    return rows


def recall_rows(misses: Mapping[str, Any]) -> list[dict[str, str]]:
    """Table rows: method → recall@5/10/20/50 of its ranking."""
    return [{"ranking": m, **{f"recall@{n}": f"{v:.3f}" for n, v in e["recall_at"].items()}} for m, e in misses.items()]
