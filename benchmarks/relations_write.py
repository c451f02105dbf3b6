"""What relations cost on the write path (ADR 0081): ``write_batch`` with ``[relations] enabled`` off
and on, alternating in one process, on a people-heavy workload where three claims in four state an
edge (``user·friend·P``, ``P·employer·O``, ``P·lives_in·C``) and a second pass supersedes every
employer (each superseded claim retires its edge when relations are on; when off, only the guard's
lookup runs).

    python benchmarks/relations_write.py --n 4000 --rounds 3 --store-dir /tmp/hlmem_bench_relations
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from _common import fresh, machine_facts, print_table, warm_text_segmenter

from hlmem import Memory
from hlmem.adapters.settings import Settings
from hlmem.domain.commands import AssertClaim


def claims(n: int, employer_round: int = 0) -> list[AssertClaim]:
    out = []
    for i in range(n // 4):
        person = f"Person{i:05d}"
        out += [AssertClaim(subject="user", predicate="friend", value=person),
                AssertClaim(subject=person, predicate="employer", value=f"Org{(i + employer_round) % 97:03d}"),
                AssertClaim(subject=person, predicate="lives_in", value=f"City{i % 31:02d}"),
                AssertClaim(subject="user", predicate="likes", value=f"thing {i}")]
    return out


def run(enabled: bool, n: int, batch: int, store: Path) -> dict:
    settings = Settings.from_mapping({"relations": {"enabled": enabled}})
    with Memory(fresh(store), embedder="none", settings=settings, synchronous="NORMAL") as mem:
        writes = mem._container.writes()
        out = {"relations": "on" if enabled else "off", "n": n}
        for phase, items in (("assert", claims(n)), ("supersede", claims(n, 1)[1::4])):
            load = os.getloadavg()[0]
            start, cpu = time.perf_counter(), time.process_time()
            for i in range(0, len(items), batch):
                writes.write_batch([(c, None) for c in items[i:i + batch]])
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
            out[f"{phase}_per_s"] = round(len(items) / seconds)
            out[f"{phase}_per_cpu_s"] = round(len(items) / cpu)
            out[f"{phase}_load"] = round(load, 1)
        out["edges"] = sum(mem.relations.counts().values())
        out["retired"] = mem.relations.counts().get("retired", 0)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=4000)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--store-dir", type=Path, default=Path("/tmp/hlmem_bench_relations"))
    args = parser.parse_args()
    print(machine_facts())
    warm_text_segmenter()
    rows = []
    for r in range(args.rounds):
        for enabled in ((False, True) if r % 2 == 0 else (True, False)):
            rows.append(run(enabled, args.n, args.batch, args.store_dir / "relations.db"))
    print_table("write_batch with relations off and on (alternating)", rows, ("relations", "n", "assert_per_s", "assert_per_cpu_s", "assert_load", "supersede_per_s",
                       "supersede_per_cpu_s", "supersede_load", "edges", "retired"))
    print(machine_facts())


if __name__ == "__main__":
    main()
