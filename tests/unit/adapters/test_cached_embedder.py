"""CachedEmbedder embeds only cache misses, keeps order and duplicates; InMemoryEmbeddingCache."""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Sequence

import attrs
import numpy as np
import pytest

from hlmem.adapters.embedders.cached import CachedEmbedder, content_hash
from hlmem.adapters.embedders.memory_cache import InMemoryEmbeddingCache
from hlmem.application.errors import EmbedderError
from hlmem.application.ports import Embedder, EmbeddingCache

DIM = 8


def _vector(role: str, text: str) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(f"{role}|{text}".encode()).digest()[:8], "little")
    row = np.random.default_rng(seed).standard_normal(DIM)
    return (row / np.linalg.norm(row)).astype(np.float32)


@attrs.define
class CountingEmbedder:
    """A fake inner embedder: a vector per (role, text), and every call it received."""

    model_id: str = "fake-v1"
    dim: int = DIM
    calls: list[tuple[str, tuple[str, ...]]] = attrs.field(factory=list)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed("passage", texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed("query", texts)

    def _embed(self, role: str, texts: Sequence[str]) -> np.ndarray:
        self.calls.append((role, tuple(texts)))
        return np.array([_vector(role, t) for t in texts], dtype=np.float32).reshape(-1, DIM)

    @property
    def embedded(self) -> list[str]:
        return [text for _, texts in self.calls for text in texts]


@attrs.define
class RecordingCache:
    """Wraps the in-memory cache and records what was asked and written."""

    inner: InMemoryEmbeddingCache = attrs.field(factory=InMemoryEmbeddingCache)
    gets: list[tuple[str, ...]] = attrs.field(factory=list)
    puts: list[tuple[str, ...]] = attrs.field(factory=list)

    def get_many(self, model_id: str, hashes: Sequence[str]) -> dict[str, bytes]:
        self.gets.append(tuple(hashes))
        return self.inner.get_many(model_id, hashes)

    def put_many(self, model_id: str, items: Sequence[tuple[str, bytes]]) -> None:
        self.puts.append(tuple(h for h, _ in items))
        self.inner.put_many(model_id, items)


@pytest.fixture
def inner() -> CountingEmbedder:
    return CountingEmbedder()


@pytest.fixture
def cache() -> RecordingCache:
    return RecordingCache()


@pytest.fixture
def cached(inner: CountingEmbedder, cache: RecordingCache) -> CachedEmbedder:
    return CachedEmbedder(inner, cache)


def test_fakes_and_adapter_satisfy_the_ports(cached: CachedEmbedder) -> None:
    assert isinstance(CountingEmbedder(), Embedder)
    assert isinstance(cached, Embedder)
    assert isinstance(InMemoryEmbeddingCache(), EmbeddingCache)
    assert cached.model_id == "fake-v1" and cached.dim == DIM


def test_only_distinct_misses_are_embedded(cached: CachedEmbedder, inner: CountingEmbedder) -> None:
    cached.embed_passages(["a", "b", "a"])
    cached.embed_passages(["b", "c", "a", "c", "d"])
    assert inner.calls == [("passage", ("a", "b")), ("passage", ("c", "d"))]


def test_order_and_duplicates_are_preserved(cached: CachedEmbedder) -> None:
    cached.embed_passages(["b", "d"])  # warm part of the cache so hits and misses interleave
    texts = ["a", "b", "c", "a", "d", "b", "a"]
    matrix = cached.embed_passages(texts)
    assert matrix.dtype == np.float32 and matrix.shape == (len(texts), DIM)
    for row, text in zip(matrix, texts, strict=True):
        np.testing.assert_array_equal(row, _vector("passage", text))


def test_a_repeated_call_costs_no_inner_calls(
    cached: CachedEmbedder, inner: CountingEmbedder, cache: RecordingCache
) -> None:
    texts = ["我喜欢深色模式", "dark mode", "我喜欢深色模式"]
    first = cached.embed_passages(texts)
    calls, puts = len(inner.calls), len(cache.puts)
    second = cached.embed_passages(texts)
    assert len(inner.calls) == calls == 1
    assert len(cache.puts) == puts == 1
    np.testing.assert_array_equal(first, second)


def test_one_cache_lookup_per_call_with_distinct_hashes(
    cached: CachedEmbedder, cache: RecordingCache
) -> None:
    cached.embed_passages(["x", "y", "x"])
    assert cache.gets == [(content_hash("x"), content_hash("y"))]
    assert cache.puts == [(content_hash("x"), content_hash("y"))]


def test_written_vectors_are_float32_bytes_of_the_dimension(
    cached: CachedEmbedder, cache: RecordingCache
) -> None:
    cached.embed_passages(["x"])
    raw = cache.inner.get_many("fake-v1", [content_hash("x")])[content_hash("x")]
    assert len(raw) == DIM * 4
    np.testing.assert_array_equal(np.frombuffer(raw, dtype="<f4"), _vector("passage", "x"))


def test_empty_input_touches_neither_inner_nor_cache(
    cached: CachedEmbedder, inner: CountingEmbedder, cache: RecordingCache
) -> None:
    for embed in (cached.embed_passages, cached.embed_queries):
        assert embed([]).shape == (0, DIM)
    assert inner.calls == [] and cache.gets == [] and cache.puts == []


def test_queries_are_cached_apart_from_passages(
    cached: CachedEmbedder, inner: CountingEmbedder
) -> None:
    cached.embed_passages(["dark mode"])
    q = cached.embed_queries(["dark mode"])
    cached.embed_queries(["dark mode"])
    assert inner.calls == [("passage", ("dark mode",)), ("query", ("dark mode",))]
    np.testing.assert_array_equal(q[0], _vector("query", "dark mode"))
    assert content_hash("dark mode", "query") != content_hash("dark mode", "passage")


def test_query_caching_can_be_turned_off(inner: CountingEmbedder, cache: RecordingCache) -> None:
    cached = CachedEmbedder(inner, cache, cache_queries=False)
    cached.embed_queries(["q"])
    cached.embed_queries(["q"])
    assert inner.calls == [("query", ("q",)), ("query", ("q",))]
    assert cache.gets == []


def test_nfc_equivalent_texts_share_one_entry(
    cached: CachedEmbedder, inner: CountingEmbedder
) -> None:
    composed, decomposed = "café", unicodedata.normalize("NFD", "café")
    assert composed != decomposed
    a, b = cached.embed_passages([decomposed, composed])
    assert inner.calls == [("passage", (composed,))]  # the inner model sees the NFC form
    np.testing.assert_array_equal(a, b)


def test_entries_are_scoped_by_model_id(cache: RecordingCache) -> None:
    first, second = CountingEmbedder(model_id="m1"), CountingEmbedder(model_id="m2")
    CachedEmbedder(first, cache).embed_passages(["x"])
    CachedEmbedder(second, cache).embed_passages(["x"])
    assert second.embedded == ["x"]


def test_a_corrupt_entry_is_treated_as_a_miss(
    inner: CountingEmbedder, cache: RecordingCache
) -> None:
    cache.inner.put_many("fake-v1", [(content_hash("x"), b"\x00" * 5)])
    row = CachedEmbedder(inner, cache).embed_passages(["x"])[0]
    assert inner.embedded == ["x"]
    np.testing.assert_array_equal(row, _vector("passage", "x"))


def test_an_inner_result_of_the_wrong_shape_is_an_embedder_error(cache: RecordingCache) -> None:
    @attrs.define
    class Short(CountingEmbedder):
        def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
            return np.zeros((len(texts) - 1, DIM), dtype=np.float32)

    with pytest.raises(EmbedderError, match="shape"):
        CachedEmbedder(Short(), cache).embed_passages(["a", "b"])
    assert cache.puts == []


def test_a_bare_string_is_refused(cached: CachedEmbedder) -> None:
    with pytest.raises(EmbedderError):
        cached.embed_passages("abc")  # type: ignore[arg-type]


def test_content_hash_is_sha256_of_role_and_nfc_text() -> None:
    expected = hashlib.sha256(b"passage\x00" + "café".encode()).hexdigest()
    assert content_hash(unicodedata.normalize("NFD", "café")) == expected


class TestInMemoryEmbeddingCache:
    def test_get_many_returns_only_held_hashes(self) -> None:
        cache = InMemoryEmbeddingCache()
        cache.put_many("m", [("h1", b"one")])
        assert cache.get_many("m", ["h1", "h2"]) == {"h1": b"one"}
        assert cache.get_many("other", ["h1"]) == {}
        assert cache.get_many("m", []) == {}

    def test_put_many_is_idempotent_and_first_write_wins(self) -> None:
        cache = InMemoryEmbeddingCache()
        cache.put_many("m", [("h", b"first")])
        cache.put_many("m", [("h", b"first"), ("h", b"second")])
        assert cache.get_many("m", ["h"]) == {"h": b"first"} and len(cache) == 1
