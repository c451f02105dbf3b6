"""Ports: the Protocols the application depends on. Adapters implement them; nothing here does I/O.

Every port states its contract in its docstring: ordering, idempotency and the errors it raises
(all rooted in :class:`hlmem.application.errors.HlmemError`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from attrs import frozen

from hlmem.domain.events import DomainEvent
from hlmem.domain.lifecycle import Activity, LifecyclePolicy
from hlmem.domain.redaction import Tombstone
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
    - ``read_types(types, after=0, before=None, limit=None, newest_first=False)`` yields what
      ``read`` yields, restricted to events whose class is one of ``types`` and to positions
      strictly between ``after`` and ``before``, in log order or newest first; at most
      ``limit``. The audit reads governance events this way.
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

    def read_types(self, types: Collection[type[DomainEvent]], *, after: int = 0, before: int | None = None,
                   limit: int | None = None, newest_first: bool = False) -> Iterator[StoredEvent]: ...

    def last_position(self) -> int: ...

    def stream_version(self, stream_id: str) -> int: ...

    def stream_versions(self) -> dict[str, int]: ...

    def projection_fingerprints(self, stream_ids: Sequence[str]) -> dict[str, object]: ...


@runtime_checkable
class StoreIdentity(Protocol):
    """Which store this is.

    Contract: ``store_id()`` returns the same random id for the life of the store (made once,
    with the store). A store, its backups and what is restored from them share the id, so
    restore can tell a backup of this store from another's; stores created apart never do.
    """

    def store_id(self) -> str: ...


@runtime_checkable
class ClaimReader(Protocol):
    """Projection queries: states of claims and observations as the reducers define them.

    Contract: ``get_observations`` returns a forgotten event's tombstone state
    (``forgotten=True``), never drops it, and leaves out only ids that name no event: writes
    tell forgotten evidence from unknown evidence by it (``domain/evidence.py``).
    """

    def get_claims(self, ids: Sequence[str]) -> dict[str, ClaimState]: ...

    def get_observations(self, ids: Sequence[str]) -> dict[str, ObservationState]: ...

    def slot_claims(self, slot_key: str) -> list[ClaimState]: ...

    def slots_claims(self, slot_keys: Sequence[str]) -> dict[str, list[ClaimState]]: ...

    def subject_claims(self, namespace: str, subject: str, predicate: str | None = None) -> list[ClaimState]: ...

    def stored_subjects(self, namespace: str, subjects: Sequence[str]) -> set[str]:
        """Those of ``subjects`` that some claim of ``namespace`` is about (matched as ``subject_claims``
        matches), in one read: ``s in stored_subjects(ns, [s])`` iff ``subject_claims(ns, s)`` is not empty."""
        ...

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


@runtime_checkable
class ForgetQueries(Protocol):
    """The look-ups a forget plans with (:mod:`hlmem.application.forgetting`).

    Contract:
    - ``session_events(namespace, session_id)`` lists the ids of every event of the session,
      forgotten ones included, oldest first.
    - ``events_mentioning(namespace, name)`` and ``claims_mentioning(namespace, name)`` list the
      not-forgotten events whose text, and claims whose subject, value or qualifiers, mention
      ``name`` exactly as :func:`hlmem.domain.forgetting.mentions` decides (a full scan is fine:
      forgetting is rare).
    - ``extractions_citing(event_ids)`` lists the extraction-record streams (``ex_…``) whose
      ``source_events`` include any of ``event_ids``.
    - ``indexed(ids)`` maps each id the search index holds to ``(has_text_row, has_vector)``.
    """

    def session_events(self, namespace: str, session_id: str) -> list[str]: ...

    def sessions_events(self, namespace: str, session_ids: Sequence[str]) -> dict[str, list[str]]:
        """``session_events`` of each of ``session_ids`` in one read (recall's neighbour turns)."""
        ...

    def events_mentioning(self, namespace: str, name: str) -> list[str]: ...

    def claims_mentioning(self, namespace: str, name: str) -> list[str]: ...

    def extractions_citing(self, event_ids: Sequence[str]) -> list[str]: ...

    def indexed(self, ids: Sequence[str]) -> dict[str, tuple[bool, bool]]: ...


@runtime_checkable
class Erasure(Protocol):
    """The one audited path that removes forgotten content from a store (ADR 0014).

    Contract:
    - ``erase_payloads(stream_ids, reason=, at=)`` replaces the payload of every event of those
      streams that holds content with :func:`hlmem.domain.redaction.redact` of it, recording each
      erasure (position, time, reason); envelopes and order stay. Idempotent: an erased payload is
      not erased again. Returns how many payloads it erased. Call inside ``transaction()``.
    - ``drop_cached_vectors(texts)`` deletes the embedding-cache entries of those texts (as they
      were embedded, for every model and role); returns how many it deleted.
    - ``scrub_jobs(event_ids, fragments)`` blanks what job rows may hold of forgotten content: the
      error text and raw provider response of jobs serving ``event_ids`` and of any job whose
      error or raw response contains one of ``fragments``. Job ids, kinds and states stay.
      Returns how many jobs it changed.
    - ``mark_erasure_pending(forget_id)`` records, inside the forget's transaction, that its erased
      bytes may remain on disk until a ``compact_erased()`` completes (so a crash between the
      commit and the compaction is finished later too); ``pending_erasure()`` returns the id of
      the last forget so recorded, or None.
    - ``compact_erased()`` runs after the forget's transaction commits and makes the erased bytes
      unreachable on disk (SQLite: secure delete is on, the full-text index is optimised, the
      query-planner samples are refreshed and the WAL is checkpointed and truncated); it returns
      what it did, by name, with ``pending`` 1 when another connection kept it from completing
      (then the record stays, and a later call — the next open, the worker, maintenance —
      finishes it and clears the record). In-memory stores have nothing to compact.
    """

    def erase_payloads(self, stream_ids: Sequence[str], *, reason: str, at: datetime) -> int: ...

    def drop_cached_vectors(self, texts: Sequence[str]) -> int: ...

    def scrub_jobs(self, event_ids: Sequence[str], fragments: Sequence[str]) -> int: ...

    def mark_erasure_pending(self, forget_id: str) -> None: ...

    def pending_erasure(self) -> str | None: ...

    def compact_erased(self) -> dict[str, int]: ...


@runtime_checkable
class TombstoneLedger(Protocol):
    """Fingerprints of forgotten content (salted; never the text), kept so nothing comes back.

    Contract:
    - ``salt()`` is this store's secret: 32 random bytes, created once, kept in the store (a
      backup carries it), the same on every call.
    - ``add(tombstones)`` records rows; adding a row already held is a no-op. Inside a store
      transaction it commits (or rolls back) with it.
    - ``tombstones()`` lists every row, oldest first; ``matching(fingerprints)`` returns the
      given fingerprints that some row holds (the empty fingerprint never matches);
      ``of_streams(ids)`` maps each listed stream id that has a row to its first row.
    """

    def salt(self) -> bytes: ...

    def tombstones(self) -> list[Tombstone]: ...

    def add(self, tombstones: Sequence[Tombstone]) -> None: ...

    def matching(self, fingerprints: Collection[str]) -> set[str]: ...

    def of_streams(self, stream_ids: Sequence[str]) -> dict[str, Tombstone]: ...


@runtime_checkable
class ActivityLog(Protocol):
    """Access telemetry and lifecycle look-ups (ADR 0015). Not in the event log: recall reads
    claims on every call, and an event per read would make every read a durable write.

    Contract:
    - ``record_access(claim_ids, at)`` counts one access of each distinct id at ``at`` (unknown
      ids are ignored). It never raises for a busy store: an adapter may buffer accesses in
      memory and write them later (SQLite: within 5 minutes or 4,096 claims, and at ``close()``),
      so a crash may lose the last few; ``activity`` always includes what this object recorded.
    - ``activity(claim_ids)`` maps each id with recorded accesses to its
      :class:`~hlmem.domain.lifecycle.Activity` (last access, access count; feedback counts are
      the claim state's, not here).
    - ``lifecycle_candidates(kind, now=, policy=, after=, limit=)`` returns, in id order and
      after ``after``, at most ``limit`` claim ids that *may* be due at ``now`` under ``policy``:
      ``kind="expire"`` active claims whose expiry (:func:`~hlmem.domain.lifecycle.expiry_of`)
      has passed; ``kind="archive"`` claims neither archived nor forgotten whose
      :func:`~hlmem.domain.lifecycle.archive_at` has passed. Every due claim is included (a
      superset is allowed: the caller decides with the pure functions); the selection must not
      load every claim (SQLite filters with indexes).
    - ``archived_candidates(namespace, query, limit)`` finds archived (not forgotten) claims of
      ``namespace`` whose subject, predicate, value or qualifier values contain the query's
      terms, best first (``kind="claim"``); the slow, opt-in path of ``include_archived``.
    - ``meta(key)`` / ``set_meta(key, value)`` read and write a small value kept with the store
      (maintenance keeps its cursor there).
    """

    def record_access(self, claim_ids: Sequence[str], at: datetime) -> None: ...

    def activity(self, claim_ids: Sequence[str]) -> dict[str, Activity]: ...

    def lifecycle_candidates(self, kind: str, *, now: datetime, policy: LifecyclePolicy, after: str = "",
                             limit: int = 500) -> list[str]: ...

    def archived_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]: ...

    def meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...


