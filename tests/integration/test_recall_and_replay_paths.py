"""The fast paths of recall and replay give the answers of the slow ones.

Full text runs an AND of every occurring term before the budgeted OR; document counts are cached
until the store changes; the vector cache loads the table in chunks; recall asks visibility of
the best items first; replay copies stored payloads and compares projection rows before states;
migration 0006 moves the embedding cache to a rowid table.
"""

from __future__ import annotations

import json
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest

from hlmem.adapters.clock import FixedClock
from hlmem.adapters.ids import SequentialIds
from hlmem.adapters.inmemory.store import InMemoryStorage
from hlmem.adapters.serialization import UPCASTERS, encode_payload
from hlmem.adapters.sqlite import migrations, search, vector_table
from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.application.ports import IndexEntry, Storage
from hlmem.application.recall import RecallService
from hlmem.application.replay import ReplayService
from hlmem.application.writes import WriteService
from hlmem.domain.commands import AssertClaim
from hlmem.domain.events import ObservationRecorded, OriginClass, SessionKind
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)


def obs(n: int, text: str, namespace: str = "default") -> ObservationRecorded:
    return ObservationRecorded(
        event_id=f"lg_o{n}", stream_id=f"ev_o{n}", version=1, recorded_at=T0, namespace=namespace, text=text,
        role="user", session_id="s", origin_class=OriginClass.DIRECT_USER, session_kind=SessionKind.INTERACTIVE,
        occurred_at=T0,
    )


def add_texts(store: Storage, texts: list[str], start: int = 0, namespace: str = "default") -> list[str]:
    events = [obs(start + i, text, namespace) for i, text in enumerate(texts)]
    store.append(events, {e.stream_id: IndexEntry(e.text) for e in events})
    return [e.stream_id for e in events]


@pytest.fixture
def sqlite_store(tmp_path: Path):
    store = SQLiteStorage(tmp_path / "s.db", synchronous="OFF")
    yield store
    store.close()


# --- full text ------------------------------------------------------------------------------------


def test_an_item_holding_every_term_comes_first_even_when_the_budget_keeps_one_term(
        sqlite_store: SQLiteStorage, monkeypatch: pytest.MonkeyPatch) -> None:
    # Every term is in 21+ items, over the budget: the OR pass alone takes the newest matches.
    [full] = add_texts(sqlite_store, ["Tom Davis 婚恋 状况 已婚"])
    add_texts(sqlite_store, [f"Tom Davis likes x{i}" for i in range(20)], start=100)
    add_texts(sqlite_store, [f"Tom Smith 婚恋 状况 y{i}" for i in range(20)], start=200)
    monkeypatch.setattr(search, "FTS_DOC_BUDGET", 10)
    got = sqlite_store.text_candidates("default", "Tom Davis 婚恋状况", 5)
    assert got[0].item_id == full
    assert [c.rank for c in got] == [1, 2, 3, 4, 5]
    assert len({c.item_id for c in got}) == 5


def test_the_and_pass_and_the_or_pass_fill_the_limit_without_duplicates(sqlite_store: SQLiteStorage) -> None:
    both = add_texts(sqlite_store, ["red apple", "red apple pie"])
    one = add_texts(sqlite_store, ["red car", "green apple", "red"], start=10)
    got = [c.item_id for c in sqlite_store.text_candidates("default", "red apple", 10)]
    assert set(got[:2]) == set(both) and set(got[2:]) == set(one)
    assert [c.item_id for c in sqlite_store.text_candidates("default", "red apple", 3)][:2] == got[:2]


