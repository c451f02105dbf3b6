"""How long migration 0017 (English stems in full text, ADR 0058) takes on an older SQLite store.

Builds a store the way hlmem wrote them before the stems (LoCoMo's turns, repeated and numbered
up to ``--items`` events, no vectors), marks 0017 as not applied, and times the open that
migrates it. Also prints the full-text size before and after. Usage::

    python benchmarks/migrate_stems.py [--items 100000] [--locomo PATH] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import emit, fresh, machine_facts, print_table  # noqa: E402

DEFAULT_LOCOMO = ROOT.parent / "shared" / "datasets" / "locomo" / "locomo_dev.json"


def turns(path: Path) -> list[str]:
    """Every LoCoMo turn's text, in order."""
    out = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        conv = sample["conversation"]
        for key in sorted(k for k in conv if k.startswith("session_") and isinstance(conv[k], list)):
            out += [f"{t['speaker']}: {t['text']}" for t in conv[key]]
    return out


def tokens(path: Path) -> int:
    from hlmem.adapters.sqlite.connection import open_connection

    con = open_connection(str(path))
    try:
        return sum(len(body.split()) for (body,) in con.execute("SELECT body FROM items_fts"))
    finally:
        con.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--out", type=Path, default=Path("/tmp/hlmem-migrate-stems"))
    args = parser.parse_args(argv)
    from hlmem import Memory
    from hlmem.adapters.sqlite.connection import open_connection
    from hlmem.adapters.text import segment

    texts = turns(args.locomo)
    path = fresh(args.out / "old.db")
    stem = segment.english_stem
    segment.english_stem = lambda token: None  # write as hlmem did before ADR 0058: words only
    start = time.perf_counter()
    try:
        with Memory(path, embedder="none") as mem:
            for first in range(0, args.items, 5_000):
                mem.add_many([{"text": f"{texts[n % len(texts)]} #{n}", "session": f"s{n // 20}"}
                              for n in range(first, min(args.items, first + 5_000))], extract=False)
    finally:
        segment.english_stem = stem
        segment.clear_stem_caches()  # what was indexed without the stemmer must not answer for it now
    built = time.perf_counter() - start
    before = tokens(path)
    con = open_connection(str(path))
    con.execute("DELETE FROM _migrations WHERE name = '0017_english_stems'")
    con.close()
    start = time.perf_counter()
    with Memory(path, embedder="none"):
        pass
    migrated = time.perf_counter() - start
    after = tokens(path)
    row = {"items": args.items, "build_s": round(built, 1), "migrate_s": round(migrated, 2),
           "fts_tokens_before": before, "fts_tokens_after": after, "growth": round(after / before, 3)}
    print_table("migration 0017_english_stems (SQLite)", [row], list(row))
    emit({"benchmark": "migrate_stems", "machine": machine_facts(), "result": row})
    return 0


if __name__ == "__main__":
    sys.exit(main())
