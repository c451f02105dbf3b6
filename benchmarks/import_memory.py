"""Peak memory of ``hlmem import`` per 100 MB of JSONL (issue 33 item 5; docs/benchmarks/forgetting-and-maintenance.md).

Each size gets one synthetic file (kept in the work folder): Chinese and English observations of
about 1.5 KB, each with a file-local ``id``, and after every third one a claim citing it (so the
import keeps file-local ids, as a real history with evidence does). Every phase runs ``hlmem`` in
a fresh process, and its peak resident memory is that process's ``ru_maxrss`` (``os.wait4``):

- ``floor``: ``hlmem add`` of one turn to an empty store (Python, numpy, jieba's dictionary and
  SQLite's caches: what any write costs, whatever it writes);
- ``check``: the file with one bad line at its end, refused: the first pass alone, every line
  parsed, validated and screened, nothing written;
- ``import``: the whole file into a fresh store (``--embedder none``: the figures are the
  import's, not an embedding model's), every line written.

    python benchmarks/import_memory.py                        # 100 and 200 MB
    python benchmarks/import_memory.py --sizes 10 --phases floor,check
    python benchmarks/import_memory.py --hlmem /path/to/other/bin/hlmem   # another installation (before/after)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from _common import emit, machine_facts, print_table

WORK = Path("/tmp/hlmem_bench_import")
COLUMNS = ("phase", "file_mb", "lines", "written", "seconds", "peak_rss_mib", "peak_anon_mib", "anon_over_floor_mib",
           "anon_mib_per_100mb")
CITIES = ["杭州", "北京", "上海", "深圳", "Seattle", "Boston", "Berlin", "Lisbon"]


def make_file(path: Path, megabytes: int) -> int:
    """Write about ``megabytes`` MB of JSONL (once; kept); return its line count."""
    if path.exists():
        with open(path, "rb") as f:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
    target = megabytes * 1_000_000
    written = lines = n = 0
    tmp = path.with_suffix(".part")
    with open(tmp, "w", encoding="utf-8") as f:
        while written < target:
            city = CITIES[n % len(CITIES)]
            text = (f"第{n}次记录：我们在{city}讨论了项目进度，下周二再开会。" * 12
                    + f" Note {n}: we met in {city} about the roadmap; next review on Tuesday." * 6)
            rows = [{"type": "observation", "text": text, "session": f"s{n // 50}", "id": f"o{n}",
                     "occurred_at": "2026-03-01T09:00:00Z"}]
            if n % 3 == 0:
                rows.append({"type": "claim", "subject": f"project{n % 997}", "predicate": "located_in",
                             "value": city, "evidence": [f"o{n}"], "valid_from": "2026-03-01T00:00:00Z"})
            for row in rows:
                line = json.dumps(row, ensure_ascii=False) + "\n"
                f.write(line)
                written += len(line.encode())
                lines += 1
            n += 1
    tmp.rename(path)
    return lines


def _anon_kib(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float, str]:
    """Run ``cmd``; return (seconds, peak RSS in MiB, peak anonymous RSS in MiB, standard output).

    The peak RSS (``ru_maxrss``) counts the store's pages SQLite maps (``mmap_size``: clean,
    file-backed, given back under pressure); the anonymous part (``RssAnon`` of
    ``/proc/PID/status``, sampled every 20 ms) is the memory the process itself holds.
    """
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, env=env)
    peak_anon = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak_anon[0] = max(peak_anon[0], _anon_kib(proc.pid) or 0)
            done.wait(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out = proc.stdout.read().decode() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    done.set()
    sampler.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - started, usage.ru_maxrss / 1024, peak_anon[0] / 1024, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100,200", help="file sizes in MB, comma-separated")
    parser.add_argument("--phases", default="floor,check,import")
    parser.add_argument("--hlmem", default=shutil.which("hlmem") or "hlmem", help="the hlmem to run")
    parser.add_argument("--work", type=Path, default=WORK)
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    phases = args.phases.split(",")
    empty_config = args.work / "hlmem.toml"  # no user config file gets in the way
    empty_config.write_text("")
    env = {**os.environ, "HLMEM_EMBEDDER": "none", "HLMEM_CONFIG": str(empty_config)}
    rows: list[dict] = []
    floor = None
    if "floor" in phases:
        db = args.work / "floor.db"
        db.unlink(missing_ok=True)
        seconds, rss, floor, _ = run([args.hlmem, "--db", str(db), "add", "第一条记录：我们在杭州讨论了项目进度。",
                                      "--no-extract"], env)
        rows.append({"phase": "floor", "seconds": round(seconds, 1), "peak_rss_mib": round(rss, 1),
                     "peak_anon_mib": round(floor, 1)})
    for size in (int(s) for s in args.sizes.split(",")):
        data = args.work / f"import-{size}mb.jsonl"
        lines = make_file(data, size)
        mb = data.stat().st_size / 1_000_000
        for phase in [p for p in phases if p in ("check", "import")]:
            db = args.work / f"{phase}-{size}.db"
            for suffix in ("", "-wal", "-shm"):
                Path(f"{db}{suffix}").unlink(missing_ok=True)
            source = data
            if phase == "check":
                source = args.work / f"import-{size}mb-bad.jsonl"
                if not source.exists():
                    shutil.copyfile(data, source)
                    with open(source, "a", encoding="utf-8") as f:
                        f.write('{"type": "observation", "text": ""}\n')
            seconds, rss, anon, out = run([args.hlmem, "--db", str(db), "import", str(source), "--json"], env)
            report = json.loads(out) if out.strip().startswith("{") else {}
            over = anon - floor if floor is not None else None
            rows.append({"phase": phase, "file_mb": round(mb, 1), "lines": lines, "written": report.get("written"),
                         "seconds": round(seconds, 1), "peak_rss_mib": round(rss, 1), "peak_anon_mib": round(anon, 1),
                         "anon_over_floor_mib": None if over is None else round(over, 1),
                         "anon_mib_per_100mb": None if over is None else round(over / mb * 100, 1)})
            print(f"{phase} {size} MB: {rows[-1]}", file=sys.stderr, flush=True)
    print_table("hlmem import: peak resident memory", rows, COLUMNS)
    emit({"benchmark": "import_memory", "hlmem": args.hlmem, "machine": machine_facts(), "rows": rows})


if __name__ == "__main__":
    main()
