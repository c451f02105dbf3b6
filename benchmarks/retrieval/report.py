"""Tables (stdout, and Markdown for docs/benchmarks/retrieval.md) and PNG charts of a retrieval run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

#: Columns of the main table: scores, then latency.
COLUMNS = ("method", "r@1", "r@5", "r@10", "hit@10", "mrr", "p50_ms", "p95_ms", "cpu_p50_ms", "cpu_p95_ms", "n")
COLORS = {"hlmem": "#d1495b", "bm25": "#66a182", "dense": "#2e4057", "rrf": "#edae49"}


def score_rows(summary: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per method with the :data:`COLUMNS`."""
    return [{"method": m, **{c: s.get(c) for c in COLUMNS[1:]}} for m, s in summary.items()]


def category_rows(summary: Mapping[str, Mapping[str, Any]], metric: str = "r@10") -> list[dict[str, Any]]:
    """One row per category, a column per method holding ``metric``."""
    cats = sorted({c for s in summary.values() for c in s.get("by_category", {})})
    rows = []
    for cat in cats:
        row: dict[str, Any] = {"category": cat}
        for method, s in summary.items():
            got = s.get("by_category", {}).get(cat)
            row[method] = got.get(metric) if got else None
            row["n"] = got.get("n") if got else row.get("n")
        rows.append(row)
    return rows


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"
    return str(value)


def print_table(title: str, rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> None:
    """A fixed-width table on stdout."""
    print(f"\n{title}")
    widths = [max([len(c)] + [len(_cell(r.get(c))) for r in rows]) for c in columns]
    print("  ".join(c.rjust(w) for c, w in zip(columns, widths)))
    for row in rows:
        print("  ".join(_cell(row.get(c)).rjust(w) for c, w in zip(columns, widths)))


def markdown_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> str:
    """The same rows as a GitHub Markdown table."""
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    lines += ["| " + " | ".join(_cell(r.get(c)) for c in columns) + " |" for r in rows]
    return "\n".join(lines)


def scores_chart(title: str, summary: Mapping[str, Mapping[str, Any]], path: Path, note: str = "") -> Path:
    """Grouped bars of R@1, R@5, R@10 and MRR per method (latency p50 in the legend) into ``path``.

    :param note: a second title line (what the latency includes).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metrics = ["r@1", "r@5", "r@10", "mrr"]
    methods = list(summary)
    width = 0.8 / max(1, len(methods))
    fig, ax = plt.subplots(figsize=(8, 4.2), dpi=110)
    for i, method in enumerate(methods):
        values = [summary[method].get(m) or 0 for m in metrics]
        xs = [j + (i - (len(methods) - 1) / 2) * width for j in range(len(metrics))]
        label = f"{method} (p50 {summary[method].get('p50_ms') or 0:.1f} ms)"
        bars = ax.bar(xs, values, width, label=label, color=COLORS.get(method))
        ax.bar_label(bars, labels=[f"{v:.2f}" for v in values], fontsize=7, padding=1)
    ax.set_xticks(range(len(metrics)), [m.upper().replace("R@", "R@") for m in metrics])
    ax.set_ylim(0, 1.05)
    ax.set_title(title + (f"\n{note}" if note else ""), fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


def smoke_chart(title: str, counts: Mapping[str, Mapping[str, int]], totals: Mapping[str, int], path: Path) -> Path:
    """Grouped bars of passed cases per category and method, with each category's case count."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cats = [c for c in totals if c != "total"]
    methods = list(counts)
    width = 0.8 / max(1, len(methods))
    fig, ax = plt.subplots(figsize=(9, 4.2), dpi=110)
    for i, method in enumerate(methods):
        xs = [j + (i - (len(methods) - 1) / 2) * width for j in range(len(cats))]
        label = f"{method}: {counts[method]['total']}/{totals['total']}"
        ax.bar(xs, [counts[method].get(c, 0) for c in cats], width, label=label, color=COLORS.get(method))
    ax.set_xticks(range(len(cats)), [f"{c}\n({totals[c]})" for c in cats], fontsize=8)
    ax.set_ylabel("cases passed")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
