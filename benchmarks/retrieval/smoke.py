"""Per-case verdicts for the HL-Mem smoke set (17 cases, format in its SOURCE.md).

A case passes when:

- it expects no match (``negative``, ``negative_temporal``): nothing is returned;
- otherwise every gold id is within the top ``max_rank`` (the case's own, else the number of gold
  ids: one gold memory among six or so distractors must come first). For ``temporal`` that means
  the memory valid at ``as_of`` outranks the one that is not; for ``supersede`` the winner comes
  first, so it outranks the superseded memory.

The two relation cases (``relation_storage``, ``relation_discovery``) have no query: they belong
to a later feature and are reported as ``n/a`` (not passed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .data import Query

#: The case types of the smoke set and the category names used in reports.
CATEGORY = {
    "recall": "recall", "synonym": "synonym", "chinese_fts": "Chinese-FTS", "temporal": "temporal",
    "negative_temporal": "negative-temporal", "negative": "negative", "supersede": "supersede",
    "relation_storage": "relation", "relation_discovery": "relation",
}


def verdict(query: Query, ranked: Sequence[str]) -> tuple[bool, str]:
    """Whether ``ranked`` (dataset ids, best first) passes ``query``'s case, and why in a few words."""
    if query.no_match:
        return (not ranked, "empty" if not ranked else f"returned {len(ranked)}")
    need = query.max_rank or len(query.gold)
    ranks = {g: (ranked.index(g) + 1 if g in ranked else None) for g in query.gold}
    missing = [g for g, r in ranks.items() if r is None or r > need]
    note = f"gold at {','.join(str(ranks[g] or '-') for g in query.gold)} (need <= {need})"
    loser = query.extra.get("superseded_event_id")
    if loser and loser in ranked:
        note += f"; superseded at {ranked.index(loser) + 1}"
    return (bool(query.gold) and not missing, note)


def case_rows(cases: Sequence[dict[str, Any]], results: dict[str, dict[str, list[str]]],
              methods: Sequence[str]) -> list[dict[str, Any]]:
    """One row per case: id, category and, per method, ``pass``/``FAIL`` (``n/a`` for cases without a query).

    :param results: ``{case id: {method: ranked dataset ids}}``.
    :param methods: method names, in column order.
    """
    from .data import smoke_haystack

    rows = []
    for case in cases:
        hay = smoke_haystack(case)
        row: dict[str, Any] = {"case": case["id"], "category": CATEGORY.get(case["type"], case["type"])}
        for method in methods:
            if not hay.queries:
                row[method] = "n/a"
                continue
            ok, note = verdict(hay.queries[0], results.get(case["id"], {}).get(method, []))
            row[method] = "pass" if ok else "FAIL"
            row[f"{method}_note"] = note
        rows.append(row)
    return rows


def pass_counts(rows: Sequence[dict[str, Any]], methods: Sequence[str]) -> dict[str, dict[str, int]]:
    """``{method: {category: passes, ..., "total": passes}}`` over ``case_rows`` output."""
    out: dict[str, dict[str, int]] = {}
    for method in methods:
        counts: dict[str, int] = {}
        for row in rows:
            counts.setdefault(row["category"], 0)
            counts[row["category"]] += row[method] == "pass"
        counts["total"] = sum(row[method] == "pass" for row in rows)
        out[method] = counts
    return out
