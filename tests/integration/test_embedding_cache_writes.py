"""The SQLite embedding cache takes no write lock of its own (ADR 0064): new vectors are kept in
memory and written inside the store's next write transaction, at close, or when many wait."""

from __future__ import annotations

from pathlib import Path

import pytest

from hlmem.adapters.sqlite import embedding_cache as cache_module
from hlmem.adapters.sqlite.lock_timing import LockTiming
from hlmem.adapters.sqlite.store import SQLiteStorage

MODEL = "m-1"


def rows(store: SQLiteStorage) -> int:
    return store.connection.execute("SELECT count(*) FROM embedding_cache").fetchone()[0]


@pytest.fixture
def store(tmp_path: Path):
    s = SQLiteStorage(tmp_path / "s.db")
    yield s
    s.close()


def test_new_vectors_wait_in_memory_and_join_the_next_write(store: SQLiteStorage) -> None:
    seen: list[LockTiming] = []
    store.db.on_timing = seen.append
    store.embedding_cache.put_many(MODEL, [("h1", b"v1"), ("h2", b"v2")])
    assert seen == [] and rows(store) == 0  # no transaction of their own
    assert store.embedding_cache.get_many(MODEL, ["h1", "h2", "h3"]) == {"h1": b"v1", "h2": b"v2"}
    store.set_meta("some", "write")
    assert len(seen) == 1 and rows(store) == 2  # written with that write, in its one transaction
    assert store.embedding_cache.get_many(MODEL, ["h1"]) == {"h1": b"v1"}


def test_inside_a_transaction_they_are_written_at_once(store: SQLiteStorage) -> None:
    with store.transaction():
        store.embedding_cache.put_many(MODEL, [("h1", b"v1")])
        assert rows(store) == 1


def test_a_write_that_rolls_back_takes_its_vectors_with_it(store: SQLiteStorage) -> None:
    store.embedding_cache.put_many(MODEL, [("h1", b"v1")])
    with pytest.raises(RuntimeError), store.transaction():
        store.set_meta("k", "v")
        raise RuntimeError("refused")
    store.set_meta("next", "write")
    assert rows(store) == 0 and store.embedding_cache.get_many(MODEL, ["h1"]) == {}


def test_close_writes_what_no_write_took(tmp_path: Path) -> None:
    store = SQLiteStorage(tmp_path / "s.db")
    store.embedding_cache.put_many(MODEL, [("h1", b"v1")])
    store.close()
    again = SQLiteStorage(tmp_path / "s.db")
    assert again.embedding_cache.get_many(MODEL, ["h1"]) == {"h1": b"v1"}
    again.close()


def test_many_waiting_vectors_are_written_without_waiting_for_a_write(store: SQLiteStorage,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_module, "PENDING_LIMIT", 3)
    store.embedding_cache.put_many(MODEL, [("h1", b"v1"), ("h2", b"v2")])
    assert rows(store) == 0
    store.embedding_cache.put_many(MODEL, [("h3", b"v3")])
    assert rows(store) == 3


def test_a_forget_drops_vectors_not_written_yet(store: SQLiteStorage) -> None:
    from hlmem.adapters.embedders.cached import content_hash

    store.embedding_cache.put_many(MODEL, [(content_hash("secret text"), b"v"), ("other", b"w")])
    assert store.drop_cached_vectors(["secret text"]) == 1
    store.set_meta("next", "write")
    assert store.embedding_cache.get_many(MODEL, [content_hash("secret text"), "other"]) == {"other": b"w"}
