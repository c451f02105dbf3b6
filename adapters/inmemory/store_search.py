"""The search index of :class:`~hlmem.adapters.inmemory.store.InMemoryStorage` (SearchIndex): a mix-in.

Full text is a small BM25 over the items' tokens (:mod:`.index`), context pairs are built at query
time, and vectors are searched by an exact numpy scan.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import datetime

import numpy as np

from hlmem.adapters.inmemory.index import IndexedItem, bm25
from hlmem.adapters.inmemory.journal import Journal
from hlmem.adapters.text.segment import index_text, prepare
from hlmem.application.indexing import context_text
from hlmem.application.ports import Candidate, IndexEntry
from hlmem.domain.errors import ModelMismatch, StorageError
from hlmem.domain.events import DomainEvent
from hlmem.domain.queries import holds
from hlmem.domain.derived import index_namespace
from hlmem.domain.reducers import DERIVED, item_kind
from hlmem.domain.state import ClaimState, ClaimStatus, ObservationState


class InMemorySearch:
    """SearchIndex over the store's items, its projection, metadata and ``transaction()``."""

    # Set by InMemoryStorage.__init__.
    _claims: dict[str, ClaimState]
    _observations: dict[str, ObservationState]
    _items: dict[str, IndexedItem]
    _journal: Journal
    _meta: dict[str, str]

    def _index(self, event: DomainEvent, entry: IndexEntry) -> None:
        """Index the item ``event`` creates (``append`` calls it, :mod:`.store_log`), journaled."""
        vector = None
        if entry.vector is not None:
            model = self.vector_model()
            if model is None:
                raise StorageError("bind_vector_model() must be called before storing vectors")
            if len(entry.vector) != model[1] * 4:
                raise StorageError(f"vector of {len(entry.vector)} bytes does not fit {model[1]}-d float32")
            vector = np.frombuffer(entry.vector, dtype=np.float32)
        kind = item_kind(event.stream_id)
        tokens = tuple(index_text(entry.text).split())
        namespace = index_namespace(event.namespace) if kind == DERIVED else event.namespace
        item = IndexedItem(event.stream_id, kind, namespace, tokens, vector)
        self._journal.set(self._items, event.stream_id, item)

    def _searchable(self, namespace: str) -> list[IndexedItem]:
        out = []
        for item in self._items.values():
            if item.namespace != namespace:
                continue
            if item.kind == "claim" and self._claims[item.item_id].status is ClaimStatus.FORGOTTEN:
                continue
            if item.kind == "event" and self._observations[item.item_id].forgotten:
                continue
            out.append(item)
        return out

    def text_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]:
        items = self._searchable(namespace)
        return bm25(query, items, {i.item_id: i.tokens for i in items}, limit, exact=True)

    def context_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]:
        # Pairs of consecutive turns, computed at query time (the SQLite adapter keeps them indexed);
        # an event scores as its best pair.
        searchable = {i.item_id: i for i in self._searchable(namespace) if i.kind == "event"}
        sessions: dict[str, list[ObservationState]] = {}
        for obs in self._observations.values():
            if obs.event_id in searchable:
                sessions.setdefault(obs.session_id, []).append(obs)
        pairs: list[tuple[ObservationState, ...]] = []
        for turns in sessions.values():
            turns.sort(key=lambda o: (o.recorded_at, o.event_id))
            pairs += list(zip(turns, turns[1:])) if len(turns) > 1 else [(turns[0],)]
        docs = [IndexedItem(str(n), "pair", namespace, tuple(index_text(context_text(*p)).split()), None)
                for n, p in enumerate(pairs)]
        best: dict[str, Candidate] = {}
        for hit in bm25(query, docs, {d.item_id: d.tokens for d in docs}, len(docs), exact=False):
            for obs in pairs[int(hit.item_id)]:
                best.setdefault(obs.event_id, hit)
        ranked = sorted(best.items(), key=lambda kv: (kv[1].rank, kv[0]))[:max(limit, 0)]
        return [Candidate(event_id, "event", r, hit.score, False) for r, (event_id, hit) in enumerate(ranked, start=1)]

    def sessions_of(self, event_ids: Sequence[str]) -> dict[str, str]:
        return {i: self._observations[i].session_id for i in event_ids if i in self._observations}

    def speakers(self, namespace: str) -> frozenset[str]:
        return frozenset(o.role for o in self._observations.values() if o.namespace == namespace and not o.forgotten)

    def vector_candidates(self, namespace: str, vector: bytes, limit: int) -> list[Candidate]:
        search = self.vector_search(namespace, limit)
        return [] if search is None else search(vector)

    def vector_search(self, namespace: str, limit: int) -> Callable[[bytes], list[Candidate]] | None:
        model = self.vector_model()
        if model is None:
            return None
        # The searchable items as they are now: the search may run in another thread while writes go on.
        items = [i for i in self._searchable(namespace) if i.vector is not None]

        def search(vector: bytes) -> list[Candidate]:
            query = np.frombuffer(vector, dtype=np.float32)
            if query.shape != (model[1],):
                raise ModelMismatch(f"query vector has {query.size} dimensions; the store's model has {model[1]}")
            if not items or limit <= 0:
                return []
            scores = np.stack([i.vector for i in items]) @ query
            order = np.argsort(-scores, kind="stable")[:limit]
            return [Candidate(items[j].item_id, items[j].kind, r, float(scores[j]))
                    for r, j in enumerate(order, start=1)]

        return search

    def visible(self, ids: Sequence[str], valid_at: datetime, known_at: datetime) -> set[str]:
        out = set()
        for item_id in ids:
            claim = self._claims.get(item_id)
            if claim is not None and holds(claim, valid_at, known_at):
                out.add(item_id)
            obs = self._observations.get(item_id)
            if obs is not None and not obs.forgotten and obs.recorded_at <= known_at and obs.occurred_at <= valid_at:
                out.add(item_id)
        return out

    def vector_model(self) -> tuple[str, int] | None:
        if "vector_model" not in self._meta:
            return None
        return self._meta["vector_model"], int(self._meta["vector_dim"])

    def prepare_index(self, texts: Sequence[str]) -> None:
        """Segment ``texts`` ahead of the write that indexes them (the same segmenter as SQLite's)."""
        prepare(texts)

    def bind_vector_model(self, model_id: str, dim: int) -> None:
        current = self.vector_model()
        if current is None:
            self._meta.update(vector_model=model_id, vector_dim=str(dim))
        elif current != (model_id, dim):
            raise ModelMismatch(f"this store's vectors were made by {current[0]} ({current[1]}-d), not {model_id}")

    def items(self) -> Iterator[tuple[str, str]]:
        for item in list(self._items.values()):
            if item.kind == "claim" and self._claims[item.item_id].status is ClaimStatus.FORGOTTEN:
                continue
            if item.kind == "event" and self._observations[item.item_id].forgotten:
                continue
            yield item.item_id, item.kind

    def fill_vectors(self, vectors: Sequence[tuple[str, bytes]]) -> int:
        model = self.vector_model()
        if model is None:
            raise StorageError("no embedding model is bound to this store: nothing to fill vectors for")
        for _, vec in vectors:
            if len(vec) != model[1] * 4:
                raise StorageError(f"vector of {len(vec)} bytes does not fit {model[1]}-d float32")
        stored = 0
        with self.transaction():
            for item_id, vec in vectors:
                item = self._items.get(item_id)
                if item is None or item.vector is not None:
                    continue
                self._journal.set(self._items, item_id, IndexedItem(
                    item.item_id, item.kind, item.namespace, item.tokens, np.frombuffer(vec, dtype=np.float32)))
                stored += 1
        return stored

    def replace_vectors(self, model_id: str, dim: int, vectors: Sequence[tuple[str, bytes]]) -> int:
        new = dict(vectors)
        for vec in new.values():
            if len(vec) != dim * 4:
                raise StorageError(f"vector of {len(vec)} bytes does not fit {dim}-d float32")
        with self.transaction():
            for item_id, item in list(self._items.items()):
                vec = new.get(item_id)
                self._journal.set(self._items, item_id, IndexedItem(
                    item.item_id, item.kind, item.namespace, item.tokens,
                    None if vec is None else np.frombuffer(vec, dtype=np.float32)))
            self._meta.update(vector_model=model_id, vector_dim=str(dim))
        return sum(1 for i in self._items.values() if i.vector is not None)
