"""Relations on PostgreSQL through ``Memory`` (layout 6, ADR 0081): proposed, reviewed, retired and
forgotten like on SQLite, replayed into SQLite equal; and a layout-5 store is upgraded in place."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from hlmem import Memory
from hlmem.adapters.settings import Settings

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
ON = Settings.from_mapping({"relations": {"enabled": True}})


def test_relations_on_postgres_follow_their_evidence_and_replay_into_sqlite(postgres_url: str, tmp_path) -> None:
    pytest.importorskip("psycopg")
    with Memory(postgres_url, embedder="none", now=T0, settings=ON) as mem:
        said = mem.add("My coworker Tom works at Acme.").id
        edges = {r.relation: r for r in mem.relations.list()}
        assert set(edges) == {"colleague", "works_at"}
        mem.relations.accept(edges["works_at"].relation_id)
    with Memory(postgres_url, embedder="none", now=T0 + timedelta(days=1), settings=ON) as mem:
        mem.add("Tom works at Globex now.")
        assert mem.relations.get(edges["works_at"].relation_id).relation.status == "retired"
        mem.forget(said)
        gone = mem.relations.get(edges["colleague"].relation_id).relation
        assert (gone.status, gone.target_name) == ("forgotten", "")
        report = mem.replay(into=str(tmp_path / "copy.db"))
        assert report.equal, report.differences
    with Memory(tmp_path / "copy.db", embedder="none") as copy:
        assert copy.relations.get(edges["colleague"].relation_id).relation.status == "forgotten"


def test_a_layout_5_store_is_upgraded_with_the_relation_tables(postgres_url: str) -> None:
    psycopg = pytest.importorskip("psycopg")
    from hlmem.adapters.postgres.schema import SCHEMA_VERSION

    with Memory(postgres_url, embedder="none", settings=Settings()) as mem:
        mem.add("I like tea", extract=False)
    with psycopg.connect(postgres_url, autocommit=True) as con:  # back to layout 5: no relation tables
        con.execute("DROP TABLE relations, relation_evidence")
        con.execute("UPDATE meta SET value = '5' WHERE key = 'pg_schema'")
    with Memory(postgres_url, embedder="none", settings=ON) as mem:
        assert mem.storage.meta("pg_schema") == SCHEMA_VERSION == "7"
        mem.add("My sister Anna lives in Berlin.")
        assert {r.relation for r in mem.relations.list()} == {"sibling", "lives_in"}
