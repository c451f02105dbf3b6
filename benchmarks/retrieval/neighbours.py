"""Offline study of the neighbour-turn stage on dumped candidates (docs/benchmarks/retrieval.md, "Neighbour turns").

Reads the pickles of :mod:`.dump` (``python -m benchmarks.retrieval.dump locomo|memdaily OUT.pkl``) and
scores, per question, ``fuse`` → ``apply_floor`` → replies → next/previous turn → top 10, with the
product's functions and a grid of weights; then leave-one-haystack-out. It leaves out visibility,
the final signals and folding, so its figures sit within about 0.01 of end-to-end runs.
``--ideas`` also scores the rejected second bm25 rankings (context, dates, own BM25; needs rank-bm25).

Usage: ``python -m benchmarks.retrieval.neighbours LOCOMO.pkl MEMDAILY.pkl [--ideas]``.
"""

from __future__ import annotations

import pickle
import sys
from collections.abc import Callable, Mapping

from attrs import evolve

from hlmem.application.ports import Candidate
from hlmem.application.conversation import (boost_speaker, named_speaker, propagate_replies, propagate_successors,
                                            support_sessions)
from hlmem.application.ranking import RankingConfig, Scored, apply_floor, fuse

FLOOR, POOL = 0.82, 50


def _speaker(text: str) -> str:
    """A LoCoMo document is ``"<speaker>: <text>"``."""
    head, sep, _ = text.partition(":")
    return head if sep and len(head) < 40 else "user"


def load(path: str, speakers: bool) -> tuple[list[dict], dict[str, dict[str, str]], dict[str, dict[str, str]], dict]:
    """Real (non-negative) rows, next-turn and reply maps per haystack, the documents.

    :param speakers: the documents start with their speaker (LoCoMo); else one speaker (MemDaily).
    """
    data = pickle.load(open(path, "rb"))  # noqa: SIM115 - a benchmark script
    after: dict[str, dict[str, str]] = {}
    replies: dict[str, dict[str, str]] = {}
    for hay, docs in data["docs"].items():
        last: dict[str, str] = {}
        after[hay] = {}
        for doc_id, (_text, session, _at) in docs.items():
            if session in last:
                after[hay][last[session]] = doc_id
            last[session] = doc_id
        replies[hay] = ({i: n for i, n in after[hay].items() if _speaker(docs[n][0]) != _speaker(docs[i][0])}
                        if speakers else {})
    return [r for r in data["rows"] if not r["neg"]], after, replies, data["docs"]


def score(rows: list[dict], after: Mapping, replies: Mapping, config: RankingConfig,
          extra: Callable[[dict], list[tuple[str, float]]] | None = None, extra_weight: float = 0.0,
          roles_of: Mapping[str, Mapping[str, str]] | None = None,
          sessions_of: Mapping[str, Mapping[str, str]] | None = None) -> list[tuple]:
    """(haystack, recall@10, reciprocal rank, hit@1) per question.

    :param roles_of: each haystack's speaker by document id (:func:`roles`), for the speaker bonus.
    :param sessions_of: each haystack's session by document id (:func:`sessions`), for the session
        evidence; without it (or ``roles_of``) that stage is left out.
    """
    roles_of, sessions_of = roles_of or {}, sessions_of or {}
    if config.speaker_weight > 0 and not roles_of:
        config = evolve(config, speaker_weight=0.0)
    if config.session_weight > 0 and not sessions_of:
        config = evolve(config, session_weight=0.0)
    out = []
    for r in rows:
        text = [Candidate(i, "event", rank, sc, ex) for (i, rank, sc, ex) in r["text"][:POOL]]
        vec = [Candidate(i, "event", rank, sc) for (i, rank, sc) in r["vec"][:POOL]]
        rankings = {"text": text, "vector": vec}
        if config.context_weight > 0 and "ctx" in r:
            rankings["context"] = [Candidate(i, "event", rank, sc) for (i, rank, sc) in r["ctx"][:POOL]]
        ranked = apply_floor(fuse(rankings, config, floor=FLOOR, pool=POOL), rankings, FLOOR)
        if extra is not None and extra_weight:
            hits = extra(r)[:POOL]
            by = {s.item_id: s for s in ranked}
            for i, sc in hits:
                add = extra_weight * sc / hits[0][1]
                s = by.get(i)
                by[i] = (Scored(item_id=i, kind="event", relevance=add, score=add, ranks={"extra": 1}) if s is None
                         else evolve(s, relevance=s.relevance + add, score=s.score + add))
            ranked = sorted(by.values(), key=lambda s: (-s.score, min(s.ranks.values()), s.item_id))
        nxt = after[r["hay"]]
        ranked = propagate_replies(ranked, text, replies[r["hay"]], config)
        ranked = propagate_successors(ranked, nxt, config, predecessors={n: i for i, n in nxt.items()})
        if config.speaker_weight > 0:
            roles = roles_of[r["hay"]]
            speaker = named_speaker(r["q"], sorted(set(roles.values())))
            if speaker is not None:
                ranked = boost_speaker(ranked, roles, speaker, config)
        if config.session_weight > 0:
            ranked = support_sessions(ranked, sessions_of.get(r["hay"], {}), config)
        top = [s.item_id for s in ranked[:10]]
        gold = r["gold"]
        out.append((r["hay"], sum(g in top for g in gold) / len(gold),
                    next((1 / (n + 1) for n, i in enumerate(top) if i in gold), 0.0),
                    float(bool(top) and top[0] in gold)))
    return out


