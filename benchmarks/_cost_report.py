"""The cost-effect benchmark's summary, tables and chart (``benchmarks/cost_effect.py``).

Every interval is a percentile bootstrap over questions (2,000 resamples, a fixed seed, as in
``benchmarks/retrieval/margins.py``): a mean's own interval, the paired interval of hlmem's
margin over the baseline at one budget, and the paired interval of a packet's share of what the
full history covers (mean packet coverage / mean history coverage, the same questions resampled).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from _cost_misses import REASONS, miss_rows, recall_rows, summarise_misses
from retrieval.data import LOCOMO_CATEGORY_NAMES

RESAMPLES = 2000
SEED = 39
#: The issue's target: at this budget the packet covers this share of what the full history covers.
TARGET_BUDGET, TARGET_SHARE = 1000, 0.95
METRICS = ("evidence", "answer")
#: Packet methods in table order: each with its baseline (hlmem's margin is taken over it).
PAIRS = (("hlmem", "rrf_ctx"), ("hlmem-v1", "rrf_ctx-v1"), ("hlmem-noid", "rrf_ctx-noid"))
#: The other packing measured beside the product's packet (``cost_effect.py --also``), by suffix.
ALTS = {"v1": "format v1", "noid": "v1 without event ids"}


def _by_query(rows: Iterable[Mapping[str, Any]], method: str, budget: int | None, metric: str) -> dict[str, float]:
    return {r["query"]: float(r[metric]) for r in rows
            if r["method"] == method and r["budget"] == budget and r.get(metric) is not None}


def _picks(n: int) -> np.ndarray:
    return np.random.default_rng(SEED).integers(0, n, size=(RESAMPLES, n))


def mean_ci(values: Sequence[float]) -> list[float]:
    """The 95% bootstrap interval of the mean of ``values`` ([] for none)."""
    if not len(values):
        return []
    arr = np.asarray(values, dtype=float)
    low, high = np.percentile(arr[_picks(len(arr))].mean(axis=1), [2.5, 97.5])
    return [round(float(low), 4), round(float(high), 4)]


def paired(a: Mapping[str, float], b: Mapping[str, float], *, ratio: bool = False) -> dict[str, Any] | None:
    """mean(a) − mean(b) (or mean(a) / mean(b)) over the questions both have, with its paired 95% interval."""
    shared = sorted(set(a) & set(b))
    if not shared:
        return None
    x = np.array([a[q] for q in shared])
    y = np.array([b[q] for q in shared])
    picks = _picks(len(shared))
    if ratio:
        if y.sum() == 0:
            return None
        sums = y[picks].sum(axis=1)
        stats = np.where(sums > 0, x[picks].sum(axis=1) / np.where(sums > 0, sums, 1), np.nan)
        value = x.sum() / y.sum()
    else:
        stats = x[picks].mean(axis=1) - y[picks].mean(axis=1)
        value = x.mean() - y.mean()
    low, high = np.nanpercentile(stats, [2.5, 97.5])
    return {"n": len(shared), "value": round(float(value), 4), "ci95": [round(float(low), 4), round(float(high), 4)]}


def _side(rows: list[dict[str, Any]], method: str, budget: int | None, history: Mapping[str, Mapping[str, float]]
          ) -> dict[str, Any]:
    mine = [r for r in rows if r["method"] == method and r["budget"] == budget]
    out: dict[str, Any] = {"method": method, "budget": budget, "n": len(mine),
                           "tokens_mean": round(float(np.mean([r["tokens"] for r in mine])), 1)}
    e5 = [r["e5_tokens"] for r in mine if r.get("e5_tokens") is not None]
    out["e5_tokens_mean"] = round(float(np.mean(e5)), 1) if e5 else None
    if budget is not None:
        out["items_mean"] = round(float(np.mean([r["items"] for r in mine])), 1)
        timed = [r["recall_ms"] for r in mine if r.get("recall_ms") is not None]
        if timed:  # hlmem's own packets: the recall that built them, wall time
            out["recall_ms_p50"] = round(float(np.median(timed)), 1)
            out["recall_ms_p95"] = round(float(np.percentile(timed, 95)), 1)
    else:
        out["tokens_median"] = float(np.median([r["tokens"] for r in mine]))
    for metric in METRICS:
        values = _by_query(rows, method, budget, metric)
        out[metric] = round(float(np.mean(list(values.values()))), 4) if values else None
        out[f"{metric}_n"] = len(values)
        out[f"{metric}_ci"] = mean_ci(list(values.values()))
        if budget is not None:
            out[f"{metric}_of_history"] = paired(values, history[metric], ratio=True)
    out["evidence_all"] = round(float(np.mean([r["evidence_all"] for r in mine])), 4)
    asked = [r["llm"] for r in mine if r.get("llm")]
    if asked:
        out["llm"] = _llm_summary(asked)
    return out


def _llm_summary(asked: list[Mapping[str, Any]]) -> dict[str, Any]:
    ok = [a for a in asked if a.get("correct") is not None]
    return {"n": len(asked), "answered": len(ok),
            "accuracy": round(float(np.mean([a["correct"] for a in ok])), 4) if ok else None,
            "accuracy_ci": mean_ci([a["correct"] for a in ok]),
            "prompt_tokens_mean": round(float(np.mean([a["prompt_tokens"] for a in asked
                                                       if a.get("prompt_tokens") is not None] or [0])), 1)}


def summarise_dataset(rows: list[dict[str, Any]], budgets: Sequence[int]) -> dict[str, Any]:
    """History, each method at each budget, hlmem's paired margins, the targets."""
    history = {m: _by_query(rows, "history", None, m) for m in METRICS}
    out: dict[str, Any] = {"questions": len(history["evidence"]), "history": _side(rows, "history", None, history)}
    out["history"]["tokens_median"] = float(np.median([r["tokens"] for r in rows if r["method"] == "history"]))
    methods = [m for pair in PAIRS for m in pair if any(r["method"] == m for r in rows)]
    out["packets"] = [_side(rows, m, b, history) for b in budgets for m in methods]
    out["margins"] = {str(b): {m: paired(_by_query(rows, "hlmem", b, m), _by_query(rows, "rrf_ctx", b, m))
                               for m in METRICS} for b in budgets}
    alt = next((a for a in ALTS if f"hlmem-{a}" in methods), None)
    if alt is not None:
        out["alt"] = alt
        out["margins_alt"] = {str(b): {m: paired(_by_query(rows, f"hlmem-{alt}", b, m),
                                                 _by_query(rows, f"rrf_ctx-{alt}", b, m))
                                       for m in METRICS} for b in budgets}
        # the product's packet against the other format of the same items (paired): what the format gained
        out["format_gain"] = {str(b): {m: paired(_by_query(rows, "hlmem", b, m), _by_query(rows, f"hlmem-{alt}", b, m))
                                       for m in METRICS} for b in budgets}
    hl = {p["budget"]: p for p in out["packets"] if p["method"] == "hlmem"}
    share = (hl.get(TARGET_BUDGET) or {}).get("evidence_of_history")
    other = next((p for p in out["packets"] if p["method"] == f"hlmem-{alt}" and p["budget"] == TARGET_BUDGET), None)
    out["targets"] = {
        "evidence_of_history_at_1000": share,
        "met_95_at_1000": None if share is None else share["value"] >= TARGET_SHARE,
        "beats_rrf_ctx_every_budget": all((out["margins"][str(b)]["evidence"] or {}).get("value", 0) > 0
                                          for b in budgets),
        "alt_evidence_of_history_at_1000": other and other["evidence_of_history"],
    }
    out["misses"] = summarise_misses(rows, budgets)
    cats: dict[str, Any] = {}
    for cat in sorted({r["category"] for r in rows}):
        mine = [r for r in rows if r["category"] == cat]
        hist = {m: _by_query(mine, "history", None, m) for m in METRICS}
        entry: dict[str, Any] = {"n": len(hist["evidence"])}
        for method, budget in [("history", None)] + [(m, b) for b in budgets for m in methods]:
            label = method if budget is None else f"{method}@{budget}"
            entry[label] = {m: _mean(_by_query(mine, method, budget, m)) for m in METRICS}
        for b in budgets:
            entry[f"margin@{b}"] = paired(_by_query(mine, "hlmem", b, "evidence"),
                                          _by_query(mine, "rrf_ctx", b, "evidence"))
        if TARGET_BUDGET in budgets:
            entry[f"misses@{TARGET_BUDGET}"] = (summarise_misses(mine, [TARGET_BUDGET], ("hlmem",))
                                                .get("hlmem", {}).get(str(TARGET_BUDGET)))
        cats[category_name(cat)] = entry
    out["by_category"] = cats
    return out


