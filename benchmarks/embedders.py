"""Throughput of the built-in embedders on short mixed Chinese/English sentences (ADR 0006).

``--batches 1,8,32`` also times the passages handed over that many per call (texts/s by batch
size: what one write, an ``events:batch`` and a worker window of owed vectors cost; ADR 0080).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hlmem.adapters.embedders.select import BUILTIN, make_embedder
from hlmem.application.errors import EmbedderError

DATASETS = Path("/work/shared/datasets")
DEFAULT_LOCOMO = DATASETS / "locomo" / "locomo_dev.json"
DEFAULT_MEMDAILY = DATASETS / "memsim_memdaily" / "01_simple_roles.json"
MAX_CHARS = 200


def _spread(items: list[str], count: int) -> list[str]:
    """``count`` items taken evenly across ``items`` (deterministic, no randomness)."""
    if len(items) <= count:
        return items
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]


def load_texts(locomo: Path, memdaily: Path, count: int) -> list[str]:
    """Half English LoCoMo dialogue turns, half Chinese MemDaily messages, interleaved."""
    english = [
        turn["text"]
        for sample in json.loads(locomo.read_text(encoding="utf-8"))
        for key, session in sample["conversation"].items()
        if key.startswith("session_") and isinstance(session, list)
        for turn in session
        if 0 < len(turn.get("text", "")) <= MAX_CHARS
    ]
    chinese = [
        message["message"]
        for trajectory in json.loads(memdaily.read_text(encoding="utf-8"))
        for message in trajectory["message_list"]
        if 0 < len(message["message"]) <= MAX_CHARS
    ]
    half = count // 2
    pairs = zip(_spread(english, count - half), _spread(chinese, half), strict=False)
    return [text for pair in pairs for text in pair]


def measure(name: str, texts: Sequence[str], repeats: int, queries: int) -> dict[str, Any]:
    """Load time, best-of-``repeats`` passage throughput and median single-query latency."""
    embedder = make_embedder(name)
    try:
        start = time.perf_counter()
        embedder.embed_passages(texts[:1])
        load_s = time.perf_counter() - start
    except EmbedderError as exc:
        return {"name": name, "error": str(exc)}
    # Wall and CPU seconds per pass. On a shared host wall time swings with other load; CPU time
    # (all threads of this process) is steadier, though spin-waiting threads inflate it.
    runs: list[tuple[float, float]] = []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        embedder.embed_passages(texts)
        runs.append((time.perf_counter() - wall, time.process_time() - cpu))
    best_wall, best_cpu = min(runs)
    latencies = []
    for text in texts[:queries]:
        start = time.perf_counter()
        embedder.embed_queries([text])
        latencies.append(time.perf_counter() - start)
    return {
        "name": name,
        "model_id": embedder.model_id,
        "dim": embedder.dim,
        "first_call_s": round(load_s, 3),
        "texts_per_s": round(len(texts) / best_wall, 1),
        "texts_per_s_worst": round(len(texts) / max(wall for wall, _ in runs), 1),
        "texts_per_cpu_s": round(len(texts) / max(best_cpu, 1e-9), 1),
        "query_ms_median": round(statistics.median(latencies) * 1000, 2),
    }


def batch_rates(name: str, texts: Sequence[str], sizes: Sequence[int]) -> dict[str, Any]:
    """Passages per second (wall and CPU) when ``texts`` go to the embedder ``size`` per call."""
    embedder = make_embedder(name)
    try:
        embedder.embed_passages(texts[:1])  # load the model first
    except EmbedderError as exc:
        return {"name": name, "error": str(exc)}
    out: dict[str, Any] = {"name": name, "model_id": embedder.model_id}
    for size in sizes:
        wall, cpu = time.perf_counter(), time.process_time()
        for start in range(0, len(texts), size):
            embedder.embed_passages(texts[start:start + size])
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        out[f"batch_{size}"] = {"texts_per_s": round(len(texts) / wall, 1),
                                "texts_per_cpu_s": round(len(texts) / max(cpu, 1e-9), 1),
                                "ms_per_call": round(wall / -(-len(texts) // size) * 1000, 1)}
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--memdaily", type=Path, default=DEFAULT_MEMDAILY)
    parser.add_argument("--count", type=int, default=500, help="texts to embed")
    parser.add_argument("--repeats", type=int, default=3, help="timed passes; the best is kept")
    parser.add_argument("--queries", type=int, default=30, help="single-query latency samples")
    parser.add_argument("--embedders", default=",".join(BUILTIN), help="comma-separated names")
    parser.add_argument("--batches", default="", help="also time passages per call in these sizes (1,8,32)")
    args = parser.parse_args(argv)

    texts = load_texts(args.locomo, args.memdaily, args.count)
    if args.batches:
        sizes = [int(n) for n in args.batches.split(",") if n.strip()]
        rates = [batch_rates(name, texts, sizes) for name in args.embedders.split(",")]
        for r in rates:
            print(r["name"], ", ".join(f"batch {k.removeprefix('batch_')}: {v['texts_per_s']} texts/s "
                                       f"({v['texts_per_cpu_s']}/cpu-s, {v['ms_per_call']} ms a call)"
                                       for k, v in r.items() if k.startswith("batch_")) or r.get("error"))
        print(json.dumps({"benchmark": "embedder_batches", "texts": len(texts), "cpus": os.cpu_count(),
                          "loadavg_1m": round(os.getloadavg()[0], 2),
                          "threads_env": {k: v for k, v in os.environ.items() if k.endswith("_NUM_THREADS")},
                          "results": rates}, ensure_ascii=False))
        return
    results = [
        measure(name, texts, args.repeats, args.queries) for name in args.embedders.split(",")
    ]
    print(f"{len(texts)} texts, mean {statistics.mean(map(len, texts)):.0f} chars")
    header = f"{'embedder':<40} {'dim':>4} {'first call s':>12} {'texts/s':>9} {'/cpu-s':>9}"
    print(f"{header} {'query ms':>9}")
    for r in results:
        if "error" in r:
            print(f"{r['name']:<40} unavailable: {r['error']}")
            continue
        print(
            f"{r['model_id']:<40} {r['dim']:>4} {r['first_call_s']:>12.2f} "
            f"{r['texts_per_s']:>9.1f} {r['texts_per_cpu_s']:>9.1f} {r['query_ms_median']:>9.2f}"
        )
    summary = {
        "benchmark": "embedders",
        "texts": len(texts),
        "cpus": os.cpu_count(),
        "machine": platform.machine(),
        "loadavg_1m": round(os.getloadavg()[0], 2),
        "threads_env": {k: v for k, v in os.environ.items() if k.endswith("_NUM_THREADS")},
        "results": results,
    }
    print(json.dumps(summary, ensure_ascii=False))


if __name__ == "__main__":
    main()
