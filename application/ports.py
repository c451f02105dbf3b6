"""Ports: the Protocols the application depends on. Adapters implement them; nothing here does I/O.

Every port states its contract in its docstring: ordering, idempotency and the errors it raises
(all rooted in :class:`hlmem.application.errors.HlmemError`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from attrs import frozen

from hlmem.domain.events import DomainEvent
from hlmem.domain.state import ClaimState, ObservationState

#: A float32 matrix of shape (n, dim), each row L2-normalised (a numpy array in every adapter;
#: typed loosely so that the application layer never imports numpy).
Matrix = Any


@runtime_checkable
class Clock(Protocol):
    """Supplies the current time. The domain never reads a clock itself.

    Contract: ``now()`` returns a timezone-aware UTC datetime. Successive calls never go
    backwards within one process.
    """

    def now(self) -> datetime: ...


@runtime_checkable
class IdGenerator(Protocol):
    """Makes new identifiers.

    Contract: ``new(prefix)`` returns ``prefix + "_" + 26 Crockford base-32 characters`` that are
    unique and sort by creation time within one process.
    """

    def new(self, prefix: str) -> str: ...


@runtime_checkable
class Embedder(Protocol):
    """Turns text into unit vectors.

    Contract:
    - ``model_id`` names the model *and* its weights' version; a store remembers it and refuses
      vectors from another model (re-embedding is an explicit command).
    - ``dim`` is fixed for the life of the object.
    - ``embed_passages(texts)`` and ``embed_queries(texts)`` return a float32 matrix of shape
      ``(len(texts), dim)`` whose rows are L2-normalised, in input order; an empty input gives a
      ``(0, dim)`` matrix. Asymmetric models (e5) prefix roles; symmetric ones treat both alike.
    - Deterministic: the same text gives the same vector (up to float rounding) in one process.
    - Failures raise :class:`hlmem.application.errors.EmbedderError`.
    """

    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed_passages(self, texts: Sequence[str]) -> Matrix: ...

    def embed_queries(self, texts: Sequence[str]) -> Matrix: ...


@runtime_checkable
class EmbeddingCache(Protocol):
    """Stores vectors by (model_id, content hash) so unchanged text is never embedded twice.

    Contract: ``get_many`` returns only the hashes it holds (missing ones are absent from the
    dict); ``put_many`` is idempotent (same key, same vector); vectors are float32 bytes of the
    model's dimension.
    """

    def get_many(self, model_id: str, hashes: Sequence[str]) -> dict[str, bytes]: ...

    def put_many(self, model_id: str, items: Sequence[tuple[str, bytes]]) -> None: ...


# --- storage ------------------------------------------------------------------------------------


@frozen
class StoredEvent:
    """An event with its global position in the log (1, 2, 3, … in append order)."""

    position: int
    event: DomainEvent


@frozen
class IndexEntry:
    """What to index for one claim or observation: its search text and, optionally, its vector.

    ``vector`` is float32 bytes of the store's embedding model, or None to index text only.
    """

    text: str
    vector: bytes | None = None


@frozen
class Candidate:
    """A search hit before fusion: ``kind`` is ``"claim"`` or ``"event"``; rank starts at 1."""

    item_id: str
    kind: str
    rank: int
    score: float


@runtime_checkable
class EventLog(Protocol):
    """The append-only log and the projections it drives.

    Contract:
    - ``append`` writes the events, in order, *and* applies them to every projection and index
      in one atomic transaction: after a crash there is never a half-applied event.
    - Each event's ``version`` must be its stream's last version + 1 (1 for a new stream);
      otherwise nothing is written and :class:`ConcurrencyConflict` is raised.
    - Events are never updated or deleted (the database refuses it where it can).
    - ``read`` yields events in append order, positions strictly increasing from 1.
    """

    def append(self, events: Sequence[DomainEvent], index: Mapping[str, IndexEntry] | None = None) -> int: ...

    def read(self, after: int = 0, limit: int | None = None) -> Iterator[StoredEvent]: ...

    def last_position(self) -> int: ...

    def stream_version(self, stream_id: str) -> int: ...


@runtime_checkable
class ClaimReader(Protocol):
    """Projection queries: states of claims and observations as the reducers define them."""

    def get_claims(self, ids: Sequence[str]) -> dict[str, ClaimState]: ...

    def get_observations(self, ids: Sequence[str]) -> dict[str, ObservationState]: ...

    def slot_claims(self, slot_key: str) -> list[ClaimState]: ...

    def subject_claims(self, namespace: str, subject: str, predicate: str | None = None) -> list[ClaimState]: ...

    def claims_citing(self, event_id: str) -> list[str]: ...

    def counts(self) -> dict[str, int]: ...


@runtime_checkable
class SearchIndex(Protocol):
    """Candidate generation for recall, and the vector model guard.

    Contract:
    - ``text_candidates`` takes the user's raw query; the adapter segments it (Chinese-aware)
      and can never raise on query syntax. Best first, at most ``limit``.
    - ``vector_candidates`` takes one float32 query vector (bytes) of the store's model.
    - Candidates are restricted to ``namespace`` and to items not forgotten; visibility in time
      is checked separately with ``visible``.
    - ``visible(ids, valid_at, known_at)`` keeps the claim ids that held at ``valid_at`` as known
      at ``known_at`` and the event ids recorded by ``known_at``.
    - ``vector_model()`` is the ``(model_id, dim)`` that made the stored vectors (None if none
      yet); ``bind_vector_model`` records it once and raises :class:`ModelMismatch` on another.
    - ``items()`` yields ``(item_id, kind)`` of every searchable, not forgotten item.
    - ``replace_vectors`` swaps every vector and the model binding in one transaction (the
      explicit re-embedding path); it returns how many vectors it stored.
    """

    def text_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]: ...

    def vector_candidates(self, namespace: str, vector: bytes, limit: int) -> list[Candidate]: ...

    def visible(self, ids: Sequence[str], valid_at: datetime, known_at: datetime) -> set[str]: ...

    def vector_model(self) -> tuple[str, int] | None: ...

    def bind_vector_model(self, model_id: str, dim: int) -> None: ...

    def items(self) -> Iterator[tuple[str, str]]: ...

    def replace_vectors(self, model_id: str, dim: int, vectors: Sequence[tuple[str, bytes]]) -> int: ...


@runtime_checkable
class Storage(EventLog, ClaimReader, SearchIndex, Protocol):
    """The whole storage port, with a write transaction that serialises decide-then-append.

    ``transaction()`` is re-entrant within one thread; reads inside it see its own writes.
    """

    def transaction(self) -> AbstractContextManager[None]: ...

    def close(self) -> None: ...


# --- model providers the write pipeline and recall quality work plug in --------------------------


@runtime_checkable
class LLM(Protocol):
    """Structured completion: a prompt and a JSON schema in, one JSON object out.

    Contract (implemented by the write-pipeline work; declared here so the core does not change):
    - ``complete_json(system, user, schema, *, operation)`` returns a dict that validates against
      ``schema`` or raises :class:`hlmem.domain.errors.HlmemError` subclasses (provider errors);
    - it never logs or returns the API key; every call is accounted by the adapter (ledger).
    """

    @property
    def model_id(self) -> str: ...

    def complete_json(self, system: str, user: str, schema: Mapping[str, Any], *, operation: str) -> dict[str, Any]: ...


@runtime_checkable
class Reranker(Protocol):
    """Reorders candidate texts for a query.

    Contract: ``rerank(query, texts)`` returns one relevance score per text, in input order
    (higher is better); on failure it raises, and recall falls back to the fused order.
    """

    @property
    def model_id(self) -> str: ...

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]: ...