def _mean(values: Mapping[str, float]) -> float | None:
    return round(float(np.mean(list(values.values()))), 4) if values else None


def category_name(cat: str) -> str:
    """LoCoMo's category numbers with their usual names (``4 single-hop``); MemDaily's as they are."""
    return f"{cat} {LOCOMO_CATEGORY_NAMES[int(cat)]}" if cat.isdigit() and int(cat) in LOCOMO_CATEGORY_NAMES else cat


def summarise(rows: list[dict[str, Any]], budgets: Sequence[int]) -> dict[str, Any]:
    """:func:`summarise_dataset` of each dataset in ``rows``."""
    names = list(dict.fromkeys(r["dataset"] for r in rows))
    return {name: summarise_dataset([r for r in rows if r["dataset"] == name], budgets) for name in names}


# --- tables ----------------------------------------------------------------------------------------

def _f(value: Any, digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}" if abs(value) < 100 else f"{value:,.0f}"
    return str(value)


def _ci(values: Sequence[float] | None) -> str:
    return f"[{values[0]:.3f}, {values[1]:.3f}]" if values else "-"


def _share(entry: Mapping[str, Any] | None) -> str:
    return "-" if not entry else f"{entry['value']:.3f} [{entry['ci95'][0]:.3f}, {entry['ci95'][1]:.3f}]"


