"""The EmbeddingCache role's contract, run against every cache: each store's own (``store.embedding_cache``,
the HasEmbeddingCache role) and the stand-alone in-memory one (ADR 0028)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hlmem.adapters.embedders.memory_cache import InMemoryEmbeddingCache
from hlmem.application.ports import EmbeddingCache, HasEmbeddingCache, Storage

from support.stores import InMemoryStore, SQLiteStore, StoreContract
from support.stores import PostgresStore


def vec(x: float, dim: int = 4) -> bytes:
    return np.full(dim, x, dtype="<f4").tobytes()


class EmbeddingCacheContract:
    """Cases every EmbeddingCache must pass. Subclasses supply the ``cache`` fixture."""

    @pytest.fixture
    def cache(self) -> EmbeddingCache:
        raise NotImplementedError

    def test_satisfies_the_role(self, cache: EmbeddingCache) -> None:
        assert isinstance(cache, EmbeddingCache)

    def test_get_many_returns_only_the_hashes_it_holds(self, cache: EmbeddingCache) -> None:
        cache.put_many("m", [("h1", vec(1)), ("h2", vec(2))])
        assert cache.get_many("m", ["h2", "h9", "h1", "h2"]) == {"h1": vec(1), "h2": vec(2)}
        assert cache.get_many("m", []) == {}
        assert cache.get_many("m", ["h9"]) == {}

    def test_put_many_is_idempotent_and_a_held_key_keeps_its_vector(self, cache: EmbeddingCache) -> None:
        cache.put_many("m", [("h1", vec(1))])
        cache.put_many("m", [("h1", vec(1)), ("h2", vec(2))])
        cache.put_many("m", [("h1", vec(9))])
        cache.put_many("m", [])
        assert cache.get_many("m", ["h1", "h2"]) == {"h1": vec(1), "h2": vec(2)}

    def test_models_are_kept_apart(self, cache: EmbeddingCache) -> None:
        cache.put_many("model-a", [("h1", vec(1))])
        cache.put_many("model-b", [("h1", vec(2, dim=8))])
        assert cache.get_many("model-a", ["h1"]) == {"h1": vec(1)}
        assert cache.get_many("model-b", ["h1"]) == {"h1": vec(2, dim=8)}
        assert cache.get_many("model-c", ["h1"]) == {}

    def test_many_hashes_in_one_call(self, cache: EmbeddingCache) -> None:
        items = [(f"h{i:04d}", vec(i)) for i in range(1200)]
        cache.put_many("m", items)
        got = cache.get_many("m", [h for h, _ in items] + ["missing"])
        assert got == dict(items)


class StoreHeldCache(StoreContract):
    """The cache a store keeps in itself, reached as ``store.embedding_cache``."""

    @pytest.fixture
    def cache(self, store: Storage) -> EmbeddingCache:
        return store.embedding_cache

    def test_the_store_holds_one_cache_for_its_life(self, store: Storage) -> None:
        assert isinstance(store, HasEmbeddingCache)
        assert store.embedding_cache is store.embedding_cache


class TestInMemoryStoreCache(InMemoryStore, StoreHeldCache, EmbeddingCacheContract):
    pass


class TestSQLiteStoreCache(SQLiteStore, StoreHeldCache, EmbeddingCacheContract):
    def test_the_cache_is_kept_in_the_store_file(self, tmp_path: Path) -> None:
        store = self.make_store(tmp_path)
        store.embedding_cache.put_many("m", [("h1", vec(1))])
        store.close()
        again = self.make_store(tmp_path)
        try:
            assert again.embedding_cache.get_many("m", ["h1"]) == {"h1": vec(1)}
        finally:
            again.close()


class TestInMemoryEmbeddingCache(EmbeddingCacheContract):
    @pytest.fixture
    def cache(self) -> EmbeddingCache:
        return InMemoryEmbeddingCache()


# --- PostgreSQL (adapters/postgres/, issue 18): the same suite on a fresh database per test ----------


class TestPostgresStoreCache(PostgresStore, StoreHeldCache, EmbeddingCacheContract):
    pass
