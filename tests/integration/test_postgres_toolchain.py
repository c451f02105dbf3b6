"""The PostgreSQL toolchain the adapter of issue 18 builds on (docs/postgres.md, ADR 0047).

These run against a real server (tests/support/postgres.py): pgvector with an HNSW index and exact
rescoring, and full text as a 'simple' tsvector over hlmem's own jieba pre-segmentation with GIN.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from hlmem.adapters.text.segment import query_terms, segment_for_index

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support.postgres import postgres_admin_url, postgres_url  # noqa: E402, F401 - fixtures

psycopg = pytest.importorskip("psycopg", reason="psycopg 3 is not installed (pip install -e '.[test]')")


def _literal(vector: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.7g}" for x in vector) + "]"


def test_a_store_left_open_with_rows_and_statistics(postgres_url: str) -> None:
    """Leaves what an ordinary test leaves: a store still open, events, an identity, a claim, and
    the planner's statistics; the next test of this worker must see none of it."""
    from hlmem import Memory

    mem = Memory(postgres_url, embedder="hash")
    mem.add("我住在杭州。")
    mem.remember("Alice", "works_in", "Boston")
    with psycopg.connect(postgres_url, autocommit=True) as con:
        con.execute("ANALYZE")
    # not closed: the fixture ends its connections before emptying the database


def test_each_test_gets_a_fresh_database_with_pgvector(postgres_url: str) -> None:
    with psycopg.connect(postgres_url) as con:
        assert con.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
        # The template holds hlmem's schema (so a store opens at once) and no rows, not even an identity.
        assert con.execute("SELECT count(*) FROM events").fetchone() == (0,)
        assert con.execute("SELECT count(*) FROM meta WHERE key IN ('store_id', 'tombstone_salt')").fetchone() == (0,)
        holding = [t for (t,) in con.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'").fetchall()
                 if t != "meta" and con.execute(f'SELECT EXISTS (SELECT 1 FROM "{t}")').fetchone() != (False,)]
        assert holding == []
        assert con.execute("SELECT count(*) FROM pg_statistic s JOIN pg_class c ON c.oid = s.starelid"
                           " WHERE c.relnamespace = 'public'::regnamespace").fetchone() == (0,)
        con.execute("CREATE TABLE leftover (x int)")


def test_the_database_of_another_test_is_gone(postgres_url: str) -> None:
    with psycopg.connect(postgres_url) as con:
        assert con.execute("SELECT to_regclass('public.leftover')").fetchone() == (None,)


def test_hnsw_first_stage_then_exact_rescoring_finds_the_true_neighbours(postgres_url: str) -> None:
    rng = np.random.default_rng(18)
    vectors = rng.standard_normal((400, 32)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    query = vectors[7] + 0.05 * rng.standard_normal(32).astype(np.float32)
    exact = np.argsort(-(vectors @ query), kind="stable")[:5].tolist()
    with psycopg.connect(postgres_url) as con:
        con.execute("CREATE TABLE v (id int PRIMARY KEY, vec vector(32) NOT NULL)")
        with con.cursor() as cur:
            cur.executemany("INSERT INTO v VALUES (%s, %s::vector)",
                            [(i, _literal(row)) for i, row in enumerate(vectors)])
        con.execute("CREATE INDEX ON v USING hnsw (vec vector_cosine_ops)")
        con.execute("SET enable_seqscan = off")
        plan = "\n".join(r[0] for r in con.execute(
            "EXPLAIN SELECT id FROM v ORDER BY vec <=> %s::vector LIMIT 40", (_literal(query),)))
        assert "hnsw" in plan.lower() or "v_vec_idx" in plan
        # First stage: 40 approximate candidates by the index; second: their exact scores in numpy.
        candidates = [r[0] for r in con.execute(
            "SELECT id FROM v ORDER BY vec <=> %s::vector LIMIT 40", (_literal(query),))]
    rescored = sorted(candidates, key=lambda i: (-float(vectors[i] @ query), i))[:5]
    assert rescored == exact


def test_jieba_segmented_text_is_found_through_a_simple_tsvector_and_gin(postgres_url: str) -> None:
    notes = {1: "我下周三去北京出差，住在朝阳区", 2: "她喜欢喝乌龙茶", 3: "Upgraded Python to 3.11.7 today"}
    with psycopg.connect(postgres_url) as con:
        con.execute("CREATE TABLE notes (id int PRIMARY KEY, body tsvector NOT NULL)")
        con.execute("CREATE INDEX ON notes USING gin (body)")
        for key, text in notes.items():
            con.execute("INSERT INTO notes VALUES (%s, to_tsvector('simple', %s))", (key, segment_for_index(text)))

        def found(question: str) -> list[int]:
            terms = [t for t in query_terms(question) if t.strip()]
            query = " | ".join("'" + t.replace("'", "''") + "'" for t in terms)
            return [r[0] for r in con.execute(
                "SELECT id FROM notes WHERE body @@ to_tsquery('simple', %s) ORDER BY id", (query,))]

        assert found("北京") == [1]
        assert found("乌龙茶") == [2]
        assert found("python") == [3]
        assert found("上海") == []
