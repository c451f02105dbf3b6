"""Benchmark: pre-segmented text in a unicode61 FTS5 table vs an APSW-registered jieba tokenizer.

Run ``python benchmarks/fts_tokenizer.py [--memdaily DIR] [--locomo FILE] [--rows N] [--repeat N]``.
Prints a table and one JSON summary line (``{"benchmark": "fts_tokenizer", ...}``).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import apsw
import apsw.fts5
import attrs

from hlmem.adapters.text.fts_query import build_match
from hlmem.adapters.text.segment import query_terms, segment_for_index

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

DATASETS = Path("/work/shared/datasets")
DESIGN_A = "a_presegmented_unicode61"
DESIGN_B = "b_apsw_jieba_tokenizer"
PORTABLE_TOKENIZE = "unicode61 remove_diacritics 2"
SEARCH_SQL = "SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rank LIMIT 10"
# The shell query of the portability check: a term both datasets are unlikely to lack.
SHELL_SQL = "SELECT count(*) FROM fts WHERE fts MATCH '\"北京\" OR \"caroline\"';"

# Design (b) emits the parts unicode61 would make of an atom such as v1.2 (v1, 2), so both
# designs see the same tokens apart from porter stemming and diacritic folding.
_HAN_OR_WORD = re.compile(r"(?P<han>[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)|[^\W_]+")


@attrs.frozen
class Corpus:
    """Rows to index and queries to time, both in a fixed order."""

    rows: tuple[str, ...]
    queries: tuple[str, ...]


@attrs.frozen
class Result:
    """What one design measured."""

    design: str
    index_rows_per_s: float
    query_p50_ms: float
    query_p95_ms: float
    db_bytes: int
    plain_sqlite3_can_query: bool
    top10: tuple[tuple[int, ...], ...] = attrs.field(repr=False)


def _every(items: Sequence[str], count: int) -> list[str]:
    step = max(1, len(items) // count)
    return list(items[::step][:count])


def load_corpus(memdaily: Path, locomo: Path, rows: int, queries: int) -> Corpus:
    """Interleave Chinese MemDaily messages with English LoCoMo turns, deterministically."""
    zh_rows: list[str] = []
    zh_questions: list[str] = []
    for path in sorted(memdaily.glob("*.json")):
        for trace in json.loads(path.read_text(encoding="utf-8")):
            zh_rows += [message["message"] for message in trace["message_list"]]
            zh_questions += [question["question"] for question in trace.get("question_list", [])]
    en_rows: list[str] = []
    en_questions: list[str] = []
    for sample in json.loads(locomo.read_text(encoding="utf-8")):
        for key, session in sample["conversation"].items():
            if key.startswith("session_") and isinstance(session, list):
                en_rows += [turn["text"] for turn in session]
        en_questions += [qa["question"] for qa in sample["qa"]]
    english = en_rows[: rows // 5]
    chinese = zh_rows[: rows - len(english)]
    mixed = [text for pair in zip(chinese, english + [""] * len(chinese)) for text in pair if text]
    half = queries // 2
    picked = _every(zh_questions, half) + _every(en_questions, queries - half)
    return Corpus(tuple(mixed[:rows]), tuple(picked))


@apsw.fts5.StringTokenizer
def jieba_tokenizer(con: apsw.Connection, args: list[str]) -> apsw.Tokenizer:
    """Design (b): Han runs through jieba's search mode, other words lowercased, per row."""
    import jieba

    jieba.setLogLevel(logging.WARNING)
    cutter = jieba.Tokenizer()
    cutter.initialize()

    def tokenize(text: str, flags: int, locale: str | None) -> Iterator[tuple[int, int, str]]:
        for match in _HAN_OR_WORD.finditer(text):
            start = match.start()
            if match.group("han") is not None:
                for word, begin, end in cutter.tokenize(match.group(), mode="search"):
                    yield start + begin, start + end, word
            else:
                yield start, match.end(), unicodedata.normalize("NFKC", match.group()).lower()

    return tokenize


def _open(path: Path, tokenizer: bool) -> apsw.Connection:
    con = apsw.Connection(str(path))
    con.pragma("journal_mode", "wal")
    if tokenizer:
        # Per connection, never through apsw.connection_hooks: the library must not change
        # other code's connections.
        con.register_fts5_tokenizer("jieba_search", jieba_tokenizer)
    return con


def _index(con: apsw.Connection, tokenize: str, bodies: Callable[[], list[str]]) -> float:
    """Create the FTS5 table and return rows indexed per second, segmentation included."""
    con.execute(f"CREATE VIRTUAL TABLE fts USING fts5(body, tokenize='{tokenize}')")
    # Opening the table builds the tokenizer (design b loads jieba there): keep that out of the
    # timing, as the jieba load of design a is.
    con.execute("SELECT count(*) FROM fts WHERE fts MATCH '\"warm\"'").fetchall()
    started = time.perf_counter()
    texts = bodies()
    with con:
        con.executemany("INSERT INTO fts(rowid, body) VALUES (?, ?)", enumerate(texts, 1))
    return len(texts) / (time.perf_counter() - started)


def _query(con: apsw.Connection, queries: Sequence[str]) -> tuple[list[float], list[tuple[int, ...]]]:
    latencies: list[float] = []
    top10: list[tuple[int, ...]] = []
    for query in queries:
        started = time.perf_counter()
        expression = build_match(query_terms(query))
        rows = [] if expression is None else con.execute(SEARCH_SQL, (expression,)).fetchall()
        latencies.append((time.perf_counter() - started) * 1000)
        top10.append(tuple(row[0] for row in rows))
    return latencies, top10