@runtime_checkable
class Storage(EventLog, ClaimReader, SearchIndex, ForgetQueries, Erasure, ActivityLog, Protocol):
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
      crashed worker's job). A window is ready when it holds ``size`` jobs, its newest job is
      ``idle_seconds`` old (the session paused; None: never by idleness), or its oldest job
      waited ``max_wait_seconds`` (ADR 0013); ``flush=True`` takes partial windows at once; ``namespace`` and
      ``session_id`` restrict the choice to one session. Attempts are counted at claim time.
      Returns ``[]`` when nothing is ready.
    - ``complete`` marks jobs succeeded only if ``owner`` still holds their lease (else
      :class:`ConcurrencyConflict`): call it inside the transaction that writes the results,
      so a retried job never writes twice.
    - ``fail`` records the error; the job goes back to ``failed`` with ``retry_at``, or to
      ``dead`` when its attempts are used up.
    - ``prune(succeeded_before=, dead_before=, limit=, dry_run=False)`` deletes at most ``limit``
      terminal jobs last updated before the cutoffs (succeeded, dead; never pending, running or
      failed) and returns how many; ``dry_run`` only counts them (maintenance, ADR 0015).
    """

    def enqueue(self, *, kind: str, idempotency_key: str, namespace: str, session_id: str,
                payload: Mapping[str, Any], now: datetime, max_attempts: int = 5) -> str: ...

    def claim_window(self, *, kind: str, owner: str, now: datetime, lease_seconds: float, size: int,
                     max_wait_seconds: float, idle_seconds: float | None = None, flush: bool = False,
                     namespace: str | None = None, session_id: str | None = None) -> list[Job]: ...

    def complete(self, job_ids: Sequence[str], *, owner: str, now: datetime) -> None: ...

    def fail(self, job_ids: Sequence[str], *, owner: str, now: datetime, error: str, error_class: str,
             retry_at: datetime | None, raw_response: str | None = None) -> None: ...

    def retry(self, job_id: str, *, now: datetime) -> None: ...

    def jobs(self, *, state: str | None = None, limit: int = 100) -> list[Job]: ...

    def job_counts(self) -> dict[str, dict[str, int]]: ...

    def prune(self, *, succeeded_before: datetime, dead_before: datetime, limit: int,
              dry_run: bool = False) -> int: ...


@runtime_checkable
class CallLedger(Protocol):
    """The LLM-call ledger as maintenance sees it (operational rows, not the event log).

    Contract: ``prune(before=, limit=, dry_run=False)`` deletes at most ``limit`` attempt rows
    recorded before ``before``, oldest first, and returns how many; ``dry_run`` only counts them.
    """

    def prune(self, *, before: datetime, limit: int, dry_run: bool = False) -> int: ...