def test_document_counts_follow_writes_of_this_and_other_connections(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    reader, writer = SQLiteStorage(path), SQLiteStorage(path)
    try:
        assert reader.text_candidates("default", "zebra", 5) == []  # caches: "zebra" occurs nowhere
        [mine] = add_texts(reader, ["a zebra crossing"])
        assert [c.item_id for c in reader.text_candidates("default", "zebra", 5)] == [mine]
        [theirs] = add_texts(writer, ["zebra stripes", "okapi"], start=50)[:1]
        assert {c.item_id for c in reader.text_candidates("default", "zebra", 5)} == {mine, theirs}
        assert reader.text_candidates("default", "okapi", 5) != []
    finally:
        reader.close()
        writer.close()


def test_a_rolled_back_write_leaves_no_cached_count(sqlite_store: SQLiteStorage) -> None:
    assert sqlite_store.text_candidates("default", "walrus", 5) == []
    with pytest.raises(RuntimeError), sqlite_store.transaction():
        add_texts(sqlite_store, ["walrus"])
        assert len(sqlite_store.text_candidates("default", "walrus", 5)) == 1
        raise RuntimeError("undo")
    assert sqlite_store.text_candidates("default", "walrus", 5) == []


# --- vectors ----------------------------------------------------------------------------------------


def test_vectors_loaded_in_chunks_rank_like_the_in_memory_store(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vector_table, "_LOAD_CHUNK", 7)
    monkeypatch.setattr(vector_table, "_BULK_ROWS", 10)
    rng = np.random.default_rng(3)
    dim = 8
    vectors = rng.standard_normal((60, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    sqlite, memory = SQLiteStorage(tmp_path / "v.db", synchronous="OFF"), InMemoryStorage()

    def write(first: int, count: int) -> None:
        # Namespaces interleave, so every chunk holds both.
        events = [obs(i, f"t{i}", namespace="ab"[i % 3 == 1]) for i in range(first, first + count)]
        index = {e.stream_id: IndexEntry(e.text, vectors[int(e.stream_id[4:])].tobytes()) for e in events}
        for store in (sqlite, memory):
            store.append(events, index)

    def agree(k: int) -> None:
        for ns in ("a", "b"):
            query = rng.standard_normal(dim).astype(np.float32).tobytes()
            want = [c.item_id for c in memory.vector_candidates(ns, query, k)]
            assert [c.item_id for c in sqlite.vector_candidates(ns, query, k)] == want
            assert len(want) == k

    try:
        for store in (sqlite, memory):
            store.bind_vector_model("test", dim)
        write(0, 40)
        agree(10)  # the first load: bulk, in chunks of 7
        write(40, 20)
        agree(15)  # an incremental refresh of 20 rows, still in chunks
    finally:
        sqlite.close()


def test_a_vector_search_prepared_before_the_index_is_dropped_loads_it_again(tmp_path: Path) -> None:
    """``vector_search`` loads under the connection and scans outside it; a write that drops the
    in-memory index in between (a failed transaction, a forget) sends the scan back to load it."""
    rng = np.random.default_rng(5)
    vectors = rng.standard_normal((20, 8)).astype(np.float32)
    store = SQLiteStorage(tmp_path / "v.db", synchronous="OFF")
    try:
        store.bind_vector_model("test", 8)
        events = [obs(i, f"t{i}") for i in range(20)]
        store.append(events, {e.stream_id: IndexEntry(e.text, vectors[i].tobytes()) for i, e in enumerate(events)})
        query = vectors[3].tobytes()
        want = store.vector_candidates("default", query, 5)
        search = store.vector_search("default", 5)
        with pytest.raises(RuntimeError), store.transaction():  # a rollback drops the cached index
            raise RuntimeError("fail inside the transaction")
        assert search(query) == want
        assert want[0].item_id == "ev_o3"
    finally:
        store.close()


def test_coded_vector_searches_in_threads_agree_with_one_thread(tmp_path: Path) -> None:
    """Past ``exact_below`` rows the index scans codes with shared scratch buffers: searches from
    several threads at once (two recalls) must not mix them."""
    rng = np.random.default_rng(11)
    n, dim = 5_000, 16
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    store = SQLiteStorage(tmp_path / "v.db", synchronous="OFF")
    try:
        store.bind_vector_model("test", dim)
        events = [obs(i, f"t{i}") for i in range(n)]
        store.append(events, {e.stream_id: IndexEntry(e.text, vectors[i].tobytes()) for i, e in enumerate(events)})
        queries = [rng.standard_normal(dim).astype(np.float32).tobytes() for _ in range(12)]
        want = [store.vector_candidates("default", q, 20) for q in queries]
        results: list[list] = [[] for _ in range(3)]

        def run(out: list) -> None:
            for _ in range(5):
                out.extend(store.vector_search("default", 20)(q) for q in queries)

        threads = [threading.Thread(target=run, args=(out,)) for out in results]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results == [want * 5] * 3
    finally:
        store.close()


# --- recall visibility ------------------------------------------------------------------------------


class _CountingVisibility(InMemoryStorage):
    def __init__(self) -> None:
        super().__init__()
        self.asked: list[int] = []

    def visible(self, ids, valid_at, known_at):
        self.asked.append(len(ids))
        return super().visible(ids, valid_at, known_at)


def test_recall_asks_visibility_of_the_best_items_first_and_still_fills_k() -> None:
    store = _CountingVisibility()
    clock = FixedClock(T0)
    writes = WriteService(store, clock, SequentialIds(1), DEFAULT_REGISTRY)
    # 30 values of one single-valued slot: every claim but the last is superseded now.
    for i in range(30):
        writes.remember(AssertClaim(subject="user", predicate="lives_in", value=f"city{i}"))
        clock.advance(timedelta(seconds=1))
    writes.remember(AssertClaim(subject="user", predicate="likes", value="lives tea"))
    recall = RecallService(store, clock)
    result = recall.recall("user lives", k=2)
    everything = recall.recall("user lives", k=200)
    assert [i.id for i in result.items] == [i.id for i in everything.items][:2]
    assert len(result.items) == 2
    # 2 × (k + max(5, k // 2)) first (ranking reorders a few more than k), more only when too few are visible.
    assert store.asked[0] == 14


# --- replay -------------------------------------------------------------------------------------


def populate(store: Storage) -> None:
    clock = FixedClock(T0)
    writes = WriteService(store, clock, SequentialIds(1), DEFAULT_REGISTRY)
    writes.remember(AssertClaim(subject="user", predicate="theme", value="dark"))
    clock.advance(timedelta(days=1))
    writes.remember(AssertClaim(subject="user", predicate="theme", value="light"))
    writes.remember(AssertClaim(subject="user", predicate="likes", value="tea"))
    add_texts(store, ["我住在上海", "I like tea"])


@pytest.mark.parametrize("kind", ["sqlite", "memory"])
def test_stream_versions_and_stored_reads_agree_with_the_log(kind: str, tmp_path: Path) -> None:
    store: Storage = SQLiteStorage(tmp_path / "l.db") if kind == "sqlite" else InMemoryStorage()
    try:
        populate(store)
        log = list(store.read())
        assert store.stream_versions() == {s.event.stream_id: store.stream_version(s.event.stream_id) for s in log}
        stored = list(store.read_stored())
        assert [s for s, _ in stored] == log
        for s, text in stored:
            assert text is None if kind == "memory" else text == encode_payload(s.event)
    finally:
        store.close()


def test_replay_copies_payloads_verbatim_and_compares_equal(tmp_path: Path) -> None:
    live, rebuilt = SQLiteStorage(tmp_path / "live.db"), SQLiteStorage(tmp_path / "rebuilt.db")
    try:
        populate(live)
        # A payload another encoder wrote (other spacing) must survive a replay byte for byte.
        event = obs(99, "odd spacing")
        odd = json.dumps(json.loads(encode_payload(event)), indent=1, ensure_ascii=False)
        live.append_copies([event], {event.stream_id: IndexEntry(event.text)}, {event.event_id: odd})
        replay = ReplayService(DEFAULT_REGISTRY)
        assert replay.rebuild(live, rebuilt) == live.last_position()
        report = replay.compare(live, rebuilt)
        assert report.equal, report.differences
        assert report.events == live.last_position() and report.streams == len(live.stream_versions())
        payloads = "SELECT position, payload FROM event_payloads ORDER BY position"
        assert live.connection.execute(payloads).fetchall() == rebuilt.connection.execute(payloads).fetchall()
        assert rebuilt.connection.execute("SELECT payload FROM event_payloads WHERE position = ?",
                                          (live.last_position(),)).fetchone()[0] == odd
    finally:
        live.close()
        rebuilt.close()


def test_a_payload_read_through_an_upcaster_is_not_offered_for_copying(
        sqlite_store: SQLiteStorage, monkeypatch: pytest.MonkeyPatch) -> None:
    add_texts(sqlite_store, ["current"])
    old = obs(1, "old format")
    payload = json.loads(encode_payload(old))
    payload["body"] = payload.pop("text")
    con = sqlite_store.connection
    con.execute("INSERT INTO events (position, event_id, stream_id, version, tag, recorded_at, namespace, "
                "schema_version) VALUES (2, ?, ?, 1, 'observation.recorded.v0', ?, 'default', 1)",
                (old.event_id, old.stream_id, "2026-03-01T09:30:00.000000Z"))
    con.execute("INSERT INTO event_payloads (position, payload) VALUES (2, ?)", (json.dumps(payload),))

    def upcast(data: dict) -> dict:
        data["text"] = data.pop("body")
        return data

    monkeypatch.setitem(UPCASTERS, "observation.recorded.v0", ("observation.recorded.v1", upcast))
    (first, first_text), (second, second_text) = sqlite_store.read_stored()
    assert first_text == encode_payload(first.event)
    assert second.event.text == "old format" and second_text is None


def test_compare_reports_a_changed_state_and_ignores_rows_that_decode_alike(tmp_path: Path) -> None:
    live, rebuilt = SQLiteStorage(tmp_path / "live.db"), SQLiteStorage(tmp_path / "rebuilt.db")
    try:
        populate(live)
        replay = ReplayService(DEFAULT_REGISTRY)
        replay.rebuild(live, rebuilt)
        con = rebuilt.connection
        # A column the state is not decoded from: rows differ, states do not.
        con.execute("UPDATE claims SET slot_key = slot_key || '~'")
        assert replay.compare(live, rebuilt).equal
        claim = con.execute("SELECT claim_id FROM claims ORDER BY claim_id LIMIT 1").fetchone()[0]
        con.execute("UPDATE claims SET value = 'tampered' WHERE claim_id = ?", (claim,))
        con.execute("UPDATE claim_versions SET valid_to = valid_from + 1 WHERE claim_id = ? AND seq = 0", (claim,))
        differences = replay.compare(live, rebuilt).differences
        assert len(differences) == 1 and differences[0].startswith(f"claim {claim}:") and "tampered" in differences[0]
    finally:
        live.close()
        rebuilt.close()


def test_compare_across_adapters_falls_back_to_states(tmp_path: Path) -> None:
    live, rebuilt = SQLiteStorage(tmp_path / "live.db"), InMemoryStorage()
    try:
        populate(live)
        replay = ReplayService(DEFAULT_REGISTRY)
        replay.rebuild(live, rebuilt)
        report = replay.compare(live, rebuilt)
        assert report.equal, report.differences
    finally:
        live.close()


# --- migration 0006 -------------------------------------------------------------------------------


def test_embedding_cache_moves_to_a_rowid_table_with_every_row(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "old.db"
    before = [m for m in migrations.MIGRATIONS if m.name != "0006_embedding_cache_rowid"]
    monkeypatch.setattr(migrations, "MIGRATIONS", tuple(before))
    old = SQLiteStorage(path)
    rows = [("m1", f"h{i:05d}", bytes([i % 256]) * 1536) for i in range(2500)] + [("m2", "h00001", b"x" * 16)]
    with old.transaction():
        old.connection.executemany("INSERT INTO embedding_cache (model, content_hash, vec) VALUES (?,?,?)", rows)
    old.close()
    monkeypatch.undo()
    store = SQLiteStorage(path)
    try:
        con = store.connection
        sql = con.execute("SELECT sql FROM sqlite_master WHERE name = 'embedding_cache'").fetchone()[0]
        assert "WITHOUT ROWID" not in sql.upper() and "UNIQUE" in sql.upper()
        assert sorted(con.execute("SELECT model, content_hash, vec FROM embedding_cache")) == sorted(rows)
        cache = store.embedding_cache
        assert cache.get_many("m2", ["h00001", "h00002"]) == {"h00001": b"x" * 16}
        cache.put_many("m1", [("h00003", b"new"), ("h99999", b"y")])  # the first is kept, not replaced
        assert cache.get_many("m1", ["h00003", "h99999"]) == {"h00003": bytes([3]) * 1536, "h99999": b"y"}
    finally:
        store.close()


def test_a_possessive_name_in_a_question_finds_that_name(sqlite_store: SQLiteStorage) -> None:
    [wright] = add_texts(sqlite_store, ["Bella Wright preferred language English"])
    add_texts(sqlite_store, [f"Bella Smith preferred language x{i}" for i in range(60)], start=10)
    got = sqlite_store.text_candidates("default", "What is Bella Wright's preferred language?", 5)
    assert got[0].item_id == wright


def test_another_connections_additions_extend_the_vector_cache_and_its_deletions_rebuild_it(tmp_path: Path) -> None:
    """A commit by another connection used to drop the whole in-memory index (1–2 s to reload at
    100k); now new vectors are loaded on top of it, and only deleted ones (``vector_epoch``) make
    it start over."""
    rng = np.random.default_rng(9)
    vectors = rng.standard_normal((40, 8)).astype(np.float32)
    reader, writer = SQLiteStorage(tmp_path / "v.db", synchronous="OFF"), SQLiteStorage(tmp_path / "v.db",
                                                                                         synchronous="OFF")

    def write(first: int, count: int) -> list[str]:
        events = [obs(i, f"t{i}") for i in range(first, first + count)]
        writer.append(events, {e.stream_id: IndexEntry(e.text, vectors[i].tobytes()) for i, e in
                               zip(range(first, first + count), events)})
        return [e.stream_id for e in events]

    try:
        writer.bind_vector_model("test", 8)
        write(0, 20)
        query = vectors[25].tobytes()
        assert len(reader.vector_candidates("default", query, 50)) == 20
        index = reader._vectors._index
        write(20, 20)  # another connection adds
        found = reader.vector_candidates("default", query, 50)
        assert len(found) == 40 and found[0].item_id == "ev_o25"
        assert reader._vectors._index is index  # extended, not rebuilt
        assert search.drop_items(writer.connection, ["ev_o25"]) == 1  # another connection deletes
        found = reader.vector_candidates("default", query, 50)
        assert len(found) == 39 and "ev_o25" not in {c.item_id for c in found}
        assert reader._vectors._index is not index  # rebuilt
        assert search.vector_epoch(reader.connection) == 1
    finally:
        reader.close()
        writer.close()