def _margin(entry: Mapping[str, Any] | None) -> str:
    return "-" if not entry else f"{entry['value']:+.3f} [{entry['ci95'][0]:+.3f}, {entry['ci95'][1]:+.3f}]"


def main_rows(d: Mapping[str, Any]) -> list[dict[str, str]]:
    """One row for the history and one per method and budget."""
    h = d["history"]
    rows = [{"packet": "full history", "tokens/q": _f(h["tokens_mean"]), "e5/q": _f(h["e5_tokens_mean"]),
             "of history": "1", "items": "-", "evidence": f"{_f(h['evidence'])} {_ci(h['evidence_ci'])}",
             "all gold": _f(h["evidence_all"]), "of history's evidence": "1",
             "answer": f"{_f(h['answer'])} {_ci(h['answer_ci'])}", "of history's answers": "1"}]
    for p in d["packets"]:
        rows.append({"packet": f"{p['method']} @{p['budget']}", "tokens/q": _f(p["tokens_mean"]),
                     "e5/q": _f(p["e5_tokens_mean"]), "of history": _f(p["tokens_mean"] / h["tokens_mean"]),
                     "items": _f(p["items_mean"], 1), "evidence": f"{_f(p['evidence'])} {_ci(p['evidence_ci'])}",
                     "all gold": _f(p["evidence_all"]), "of history's evidence": _share(p["evidence_of_history"]),
                     "answer": f"{_f(p['answer'])} {_ci(p['answer_ci'])}",
                     "of history's answers": _share(p["answer_of_history"])})
    return rows


def margin_rows(d: Mapping[str, Any]) -> list[dict[str, str]]:
    """hlmem − rrf_ctx per budget, paired intervals (and the same without event ids when measured)."""
    rows = []
    for b, m in d["margins"].items():
        row = {"budget": b, "evidence: hlmem − rrf_ctx": _margin(m["evidence"]), "answer: hlmem − rrf_ctx": _margin(m["answer"])}
        if "margins_alt" in d:
            row[f"evidence, {ALTS[d['alt']]}"] = _margin(d["margins_alt"][b]["evidence"])
            row[f"evidence: hlmem − hlmem {ALTS[d['alt']]}"] = _margin(d["format_gain"][b]["evidence"])
        rows.append(row)
    return rows


