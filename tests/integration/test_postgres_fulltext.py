"""PostgreSQL full text from posting-list heads (ADR 0051): equal to the in-memory store's BM25,
phrase lists for word expansions, nothing of a forgotten item left, and the layout-1 upgrade."""

from __future__ import annotations

import psycopg
import pytest
from attrs import evolve
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hlmem.adapters.inmemory.store import InMemoryStorage
from hlmem.adapters.memory_api import Memory
from hlmem.adapters.postgres import postings, projection, search
from hlmem.adapters.postgres.schema import SCHEMA_VERSION
from hlmem.adapters.postgres.store import PostgresStorage
from hlmem.application.ports import IndexEntry
from hlmem.domain.errors import SchemaError

from support.store_events import obs_event

#: Words whose search-mode expansion is a phrase (居住地 -> 居住 住地 居住地), their parts, the
#: parts in other orders (a phrase's tokens present but not as the phrase), and plain words.
WORDS = ["居住地", "居住", "住地", "工作城市", "工作", "城市", "自行车", "自行", "行车", "中华人民共和国", "人民",
         "共和国", "北京", "dark", "mode", "acme-corp", "acme", "corp", "v3.11.7", "3", "11", "7", "a",
         "camping", "camped", "camp", "e-mails"]  # English stems are indexed after the words (ADR 0058)
texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)


def test_phrase_keys_find_every_occurrence_of_a_word_expansion() -> None:
    tokens = search.tokens_of("居住地 在 居住 住地 居住地")
    assert search.phrase_keys(tokens) == {"居住 住地 居住地": 2}
    assert search.list_key(["居住", "住地", "居住地"]) == "居住 住地 居住地"
    assert search.list_key(["acme", "corp"]) is None  # a unicode61 split, not a word expansion
    assert search.list_key(["dark"]) == "dark"


def test_text_candidates_equal_the_in_memory_store(postgres_url: str) -> None:
    memory, pg = InMemoryStorage(), PostgresStorage(postgres_url)
    fresh = iter(range(10**9))

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(st.lists(texts, min_size=1, max_size=25), texts, st.integers(1, 12), st.data())
    def check(docs: list[str], query: str, limit: int, data: st.DataObject) -> None:
        ns = f"n{next(fresh)}"
        events = [evolve(obs_event(i, text=d, namespace=ns, stream=f"ev_{ns}_{i}"), event_id=f"lg_{ns}_{i}")
                  for i, d in enumerate(docs)]
        index = {e.stream_id: IndexEntry(e.text) for e in events}
        memory.append(events, index)
        pg.append(events, index)
        assert pg.text_candidates(ns, query, limit) == memory.text_candidates(ns, query, limit)
        gone = data.draw(st.sets(st.sampled_from([e.stream_id for e in events])), label="dropped")
        if gone:  # items leave the index (as a forget drops them): counts and lists follow
            with pg.db.transaction():
                counts = postings.TextCounts()
                projection._index(pg._con, {}, set(gone), counts)
                postings.apply(pg._con, counts)
            kept = [e for e in events if e.stream_id not in gone]
            other = InMemoryStorage()
            other.append(kept, {e.stream_id: IndexEntry(e.text) for e in kept})
            assert pg.text_candidates(ns, query, limit) == other.text_candidates(ns, query, limit)

    try:
        check()
    finally:
        pg.close()


def _search_tables(url: str) -> dict[str, list]:
    with psycopg.connect(url) as con:
        return {table: sorted(con.execute(f"SELECT * FROM {table}").fetchall())
                for table in ("postings", "term_df", "text_totals")}


def test_forget_leaves_no_token_of_the_item_in_the_lists(postgres_url: str) -> None:
    with Memory(postgres_url, embedder="hash") as mem:
        mem.add("keep this note about 北京", extract=False)
        added = mem.add("zqxwv 居住地 ploughshare", extract=False)
        mem.forget(added.id)
        assert not mem.recall("zqxwv").items
    tables = _search_tables(postgres_url)
    flat = repr(tables)
    for word in ("zqxwv", "ploughshare", "居住地", "住地"):
        assert word not in flat
    assert "北京" in flat
    assert [(ns, docs) for ns, docs, _tokens in tables["text_totals"]] == [("default", 1)]


