"""The search role: full-text, context and vector candidates for recall, visibility and the vector model guard."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from attrs import frozen


@frozen
class Candidate:
    """A search hit before fusion: ``kind`` is ``"claim"`` or ``"event"``; rank starts at 1.

    ``score`` is the source's raw score, higher is better (full text: −bm25; vectors: cosine).
    ``exact`` marks a full-text hit holding every term of the query (strong lexical evidence:
    the relevance floor keeps it even when the vectors find nothing similar).
    """

    item_id: str
    kind: str
    rank: int
    score: float
    exact: bool = False


@runtime_checkable
class SearchIndex(Protocol):
    """Candidate generation for recall, and the vector model guard.

    Contract:
    - ``text_candidates`` takes the user's raw query; the adapter segments it (Chinese-aware)
      and can never raise on query syntax. Best first, at most ``limit``.
    - ``vector_candidates`` takes one float32 query vector (bytes) of the store's model.
    - ``vector_search(namespace, limit)`` does the reading part of ``vector_candidates`` now (None
      when the store has no vectors) and returns a function of the query vector that gives what
      ``vector_candidates`` would. The function needs nothing else of the storage: it may run
      while another thread uses it, so recall scans vectors while its full-text search runs in
      another thread (ADR 0022).
    - ``context_candidates`` is ``text_candidates`` over the conversational context: every pair of
      consecutive not-forgotten turns of a session (oldest first by recorded time; a lone turn is
      a pair of one), as :func:`hlmem.application.indexing.context_text` reads them; an event
      ranks at its best pair. Events only, never ``exact``, kept in step when events are added or
      forgotten.
    - ``speakers(namespace)`` is the set of roles of the namespace's not forgotten events (who
      said things: ``user``, ``assistant``, participants' names), current after every write.
    - ``sessions_of(event_ids)`` maps each known event id to its session (unknown ids are left out).
    - Candidates are restricted to ``namespace`` and to items not forgotten; visibility in time
      is checked separately with ``visible``.
    - ``visible(ids, valid_at, known_at)`` keeps the claim ids that held at ``valid_at`` as known
      at ``known_at`` and the event ids that occurred by ``valid_at`` and were recorded by ``known_at``.
    - ``vector_model()`` is the ``(model_id, dim)`` that made the stored vectors (None if none
      yet); ``bind_vector_model`` records it once and raises :class:`ModelMismatch` on another.
    - ``items()`` yields ``(item_id, kind)`` of every searchable, not forgotten item.
    - ``replace_vectors`` swaps every vector and the model binding in one transaction (the
      explicit re-embedding path); it returns how many vectors it stored.
    - ``fill_vectors(vectors)`` stores ``(item_id, vector)`` for items indexed without one (a
      write whose vector the worker embeds afterwards, ADR 0080), inside the caller's
      transaction or its own; an item gone meanwhile (forgotten, archived) or holding a vector
      already is skipped. The store must be bound to the vectors' model; returns how many it
      stored, and from then on ``vector_candidates`` finds them, on every connection.
    - ``prepare_index(texts)`` is called *before* a write transaction that will index ``texts``
      (and context rows, whose day words need the segmenter too): the adapter does then the work
      that needs no lock (loading its segmenter, segmenting), so the transaction holds the write
      lock for SQL only. A hint: results are the same without it (ADR 0024).
    """

    def prepare_index(self, texts: Sequence[str]) -> None: ...

    def text_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]: ...

    def context_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]: ...

    def speakers(self, namespace: str) -> frozenset[str]: ...

    def sessions_of(self, event_ids: Sequence[str]) -> dict[str, str]: ...

    def vector_candidates(self, namespace: str, vector: bytes, limit: int) -> list[Candidate]: ...

    def vector_search(self, namespace: str, limit: int) -> Callable[[bytes], list[Candidate]] | None: ...

    def visible(self, ids: Sequence[str], valid_at: datetime, known_at: datetime) -> set[str]: ...

    def vector_model(self) -> tuple[str, int] | None: ...

    def bind_vector_model(self, model_id: str, dim: int) -> None: ...

    def items(self) -> Iterator[tuple[str, str]]: ...

    def replace_vectors(self, model_id: str, dim: int, vectors: Sequence[tuple[str, bytes]]) -> int: ...

    def fill_vectors(self, vectors: Sequence[tuple[str, bytes]]) -> int: ...