def _shell_can_query(path: Path, expected: int) -> bool:
    """Whether the stock ``sqlite3`` shell, with no tokenizer of ours, finds the same rows."""
    shell = shutil.which("sqlite3")
    if shell is None:
        return False
    command = [shell, "-readonly", str(path), SHELL_SQL]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    return done.returncode == 0 and done.stdout.strip() == str(expected)


def run_design(design: str, corpus: Corpus, path: Path) -> Result:
    """Index the corpus with one design into a new file, then time the queries."""
    custom = design == DESIGN_B
    con = _open(path, tokenizer=custom)
    if custom:
        rate = _index(con, "jieba_search", lambda: list(corpus.rows))
    else:
        rate = _index(con, PORTABLE_TOKENIZE, lambda: [segment_for_index(t) for t in corpus.rows])
    # Both designs keep the original text for display; design a's FTS5 column holds tokens only.
    con.execute("CREATE TABLE claims(id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
    with con:
        con.executemany("INSERT INTO claims(id, text) VALUES (?, ?)", enumerate(corpus.rows, 1))
        con.execute("INSERT INTO fts(fts) VALUES ('optimize')")
    _query(con, corpus.queries)  # warm the page cache so both designs are timed alike
    latencies, top10 = _query(con, corpus.queries)
    shell_count = con.execute(SHELL_SQL).fetchall()[0][0]
    con.pragma("wal_checkpoint", "TRUNCATE")
    con.execute("VACUUM")
    con.close()
    return Result(
        design=design,
        index_rows_per_s=rate,
        query_p50_ms=statistics.median(latencies),
        query_p95_ms=statistics.quantiles(latencies, n=20)[18],
        db_bytes=path.stat().st_size,
        plain_sqlite3_can_query=_shell_can_query(path, shell_count),
        top10=tuple(top10),
    )


def _median_result(runs: Sequence[Result]) -> Result:
    # The machine is shared, so each figure is the median over repeats run alternately.
    return attrs.evolve(
        runs[0],
        index_rows_per_s=statistics.median(r.index_rows_per_s for r in runs),
        query_p50_ms=statistics.median(r.query_p50_ms for r in runs),
        query_p95_ms=statistics.median(r.query_p95_ms for r in runs),
    )


def _overlap(a: Sequence[tuple[int, ...]], b: Sequence[tuple[int, ...]]) -> float:
    scores = [len(set(x) & set(y)) / len(set(x) | set(y)) for x, y in zip(a, b) if x or y]
    return statistics.fmean(scores) if scores else 1.0


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Parse arguments, run both designs and print the table and the JSON summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memdaily", type=Path, default=DATASETS / "memsim_memdaily")
    parser.add_argument("--locomo", type=Path, default=DATASETS / "locomo" / "locomo_dev.json")
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    corpus = load_corpus(args.memdaily, args.locomo, args.rows, args.queries)
    started = time.perf_counter()
    segment_for_index("预热")  # jieba's dictionary load is a one-off; report it apart
    jieba_load_s = time.perf_counter() - started
    runs: dict[str, list[Result]] = {DESIGN_A: [], DESIGN_B: []}
    with tempfile.TemporaryDirectory() as tmp:
        for repeat in range(args.repeat):
            for design, done in runs.items():
                done.append(run_design(design, corpus, Path(tmp) / f"{design}-{repeat}.db"))
    results = [_median_result(done) for done in runs.values()]
    load = os.getloadavg()[0]
    print(
        f"rows={len(corpus.rows)} queries={len(corpus.queries)} repeats={args.repeat} "
        f"jieba_load_s={jieba_load_s:.2f} load_avg_1m={load:.2f}"
    )
    header = ("design", "index rows/s", "p50 ms", "p95 ms", "db MiB", "sqlite3 shell")
    print(f"{header[0]:<26} {header[1]:>12} {header[2]:>8} {header[3]:>8} {header[4]:>8} {header[5]:>13}")
    for r in results:
        print(
            f"{r.design:<26} {r.index_rows_per_s:>12,.0f} {r.query_p50_ms:>8.3f} {r.query_p95_ms:>8.3f} "
            f"{r.db_bytes / 2**20:>8.2f} {'yes' if r.plain_sqlite3_can_query else 'no':>13}"
        )
    summary: dict[str, Any] = {
        "benchmark": "fts_tokenizer",
        "rows": len(corpus.rows),
        "queries": len(corpus.queries),
        "repeats": args.repeat,
        "jieba_load_s": round(jieba_load_s, 3),
        "load_avg_1m": round(load, 2),
        "top10_jaccard_a_vs_b": round(_overlap(results[0].top10, results[1].top10), 3),
        "designs": {
            r.design: {
                "index_rows_per_s": round(r.index_rows_per_s),
                "query_p50_ms": round(r.query_p50_ms, 3),
                "query_p95_ms": round(r.query_p95_ms, 3),
                "db_bytes": r.db_bytes,
                "plain_sqlite3_can_query": r.plain_sqlite3_can_query,
            }
            for r in results
        },
    }
    print(json.dumps(summary, ensure_ascii=False))
    return summary


if __name__ == "__main__":
    main()