def roles(docs: Mapping[str, Mapping[str, tuple]], speakers: bool) -> dict[str, dict[str, str]]:
    """Each document's speaker (LoCoMo: the ``"<speaker>:"`` prefix; else ``user``), per haystack."""
    return {hay: {i: (_speaker(d[0]) if speakers else "user") for i, d in hay_docs.items()}
            for hay, hay_docs in docs.items()}


def sessions(docs: Mapping[str, Mapping[str, tuple]]) -> dict[str, dict[str, str]]:
    """Each document's session, per haystack."""
    return {hay: {i: d[1] for i, d in hay_docs.items()} for hay, hay_docs in docs.items()}


def mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def summary(out: list[tuple]) -> str:
    r10, r1, mrr = (mean([o[i] for o in out]) for i in (1, 3, 2))
    return f"R@10 {r10:.3f}  R@1 {r1:.3f}  MRR {mrr:.3f}"


def loo(results: dict[float, dict[str, list[tuple]]], sets: tuple[str, ...]) -> None:
    """Leave one haystack out: the weight best on the rest (mean R@10 over ``sets``), scored on it."""
    weights = sorted(results)
    for name in sets:
        held, chosen = [], []
        for hay in sorted({o[0] for o in results[weights[0]][name]}):
            def objective(w: float, hay: str = hay) -> float:
                return sum(mean([o[1] for o in results[w][s] if o[0] != hay]) for s in sets)
            best = max(weights, key=objective)
            chosen.append(best)
            held += [o for o in results[best][name] if o[0] == hay]
        print(f"  {name}: folds chose {chosen}; held out {summary(held)} "
              f"(weight 0: {summary(results[0.0][name])})")


def main(argv: list[str]) -> None:
    data = {"locomo": load(argv[0], True), "memdaily": load(argv[1], False)}
    base = RankingConfig()
    print("replies (predecessor off), LoCoMo leave-one-conversation-out:")
    res = {w: {n: score(d[0], d[1], d[2], evolve(base, reply_weight=w, predecessor_weight=0.0))
               for n, d in data.items() if n == "locomo"} for w in (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6)}
    for w, r in res.items():
        print(f"  reply_weight {w}: LoCoMo {summary(r['locomo'])}")
    loo(res, ("locomo",))
    print("the turn before (replies 0.4), both sets, leave-one-haystack-out:")
    res = {w: {n: score(d[0], d[1], d[2], evolve(base, reply_weight=0.4, predecessor_weight=w))
               for n, d in data.items()} for w in (0.0, 0.4, 0.5, 0.6, 0.7, 0.8)}
    for w, r in res.items():
        print(f"  predecessor_weight {w}: LoCoMo {summary(r['locomo'])} | MemDaily {summary(r['memdaily'])}")
    loo(res, ("locomo", "memdaily"))
    if "--ideas" in argv:
        ideas(data)


def ideas(data: dict) -> None:
    """The rejected second bm25 rankings, added with a weight, before the current neighbour stage."""
    import numpy as np
    from rank_bm25 import BM25Okapi

    from hlmem.adapters.text.segment import query_terms, segment_for_index

    def doc_text(mode: str, docs: dict, before: dict, nxt: dict, i: str) -> str:
        text, _session, at = docs[i]
        if mode in ("prev", "both") and i in before:
            text = docs[before[i]][0] + " " + text
        if mode == "both" and i in nxt:
            text = text + " " + docs[nxt[i]][0]
        if mode == "date" and at is not None:
            text = f"{text} {at.day} {at:%B} {at.year}"
        return text

    off = RankingConfig(reply_weight=0.0, predecessor_weight=0.0)
    for name, (rows, after, replies, docs) in data.items():
        for mode in ("self", "date", "prev", "both"):
            index = {}
            for hay, hay_docs in docs.items():
                before = {n: i for i, n in after[hay].items()}
                ids = list(hay_docs)
                index[hay] = (ids, BM25Okapi([segment_for_index(doc_text(mode, hay_docs, before, after[hay], i)).split()
                                              for i in ids]))

            def extra(r: dict, index: dict = index) -> list[tuple[str, float]]:
                ids, bm = index[r["hay"]]
                terms = [w for t in query_terms(r["q"]) for w in segment_for_index(t).split()]
                s = bm.get_scores(terms)
                return [(ids[j], float(s[j])) for j in np.argsort(-s)[:POOL] if s[j] > 0]
            for w in (0.1, 0.2, 0.3):
                print(f"  {name} {mode} × {w}: {summary(score(rows, after, replies, off, extra, w))}")


if __name__ == "__main__":
    main(sys.argv[1:])