def category_rows(d: Mapping[str, Any], metric: str, budgets: Sequence[int]) -> list[dict[str, str]]:
    """Per category: the history's ``metric`` and hlmem / rrf_ctx at each budget."""
    out = []
    for cat, e in d["by_category"].items():
        row = {"category": cat, "n": str(e["n"]), "history": _f(e["history"][metric])}
        for b in budgets:
            row[f"@{b} hlmem / rrf_ctx"] = f"{_f(e[f'hlmem@{b}'][metric])} / {_f(e[f'rrf_ctx@{b}'][metric])}"
            if d.get("alt") and f"hlmem-{d['alt']}@{b}" in e:
                row[f"@{b} hlmem {ALTS[d['alt']]}"] = _f(e[f"hlmem-{d['alt']}@{b}"][metric])
        out.append(row)
    return out


def print_table(title: str, rows: Sequence[Mapping[str, Any]], markdown: bool) -> None:
    """A fixed-width table, or a Markdown one."""
    if not rows:
        return
    cols = list(rows[0])
    print(f"\n{title}")
    if markdown:
        print("| " + " | ".join(cols) + " |\n| " + " | ".join("---" for _ in cols) + " |")
        for r in rows:
            print("| " + " | ".join(str(r[c]) for c in cols) + " |")
        return
    widths = [max(len(c), *(len(str(r[c])) for r in rows)) for c in cols]
    print("  ".join(c.rjust(w) for c, w in zip(cols, widths)))
    for r in rows:
        print("  ".join(str(r[c]).rjust(w) for c, w in zip(cols, widths)))


def print_report(summary: Mapping[str, Any], *, markdown: bool = False) -> None:
    """Every dataset's tables."""
    budgets = summary["budgets"]
    for name, d in summary["datasets"].items():
        head = (f"{name}: {d['questions']} questions, tokens by {summary['tokens']}, k={summary['k']}, "
                f"embedder {summary['embedder']}; intervals: bootstrap 95% over questions")
        print_table(head, main_rows(d), markdown)
        print_table(f"{name}: hlmem's margin over rrf_ctx (paired)", margin_rows(d), markdown)
        print_table(f"{name}: evidence by category", category_rows(d, "evidence", budgets), markdown)
        print_table(f"{name}: answer by category", category_rows(d, "answer", budgets), markdown)
        if d.get("misses"):
            print_table(f"{name}: gold turns a packet does not show whole, by reason (share of all gold turns)",
                        miss_rows(d["misses"], budgets), markdown)
            print_table(f"{name}: gold turns within the first n of each ranking (k={summary['k']})",
                        recall_rows(d["misses"]), markdown)
            print_table(f"{name}: hlmem @{TARGET_BUDGET}, misses by category", [
                {"category": cat, "n": str(e["n"]), "evidence": _f(e[f"hlmem@{TARGET_BUDGET}"]["evidence"]),
                 **{r.replace("_", " "): _f(e[f"misses@{TARGET_BUDGET}"][r]) for r in REASONS}}
                for cat, e in d["by_category"].items() if e.get(f"misses@{TARGET_BUDGET}")], markdown)
        t = d["targets"]
        print(f"\n{name}: at 1,000 tokens hlmem's packet holds {_share(t['evidence_of_history_at_1000'])} of the "
              f"evidence the full history holds (target ≥ {TARGET_SHARE}: "
              f"{'met' if t['met_95_at_1000'] else 'not met'}); beats rrf_ctx at every budget: "
              f"{'yes' if t['beats_rrf_ctx_every_budget'] else 'no'}"
              + (f"; in {ALTS[d['alt']]} {_share(t['alt_evidence_of_history_at_1000'])}"
                 if t.get("alt_evidence_of_history_at_1000") else ""))
        llm = [(p["method"], p["budget"], p["llm"]) for p in [d["history"], *d["packets"]] if p.get("llm")]
        if llm:
            print_table(f"{name}: the LLM's answers", [
                {"from": f"{m} @{b}" if b else "full history", "asked": x["n"], "answered": x["answered"],
                 "accuracy": f"{_f(x['accuracy'])} {_ci(x['accuracy_ci'])}",
                 "prompt tokens/q": _f(x["prompt_tokens_mean"])} for m, b, x in llm], markdown)


