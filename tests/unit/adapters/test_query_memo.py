"""QueryMemo: recall's query vectors remembered in process memory (ADR 0044)."""

from __future__ import annotations

import hashlib
import threading
import unicodedata
from collections.abc import Sequence

import attrs

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hlmem import Memory
from hlmem.adapters.embedders.query_memo import DEFAULT_SIZE, QueryMemo
from hlmem.application.errors import EmbedderError

DIM = 8


def _vector(role: str, text: str) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(f"{role}|{text}".encode()).digest()[:8], "little")
    row = np.random.default_rng(seed).standard_normal(DIM)
    return (row / np.linalg.norm(row)).astype(np.float32)


@attrs.define
class CountingEmbedder:
    """A vector per (role, text), and every call received."""

    model_id: str = "fake-v1"
    dim: int = DIM
    calls: list[tuple[str, tuple[str, ...]]] = attrs.field(factory=list)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed("passage", texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed("query", texts)

    def _embed(self, role: str, texts: Sequence[str]) -> np.ndarray:
        self.calls.append((role, tuple(texts)))
        return np.array([_vector(role, t) for t in texts], dtype=np.float32).reshape(-1, self.dim)

    @property
    def embedded(self) -> list[str]:
        return [text for _, texts in self.calls for text in texts]


def test_a_repeated_query_is_embedded_once() -> None:
    inner = CountingEmbedder()
    memo = QueryMemo(inner)
    first = memo.embed_queries(["where do I live?"])
    again = memo.embed_queries(["where do I live?"])
    np.testing.assert_array_equal(first, again)
    assert inner.embedded == ["where do I live?"]
    assert (memo.hits, memo.misses) == (1, 1)


def test_misses_of_one_call_go_in_one_inner_call_and_order_and_duplicates_are_kept() -> None:
    inner = CountingEmbedder()
    memo = QueryMemo(inner)
    memo.embed_queries(["b"])
    out = memo.embed_queries(["a", "b", "a", "c"])
    assert inner.calls == [("query", ("b",)), ("query", ("a", "c"))]
    expected = np.array([_vector("query", t) for t in ["a", "b", "a", "c"]])
    np.testing.assert_array_equal(out, expected)


def test_the_least_recently_used_text_goes_first() -> None:
    inner = CountingEmbedder()
    memo = QueryMemo(inner, size=2)
    memo.embed_queries(["a"])
    memo.embed_queries(["b"])
    memo.embed_queries(["a"])  # a is now the most recent
    memo.embed_queries(["c"])  # evicts b
    assert len(memo) == 2
    inner.calls.clear()
    memo.embed_queries(["a", "c"])
    assert inner.calls == []
    memo.embed_queries(["b"])
    assert inner.calls == [("query", ("b",))]


def test_passages_are_never_remembered() -> None:
    inner = CountingEmbedder()
    memo = QueryMemo(inner)
    memo.embed_passages(["x"])
    memo.embed_passages(["x"])
    assert inner.calls == [("passage", ("x",)), ("passage", ("x",))] and len(memo) == 0


def test_nfc_forms_share_a_vector() -> None:
    inner = CountingEmbedder()
    memo = QueryMemo(inner)
    decomposed = unicodedata.normalize("NFD", "café")
    memo.embed_queries(["café"])
    memo.embed_queries([decomposed])
    assert inner.embedded == ["café"]


def test_a_caller_writing_into_its_matrix_changes_nothing_later() -> None:
    memo = QueryMemo(CountingEmbedder())
    out = memo.embed_queries(["q"])
    out[:] = 0.0
    np.testing.assert_array_equal(memo.embed_queries(["q"])[0], _vector("query", "q"))


def test_size_zero_remembers_nothing() -> None:
    inner = CountingEmbedder()
    memo = QueryMemo(inner, size=0)
    memo.embed_queries(["q"])
    memo.embed_queries(["q"])
    assert inner.embedded == ["q", "q"] and len(memo) == 0


@pytest.mark.parametrize("size", [-1, 1.5, True, "8"])
def test_a_bad_size_is_refused(size: object) -> None:
    with pytest.raises(ValueError, match="size"):
        QueryMemo(CountingEmbedder(), size=size)  # type: ignore[arg-type]


def test_bad_input_is_an_embedder_error_and_nothing_is_kept() -> None:
    memo = QueryMemo(CountingEmbedder())
    with pytest.raises(EmbedderError, match="single str"):
        memo.embed_queries("q")  # type: ignore[arg-type]
    with pytest.raises(EmbedderError, match="expected str"):
        memo.embed_queries(["q", 3])  # type: ignore[list-item]
    assert len(memo) == 0


def test_a_wrong_shape_from_the_model_is_an_error_and_not_remembered() -> None:
    class Broken(CountingEmbedder):
        def embed_queries(self, texts):  # type: ignore[no-untyped-def]
            return np.zeros((len(texts) + 1, self.dim), dtype=np.float32)

    memo = QueryMemo(Broken())
    with pytest.raises(EmbedderError, match="shape"):
        memo.embed_queries(["q"])
    assert len(memo) == 0


def test_threads_share_it_without_losing_rows() -> None:
    inner = CountingEmbedder()
    memo = QueryMemo(inner, size=64)
    texts = [f"q{i}" for i in range(32)]
    errors: list[BaseException] = []

    def ask() -> None:
        try:
            for _ in range(20):
                out = memo.embed_queries(texts)
                np.testing.assert_array_equal(out, np.array([_vector("query", t) for t in texts]))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    workers = [threading.Thread(target=ask) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not errors and len(memo) == 32


@given(st.lists(st.sampled_from("abcdef"), max_size=30), st.integers(min_value=0, max_value=4))
def test_any_sequence_of_queries_gets_the_models_vectors_and_stays_bounded(asked: list[str], size: int) -> None:
    memo = QueryMemo(CountingEmbedder(), size=size)
    for text in asked:
        np.testing.assert_array_equal(memo.embed_queries([text])[0], _vector("query", text))
        assert len(memo) <= size


def test_memory_recall_embeds_a_repeated_query_once(tmp_path) -> None:  # type: ignore[no-untyped-def]
    inner = CountingEmbedder()
    with Memory(tmp_path / "m.db", embedder=inner) as mem:
        mem.add("I live in Porto with my two kids", extract=False)
        inner.calls.clear()
        first = mem.recall("where do I live?")
        again = mem.recall("where do I live?")
        assert [i.id for i in first.items] == [i.id for i in again.items] and first.items
        assert [c for c in inner.calls if c[0] == "query"] == [("query", ("where do I live?",))]


def test_the_default_size() -> None:
    assert QueryMemo(CountingEmbedder()).size == DEFAULT_SIZE == 512