def test_a_layout_1_store_is_upgraded_and_ranks_as_before(postgres_url: str) -> None:
    queries = ["居住地", "北京 工作城市", "acme-corp v3.11.7", "dark mode", "人民"]
    texts = {}
    with Memory(postgres_url, embedder="hash") as mem:
        for n, text in enumerate(["我的居住地是北京", "工作城市 北京 dark mode", "acme-corp ships v3.11.7",
                                  "中华人民共和国 人民", "居住 住地 不是 居住地"]):
            texts[mem.add(f"{text} #{n}", extract=False).id] = f"{text} #{n}"
        before = {q: mem.storage.text_candidates("default", q, 10) for q in queries}
    tables = _search_tables(postgres_url)
    with psycopg.connect(postgres_url, autocommit=True) as con:  # back to layout 1's shape
        _without_stems(con, texts)
        con.execute("DROP TABLE postings, term_df, text_totals")
        con.execute("ALTER TABLE items ADD COLUMN tsv tsvector NOT NULL DEFAULT ''")
        con.execute("CREATE INDEX items_tsv ON items USING gin (tsv)")
        con.execute("UPDATE meta SET value = '1' WHERE key = 'pg_schema'")
    with Memory(postgres_url, embedder="hash") as mem:
        assert {q: mem.storage.text_candidates("default", q, 10) for q in queries} == before
    assert _search_tables(postgres_url) == tables
    with psycopg.connect(postgres_url) as con:
        assert con.execute("SELECT value FROM meta WHERE key = 'pg_schema'").fetchone() == (SCHEMA_VERSION,)
        assert con.execute("SELECT count(*) FROM information_schema.columns WHERE table_name = 'items' "
                           "AND column_name = 'tsv'").fetchone() == (0,)


def _without_stems(con: psycopg.Connection, texts: dict[str, str]) -> None:
    """Each item's stored tokens as a store before ADR 0058 held them (its words, no stems);
    ``texts``: the items' texts by id."""
    for item_id, text in texts.items():
        plain = search._plain_tokens(text)
        con.execute("UPDATE items SET tokens = %s, ntok = %s WHERE item_id = %s",
                    (" ".join(plain), len(plain), item_id))


def test_a_layout_2_store_is_upgraded_to_find_english_stems(postgres_url: str) -> None:
    texts = ["we went camping by the lake", "the camp fire", "我的居住地是北京", "lakes and ships"]
    queries = ("camped", "居住地", "lake", "ship")
    with Memory(postgres_url, embedder="hash") as mem:
        ids = [mem.add(text, extract=False).id for text in texts]
        before = {q: mem.storage.text_candidates("default", q, 10) for q in queries}
    by_id = dict(zip(ids, texts))
    tables = _search_tables(postgres_url)
    with psycopg.connect(postgres_url, autocommit=True) as con:  # back to layout 2: words, no stems
        _without_stems(con, by_id)
        con.execute("TRUNCATE postings, term_df, text_totals")
        postings.rebuild(con)
        con.execute("UPDATE meta SET value = '2' WHERE key = 'pg_schema'")
        df = "SELECT token, df FROM term_df WHERE token IN ('camp', 'lake')"
        assert dict(con.execute(df).fetchall()) == {"camp": 1, "lake": 1}  # the words alone
    with Memory(postgres_url, embedder="hash") as mem:
        after = {q: mem.storage.text_candidates("default", q, 10) for q in queries}
    assert after == before
    assert {c.item_id for c in after["camped"]} == {ids[0], ids[1]}
    assert _search_tables(postgres_url) == tables  # as if indexed anew
    with psycopg.connect(postgres_url) as con:
        assert con.execute("SELECT value FROM meta WHERE key = 'pg_schema'").fetchone() == (SCHEMA_VERSION,)
        assert dict(con.execute(df).fetchall()) == {"camp": 2, "lake": 2}


def test_a_newer_layout_is_refused(postgres_url: str) -> None:
    PostgresStorage(postgres_url).close()
    with psycopg.connect(postgres_url, autocommit=True) as con:
        con.execute("UPDATE meta SET value = '9' WHERE key = 'pg_schema'")
    with pytest.raises(SchemaError, match="layout '9'"):
        PostgresStorage(postgres_url)
