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
from hlmem.domain.state import ClaimState, ConflictState, ObservationState

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
    - ``read_stored`` yields what ``read`` does, each with its payload as the adapter stored it
      (an opaque text) or None when it has none to give (erased, upcast on reading, or an
      adapter that serialises nothing). ``append_copies(events, index, payloads)`` is ``append``
      for events copied from another log, with those texts by event id: an adapter that stores
      payloads the same way may keep them verbatim instead of encoding each event again (it must
      store exactly what encoding would); others ignore them. Replay uses the pair.
    - ``stream_versions()`` maps every stream in the log to its last version (what
      ``stream_version`` gives for each, in one call).
    - ``projection_fingerprints(stream_ids)`` gives, for each listed claim, observation or
      conflict the projections hold, a value that equals another store's value for that stream
      only if the two projected states are equal (values of two different adapters need never
      be equal). It is a cheap pre-check: replay decodes and compares the states only of the
      streams whose fingerprints differ.
    """

    def append(self, events: Sequence[DomainEvent], index: Mapping[str, IndexEntry] | None = None) -> int: ...

    def read(self, after: int = 0, limit: int | None = None) -> Iterator[StoredEvent]: ...

    def read_stored(self, after: int = 0, limit: int | None = None) -> Iterator[tuple[StoredEvent, str | None]]: ...

    def append_copies(self, events: Sequence[DomainEvent], index: Mapping[str, IndexEntry] | None = None,
                      payloads: Mapping[str, str | None] | None = None) -> int: ...

    def last_position(self) -> int: ...

    def stream_version(self, stream_id: str) -> int: ...

    def stream_versions(self) -> dict[str, int]: ...

    def projection_fingerprints(self, stream_ids: Sequence[str]) -> dict[str, object]: ...


@runtime_checkable
class ClaimReader(Protocol):
    """Projection queries: states of claims and observations as the reducers define them."""

    def get_claims(self, ids: Sequence[str]) -> dict[str, ClaimState]: ...

    def get_observations(self, ids: Sequence[str]) -> dict[str, ObservationState]: ...

    def slot_claims(self, slot_key: str) -> list[ClaimState]: ...

    def slots_claims(self, slot_keys: Sequence[str]) -> dict[str, list[ClaimState]]: ...

    def subject_claims(self, namespace: str, subject: str, predicate: str | None = None) -> list[ClaimState]: ...

    def claims_citing(self, event_id: str) -> list[str]: ...

    def counts(self) -> dict[str, int]: ...

    def get_conflicts(self, ids: Sequence[str]) -> dict[str, ConflictState]: ...

    def conflicts(self, namespace: str, status: str | None = "open") -> list[ConflictState]: ...


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

    Contract (the OpenAI-compatible adapter is :mod:`hlmem.adapters.llm.openai_compat`, ADR 0010):
    - ``model_id`` names the provider and model (``"dashscope:qwen-plus"``); extractors put it in
      ``CandidateClaim.extractor``.
    - ``complete_json(system, user, schema, *, operation, job_id=None)`` returns the one JSON
      object the model produced. The schema reaches the model (as a JSON-schema response format
      where the provider supports it, else in the system message); the adapter checks only that
      the answer is a JSON object — the caller's parser validates it against ``schema`` strictly.
    - It raises only :class:`hlmem.domain.errors.ProviderError` subclasses: ``ProviderTimeout``,
      ``ProviderRateLimited``, ``ProviderUnavailable`` (after the adapter's own retries),
      ``ProviderRejected`` (4xx, never retried), ``MalformedResponse`` (``raw`` keeps the text).
    - Every HTTP attempt is accounted (ledger: provider, model, ``operation``, ``job_id``, tokens,
      latency, status, error class). The API key is never logged, recorded or put in an error.
    - Blocking; safe to call from one thread at a time per instance.
    """

    @property
    def model_id(self) -> str: ...

    def complete_json(
        self, system: str, user: str, schema: Mapping[str, Any], *, operation: str, job_id: str | None = None
    ) -> dict[str, Any]: ...


@runtime_checkable
class Reranker(Protocol):
    """Reorders candidate texts for a query.

    Contract: ``rerank(query, texts)`` returns one relevance score per text, in input order
    (higher is better); on failure it raises, and recall falls back to the fused order.
    """

    @property
    def model_id(self) -> str: ...

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]: ...


# --- durable jobs ----------------------------------------------------------------------------------


@frozen
class Job:
    """A unit of background work (today: extracting claims from one observation)."""

    job_id: str
    kind: str
    idempotency_key: str
    namespace: str
    session_id: str
    payload: Mapping[str, Any]
    state: str  # pending | running | succeeded | failed | dead
    attempts: int
    max_attempts: int
    available_at: datetime
    created_at: datetime
    updated_at: datetime
    lease_owner: str | None = None
    lease_until: datetime | None = None
    last_error: str | None = None
    last_error_class: str | None = None


@runtime_checkable
class JobQueue(Protocol):
    """Durable jobs with leases, in the same store (and transaction) as the events they serve.

    Contract:
    - ``enqueue`` inside ``Storage.transaction()`` commits with the event it serves; the same
      ``idempotency_key`` twice gives the existing job (no duplicate).
    - ``claim_window`` leases up to ``size`` ready jobs of *one* (namespace, session, kind):
      ready = pending, or failed whose backoff has passed, or running whose lease expired (a
      crashed worker's job). A window is ready when it holds ``size`` jobs or its oldest job
      waited ``max_wait``; ``flush=True`` takes partial windows at once; ``namespace`` and
      ``session_id`` restrict the choice to one session. Attempts are counted at claim time.
      Returns ``[]`` when nothing is ready.
    - ``complete`` marks jobs succeeded only if ``owner`` still holds their lease (else
      :class:`ConcurrencyConflict`): call it inside the transaction that writes the results,
      so a retried job never writes twice.
    - ``fail`` records the error; the job goes back to ``failed`` with ``retry_at``, or to
      ``dead`` when its attempts are used up.
    """

    def enqueue(self, *, kind: str, idempotency_key: str, namespace: str, session_id: str,
                payload: Mapping[str, Any], now: datetime, max_attempts: int = 5) -> str: ...

    def claim_window(self, *, kind: str, owner: str, now: datetime, lease_seconds: float, size: int,
                     max_wait_seconds: float, flush: bool = False, namespace: str | None = None,
                     session_id: str | None = None) -> list[Job]: ...

    def complete(self, job_ids: Sequence[str], *, owner: str, now: datetime) -> None: ...

    def fail(self, job_ids: Sequence[str], *, owner: str, now: datetime, error: str, error_class: str,
             retry_at: datetime | None, raw_response: str | None = None) -> None: ...

    def retry(self, job_id: str, *, now: datetime) -> None: ...

    def jobs(self, *, state: str | None = None, limit: int = 100) -> list[Job]: ...

    def job_counts(self) -> dict[str, dict[str, int]]: ...
