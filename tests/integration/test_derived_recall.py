"""Derived items in recall end to end (ADR 0084): a profile question gets the model first on SQLite
with vectors, forget takes its text out of every index byte for byte, replay rebuilds the index the
same way, and stores written before (SQLite migration 0023, PostgreSQL layout 6) get their current
items indexed when opened."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from hlmem import Memory
from hlmem.adapters.embedders.cached import content_hash
from hlmem.adapters.sqlite.connection import open_connection
from hlmem.application.indexing import derived_text

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
SECRET = "zanzibar-violet-77"


def _files_holding(db: Path, needle: str) -> list[str]:
    return [f.name for f in sorted(db.parent.glob(db.name + "*"))
            if needle.encode() in f.read_bytes() or json.dumps(needle)[1:-1].encode() in f.read_bytes()]


def _derived_rows(mem: Memory) -> set[str]:
    return {i for i, kind in mem.storage.items() if kind == "derived"}


def test_a_profile_is_recalled_with_vectors_and_forget_takes_it_out_of_every_index(tmp_path) -> None:
    db = tmp_path / "m.db"
    with Memory(db, embedder="hash", now=T0) as mem:
        for i in range(30):  # survivors share the pages
            mem.remember(f"filler{i}", "likes", f"tea {i}")
        secret = mem.remember("Alice", "likes", SECRET).id
        mem.remember("Alice", "likes", "zither")
        mem.remember("Alice", "employer", "Acme")
        mem.derive(subject="Alice")
        model = mem.mental_model("Alice").item.derived_id
        first = mem.recall("what do you know about Alice?").items[0]
        assert first.id == model and secret in first.evidence and SECRET in first.text
        assert model in _derived_rows(mem) and mem.stats()["vectors"] >= 33 + 2
        assert mem.explain(model).derived.item.derived_id == model
        texts = [derived_text(d.item.kind, d.item.subject, d.item.label, d.item.text)
                 for d in mem._container.derived().items(subject="Alice")]
        model_id = mem.storage.vector_model()[0]
        hashes = [content_hash(t) for t in texts]
        assert len(mem.storage.embedding_cache.get_many(model_id, hashes)) == len(texts) == 2
        mem.forget(secret)
        assert _files_holding(db, SECRET) == []
        assert mem.storage.embedding_cache.get_many(model_id, hashes) == {}  # their vectors went too
        result = mem.recall("what do you know about Alice?")
        assert all(SECRET not in i.text for i in result.items) and model not in {i.id for i in result.items}
        assert any("stale item(s) about 'Alice'" in n for n in result.notes)
        assert model not in _derived_rows(mem)
        mem.run_worker(once=True)  # the derive job rebuilds it from what is left
        again = mem.recall("what do you know about Alice?").items[0]
        assert again.id == model and "zither" in again.text and secret not in again.evidence
        assert mem.replay().equal


def test_migration_0023_indexes_the_current_items_of_an_older_store(tmp_path) -> None:
    db = tmp_path / "old.db"
    with Memory(db, embedder="none", now=T0) as mem:
        mem.remember("Bob", "likes", "jazz")
        mem.remember("Bob", "likes", "cycling")
        mem.derive()
        mem.remember("小明", "lives_in", "上海")
        mem.remember("小明", "likes", "茶")
        mem.derive()
        mem.remember("小明", "lives_in", "北京")  # 小明's model goes stale: it stays out
        indexed = _derived_rows(mem)
        current = {d.item.derived_id for d in mem._container.derived().items() if d.item.status == "current"}
        assert indexed == current and len(current) == 2
    con = open_connection(str(db))  # back to before 0023: no derived rows, the migration not applied
    con.execute("DROP TABLE derived_vocab")
    con.execute("DROP TABLE derived_fts")
    con.execute("DELETE FROM items WHERE kind = 'derived'")
    con.execute("DELETE FROM _migrations WHERE name = '0023_derived_index'")
    con.close()
    with Memory(db, embedder="none", now=T0) as mem:
        assert _derived_rows(mem) == current
        assert mem.recall("what do you know about Bob?").items[0].kind == "mental_model"
        assert mem.replay().equal


def test_a_layout_6_postgres_store_gets_its_current_items_indexed(postgres_url: str) -> None:
    psycopg = pytest.importorskip("psycopg")
    from hlmem.adapters.postgres.schema import SCHEMA_VERSION

    with Memory(postgres_url, embedder="none", now=T0) as mem:
        mem.remember("Bob", "likes", "jazz")
        mem.remember("Bob", "likes", "cycling")
        mem.derive()
        current = _derived_rows(mem)
        assert len(current) == 2
    with psycopg.connect(postgres_url, autocommit=True) as con:  # back to layout 6: derived items unindexed
        from hlmem.adapters.postgres import postings

        rows = con.execute("DELETE FROM items WHERE kind = 'derived' RETURNING item_key, namespace, tokens").fetchall()
        counts = postings.TextCounts()
        postings.remove(con, [(k, ns, t.split(" ") if t else []) for k, ns, t in rows], counts)
        postings.apply(con, counts)
        con.execute("UPDATE meta SET value = '6' WHERE key = 'pg_schema'")
    with Memory(postgres_url, embedder="none", now=T0) as mem:
        assert mem.storage.meta("pg_schema") == SCHEMA_VERSION == "7"
        assert _derived_rows(mem) == current
        assert mem.recall("what do you know about Bob?").items[0].kind == "mental_model"