# --- the chart -------------------------------------------------------------------------------------

COLORS = {"hlmem": "#d1495b", "rrf_ctx": "#2e4057", "history": "#66a182"}
NAMES = {"locomo": "LoCoMo dev", "memdaily": "MemDaily dev, mixed protocol"}
TICKS = (250, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 200_000)


def write_chart(summary: Mapping[str, Any], path: Path) -> Path:
    """Coverage against tokens per question (log x): each method's packets at every budget, the full history."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    datasets = summary["datasets"]
    fig, axes = plt.subplots(1, len(datasets), figsize=(max(8.0, 6.2 * len(datasets)), 5.6), squeeze=False)
    for ax, (name, d) in zip(axes[0], datasets.items()):
        h = d["history"]
        for method, label in (("hlmem", "hlmem packet"), ("rrf_ctx", "rrf_ctx packed the same way")):
            ps = [p for p in d["packets"] if p["method"] == method]
            x = [p["tokens_mean"] for p in ps]
            ax.plot(x, [p["evidence"] for p in ps], "o-", color=COLORS[method], label=f"{label}: gold evidence")
            ax.plot(x, [p["answer"] for p in ps], "s--", color=COLORS[method], alpha=0.55, markersize=4,
                    label=f"{label}: gold answer")
            if method == "hlmem":
                for p in ps:
                    ax.annotate(f"{p['budget']:,}", (p["tokens_mean"], p["evidence"]), textcoords="offset points",
                                xytext=(0, 7), ha="center", fontsize=8, color=COLORS[method])
        other = [p for p in d["packets"] if d.get("alt") and p["method"] == f"hlmem-{d['alt']}"]
        if other:
            ax.plot([p["tokens_mean"] for p in other], [p["evidence"] for p in other], "^:", color=COLORS["hlmem"],
                    alpha=0.7, label=f"hlmem packet in {ALTS[d['alt']]}: gold evidence")
        ax.plot([h["tokens_mean"]], [h["evidence"]], "*", markersize=15, color=COLORS["history"],
                label="full history: gold evidence")
        ax.plot([h["tokens_mean"]], [h["answer"]], "D", markersize=7, color=COLORS["history"], alpha=0.6,
                label="full history: gold answer")
        ax.annotate(f"{h['tokens_mean']:,.0f} tokens", (h["tokens_mean"], h["evidence"]), textcoords="offset points",
                    xytext=(-10, -3), ha="right", va="top", fontsize=8, color=COLORS["history"])
        ax.axhline(TARGET_SHARE * h["evidence"], color="grey", lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.set_xlim(150, max(3000.0, h["tokens_mean"] * 1.6))
        ax.xaxis.set_major_locator(FixedLocator([t for t in TICKS if t <= h["tokens_mean"] * 1.6]))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v / 1000:g}k" if v >= 1000 else f"{v:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("tokens carried per question (hlmem's estimate, log scale)")
        ax.set_ylabel("share of questions' gold found in the text")
        ax.set_title(f"{NAMES.get(name, name)}: {d['questions']:,} questions", fontsize=10)
        ax.grid(True, which="both", alpha=0.25)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8, frameon=False)
    fig.suptitle("What an agent carries per question: a packet of 250–2,000 tokens (labels) or the whole history\n"
                 f"(gold = the question's evidence turns, or its answer normalised; dotted: {TARGET_SHARE:.0%} of "
                 "what the history holds)", fontsize=10)
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
