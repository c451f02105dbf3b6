"""Fakes for the application ports: small, typed, handler-driven, and recording their calls.

Tests import this module as ``fakes`` (see ``use_fakes()`` in the tests that need it). The clock
and id generator are shipped adapters (``FixedClock``, ``SequentialIds``), re-exported here so a
test builds every collaborator from one place.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

import numpy as np
from attrs import frozen

from hlmem.adapters.clock import FixedClock
from hlmem.adapters.ids import SequentialIds
from hlmem.adapters.inmemory.store import InMemoryStorage
from hlmem.application.ports import Candidate
from hlmem.application.recall import RecallService
from hlmem.application.writes import WriteService
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

__all__ = [
    "EmbedCall",
    "FakeEmbedder",
    "FixedClock",
    "ScriptedSearchStorage",
    "SearchCall",
    "SequentialIds",
    "Services",
    "keyword_handler",
    "make_services",
]

#: Maps one text to its (not necessarily normalised) vector.
VectorHandler = Callable[[str], Sequence[float]]
#: ``(namespace, query or vector bytes, limit) -> candidates``, best first.
CandidateHandler = Callable[[str, object, int], list[Candidate]]


@frozen
class EmbedCall:
    """One call an embedder received: ``role`` is ``"passage"`` or ``"query"``."""

    role: str
    texts: tuple[str, ...]


def keyword_handler(keywords: Sequence[str]) -> VectorHandler:
    """A handler with one axis per keyword (its count in the text) plus a constant axis.

    The constant axis keeps every vector non-zero; texts sharing a keyword are closer than
    texts that share none, which is all a recall test needs from a "model".
    """
    lowered = [k.casefold() for k in keywords]

    def handle(text: str) -> list[float]:
        folded = text.casefold()
        return [0.1] + [float(folded.count(k)) for k in lowered]

    return handle


class FakeEmbedder:
    """An ``Embedder`` whose vectors come from ``handler(text)``; every call is kept in ``calls``.

    :param handler: text -> vector of length ``dim`` (normalised here); default: a constant.
    :param dim: the vector dimension.
    :param model_id: what the store records as the model.
    """

    def __init__(self, handler: VectorHandler | None = None, *, dim: int | None = None,
                 model_id: str = "fake-v1") -> None:
        self._handler = handler or (lambda _text: [1.0] + [0.0] * ((dim or 4) - 1))
        self._dim = dim if dim is not None else len(self._handler("probe"))
        self._model_id = model_id
        self.calls: list[EmbedCall] = []

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dim(self) -> int:
        return self._dim

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        rows = np.asarray([list(self._handler(t)) for t in texts], dtype=np.float32)
        if rows.shape != (len(texts), self._dim):
            raise AssertionError(f"handler gave shape {rows.shape}, expected {(len(texts), self._dim)}")
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return (rows / np.where(norms == 0, 1, norms)).astype(np.float32)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(EmbedCall("passage", tuple(texts)))
        return self._embed(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(EmbedCall("query", tuple(texts)))
        return self._embed(texts)

    def texts(self, role: str) -> list[str]:
        """Every text embedded in ``role``, in call order."""
        return [t for call in self.calls if call.role == role for t in call.texts]


@frozen
class SearchCall:
    """One candidate search the storage received: ``source`` is ``"text"`` or ``"vector"``."""

    source: str
    namespace: str
    limit: int


class ScriptedSearchStorage(InMemoryStorage):
    """``InMemoryStorage`` whose candidate lists come from handlers when given (else the real ones).

    Everything else (log, projection, visibility) is the real in-memory adapter, so a recall test
    scripts only the rankings it wants to fuse. Searches are kept in ``searches``.
    """

    def __init__(self, *, text: CandidateHandler | None = None, vector: CandidateHandler | None = None) -> None:
        super().__init__()
        self.text_handler = text
        self.vector_handler = vector
        self.searches: list[SearchCall] = []

    def text_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]:
        self.searches.append(SearchCall("text", namespace, limit))
        if self.text_handler is not None:
            return self.text_handler(namespace, query, limit)
        return super().text_candidates(namespace, query, limit)

    def vector_search(self, namespace: str, limit: int) -> Callable[[bytes], list[Candidate]] | None:
        real = super().vector_search(namespace, limit)
        if real is None and self.vector_handler is None:
            return None

        def search(vector: bytes) -> list[Candidate]:
            self.searches.append(SearchCall("vector", namespace, limit))
            if self.vector_handler is not None:
                return self.vector_handler(namespace, vector, limit)
            return real(vector)

        return search


@frozen
class Services:
    """The write and recall services over one storage, with the clock that drives them."""

    storage: InMemoryStorage
    clock: FixedClock
    writes: WriteService
    recall: RecallService
    embedder: FakeEmbedder | None


def make_services(at: datetime, *, storage: InMemoryStorage | None = None,
                  embedder: FakeEmbedder | None = None) -> Services:
    """Wire the real services over an in-memory store, a fixed clock and sequential ids."""
    storage = storage if storage is not None else InMemoryStorage()
    clock = FixedClock(at)
    writes = WriteService(storage, clock, SequentialIds(), DEFAULT_REGISTRY, embedder)
    return Services(storage, clock, writes, RecallService(storage, clock, embedder), embedder)
