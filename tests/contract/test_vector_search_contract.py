"""The SearchIndex role's contract, vector half: vector candidates, the model guard, re-embedding; once per adapter."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from hlmem.adapters.clock import FixedClock
from hlmem.adapters.embedders.hashing import HashEmbedder
from hlmem.adapters.ids import SequentialIds
from hlmem.application.ports import Candidate, IndexEntry, Storage
from hlmem.application.writes import WriteService
from hlmem.domain.commands import RecordObservation
from hlmem.domain.errors import ModelMismatch, StorageError
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

from support.store_events import obs_event
from support.stores import InMemoryStore, SQLiteStore, StoreContract
from support.stores import PostgresStore


class VectorSearchContract(StoreContract):
    """Cases every adapter's vector search must pass."""

    def test_vector_candidates_are_namespaced(self, store: Storage, vector_writes: WriteService) -> None:
        embedder = HashEmbedder(dim=64)
        mine = vector_writes.record(RecordObservation(text="dark theme in the editor")).id
        vector_writes.record(RecordObservation(text="dark theme in the editor", namespace="work"))
        other = vector_writes.record(RecordObservation(text="groceries: milk, eggs")).id
        assert store.vector_model() == (embedder.model_id, 64)
        query = embedder.embed_queries(["dark theme in the editor"])[0].astype("<f4").tobytes()
        got = store.vector_candidates("default", query, 10)
        assert [c.item_id for c in got] == [mine, other]
        assert [c.rank for c in got] == [1, 2]
        assert got[0].score == pytest.approx(1.0, abs=1e-5)
        assert [c.kind for c in got] == ["event", "event"]
        assert len(store.vector_candidates("work", query, 10)) == 1
        assert store.vector_candidates("nobody", query, 10) == []
        assert len(store.vector_candidates("default", query, 1)) == 1
        assert store.counts()["vectors"] == 3

    def test_vector_search_is_vector_candidates_in_two_steps(self, store: Storage,
                                                              vector_writes: WriteService) -> None:
        assert store.vector_search("default", 10) is None  # no vectors yet
        for text in ("dark theme in the editor", "groceries: milk, eggs", "深色主题", "flight to Hangzhou"):
            vector_writes.record(RecordObservation(text=text))
        query = HashEmbedder(dim=64).embed_queries(["dark theme"])[0].astype("<f4").tobytes()
        search = store.vector_search("default", 3)
        assert search is not None
        assert search(query) == store.vector_candidates("default", query, 3)
        assert len(search(query)) == 3
        with pytest.raises(ModelMismatch):
            search(np.ones(32, "<f4").tobytes())

    def test_a_vector_search_runs_beside_other_reads_and_writes(self, store: Storage,
                                                                vector_writes: WriteService) -> None:
        """The function ``vector_search`` returns may run in another thread while this one reads and
        writes (recall's parallel vector search, ADR 0022); it gives what a search alone gives."""
        ids = [vector_writes.record(RecordObservation(text=f"note {i} about the dark theme {i % 7}")).id
               for i in range(40)]
        embedder = HashEmbedder(dim=64)
        queries = [embedder.embed_queries([f"dark theme {i}"])[0].astype("<f4").tobytes() for i in range(7)]
        expected = [store.vector_candidates("default", q, 10) for q in queries]
        errors: list[BaseException] = []
        got: list[list[list[Candidate]]] = [[], []]

        def searching(mine: list[list[Candidate]]) -> None:
            try:
                for _ in range(30):
                    for q in queries:
                        search = store.vector_search("default", 10)
                        mine.append(search(q))
            except BaseException as exc:  # noqa: BLE001 - reported by the main thread
                errors.append(exc)

        threads = [threading.Thread(target=searching, args=(mine,)) for mine in got]
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            assert store.text_candidates("default", "dark theme", 5)
            assert store.get_observations(ids[:3])
        for t in threads:
            t.join()
        assert errors == []
        assert got == [expected * 30, expected * 30]
        # A search prepared before a write still answers, with items it knows.
        search = store.vector_search("default", 10)
        vector_writes.record(RecordObservation(text="dark theme again"))
        assert {c.item_id for c in search(queries[0])} <= {*ids, *(c.item_id for c in store.vector_candidates(
            "default", queries[0], 50))}

    def test_vector_candidates_without_a_model(self, store: Storage) -> None:
        assert store.vector_candidates("default", np.zeros(8, "<f4").tobytes(), 5) == []

    def test_vector_of_the_wrong_size(self, store: Storage, vector_writes: WriteService) -> None:
        vector_writes.record(RecordObservation(text="dark theme"))
        with pytest.raises(ModelMismatch):
            store.vector_candidates("default", np.ones(32, "<f4").tobytes(), 5)
        with pytest.raises(StorageError):
            store.append([obs_event(1)], {"ev_raw1": IndexEntry("x", np.ones(32, "<f4").tobytes())})
        assert store.get_observations(["ev_raw1"]) == {}

    def test_vectors_need_a_bound_model(self, store: Storage) -> None:
        with pytest.raises(StorageError):
            store.append([obs_event(1)], {"ev_raw1": IndexEntry("x", np.ones(4, "<f4").tobytes())})
        assert store.last_position() == 0

    def test_bind_vector_model_refuses_another_model(self, store: Storage) -> None:
        store.bind_vector_model("hash-v1-64", 64)
        store.bind_vector_model("hash-v1-64", 64)  # idempotent
        with pytest.raises(ModelMismatch):
            store.bind_vector_model("e5-small", 64)
        with pytest.raises(ModelMismatch):
            store.bind_vector_model("hash-v1-64", 128)
        assert store.vector_model() == ("hash-v1-64", 64)

    def test_writer_with_another_model_writes_nothing(self, store: Storage, vector_writes: WriteService,
                                                      clock: FixedClock) -> None:
        vector_writes.record(RecordObservation(text="dark theme"))
        other = WriteService(store, clock, SequentialIds(100), DEFAULT_REGISTRY, HashEmbedder(dim=32))
        with pytest.raises(ModelMismatch):
            other.record(RecordObservation(text="light theme"))
        assert store.last_position() == 1

    def test_replace_vectors_swaps_model_and_vectors(self, store: Storage, vector_writes: WriteService) -> None:
        ids = [vector_writes.record(RecordObservation(text=t)).id for t in ("dark theme", "light theme", "tea")]
        assert store.vector_model() == ("hash-v1-64", 64)
        new = HashEmbedder(dim=16)
        texts = {"dark theme": ids[0], "light theme": ids[1]}  # the third item gets no new vector
        matrix = new.embed_passages(list(texts))
        assert store.replace_vectors("other-16", 16, [(i, row.astype("<f4").tobytes())
                                                      for i, row in zip(texts.values(), matrix)]) == 2
        assert store.vector_model() == ("other-16", 16)
        assert store.counts()["vectors"] == 2
        query = new.embed_queries(["dark theme"])[0].astype("<f4").tobytes()
        assert [c.item_id for c in store.vector_candidates("default", query, 10)] == [ids[0], ids[1]]
        with pytest.raises(ModelMismatch):
            store.bind_vector_model("hash-v1-64", 64)

    def test_replace_vectors_refuses_the_wrong_size_and_changes_nothing(self, store: Storage,
                                                                       vector_writes: WriteService) -> None:
        item = vector_writes.record(RecordObservation(text="dark theme")).id
        with pytest.raises(StorageError):
            store.replace_vectors("other-16", 16, [(item, np.ones(8, "<f4").tobytes())])
        assert store.vector_model() == ("hash-v1-64", 64)
        assert store.counts()["vectors"] == 1

    def test_replace_vectors_counts_only_stored_vectors(self, store: Storage, vector_writes: WriteService) -> None:
        item = vector_writes.record(RecordObservation(text="dark theme")).id
        vec = np.ones(4, "<f4").tobytes()
        stored = store.replace_vectors("other-4", 4, [(item, vec), ("ev_no_such_item", vec)])
        assert stored == store.counts()["vectors"] == 1

    def test_fill_vectors_stores_what_writes_owed(self, store: Storage, vector_writes: WriteService,
                                                 clock: FixedClock) -> None:
        """``fill_vectors`` (ADR 0080): items indexed without a vector get one; an item that has
        one, or is unknown, is skipped; a vector search loaded before the fill finds them after it."""
        embedder = HashEmbedder(dim=64)
        text_only = WriteService(store, clock, SequentialIds(100), DEFAULT_REGISTRY, None)
        owed = text_only.record(RecordObservation(text="camping by the lake")).id
        had = vector_writes.record(RecordObservation(text="dark theme in the editor")).id
        query = embedder.embed_queries(["camping by the lake"])[0].astype("<f4").tobytes()
        assert [c.item_id for c in store.vector_candidates("default", query, 10)] == [had]  # loaded now
        vec = embedder.embed_passages(["camping by the lake"])[0].astype("<f4").tobytes()
        assert store.fill_vectors([(owed, vec), (had, vec), ("ev_no_such_item", vec)]) == 1
        got = store.vector_candidates("default", query, 10)
        assert [c.item_id for c in got] == [owed, had]
        assert got[0].score == pytest.approx(1.0, abs=1e-5)
        assert store.counts()["vectors"] == 2
        assert store.fill_vectors([(owed, vec)]) == 0  # once only

    def test_fill_vectors_needs_the_bound_model(self, store: Storage, clock: FixedClock) -> None:
        item = WriteService(store, clock, SequentialIds(), DEFAULT_REGISTRY, None).record(
            RecordObservation(text="tea")).id
        with pytest.raises(StorageError):
            store.fill_vectors([(item, np.ones(4, "<f4").tobytes())])  # no model bound
        store.bind_vector_model("other-4", 4)
        with pytest.raises(StorageError):
            store.fill_vectors([(item, np.ones(8, "<f4").tobytes())])  # not its dimension
        assert store.counts()["vectors"] == 0


class TestInMemoryVectorSearch(InMemoryStore, VectorSearchContract):
    pass


class TestSQLiteVectorSearch(SQLiteStore, VectorSearchContract):
    def test_fill_vectors_reach_another_connections_loaded_index(self, store: Storage, vector_writes: WriteService,
                                                                 clock: FixedClock, tmp_path) -> None:
        """Another process's vector index has loaded keys above the owed item's: the fill is logged
        (``vector_fills``) and its next search loads it, without loading everything again."""
        embedder = HashEmbedder(dim=64)
        owed = WriteService(store, clock, SequentialIds(100), DEFAULT_REGISTRY, None).record(
            RecordObservation(text="camping by the lake")).id
        had = vector_writes.record(RecordObservation(text="dark theme in the editor")).id
        other = self.make_store(tmp_path)
        try:
            query = embedder.embed_queries(["camping by the lake"])[0].astype("<f4").tobytes()
            assert [c.item_id for c in other.vector_candidates("default", query, 10)] == [had]
            vec = embedder.embed_passages(["camping by the lake"])[0].astype("<f4").tobytes()
            assert store.fill_vectors([(owed, vec)]) == 1
            assert [c.item_id for c in other.vector_candidates("default", query, 10)] == [owed, had]
        finally:
            other.close()


# --- PostgreSQL (adapters/postgres/, issue 18): the same suite on a fresh database per test ----------


class TestPostgresVectorSearch(PostgresStore, VectorSearchContract):
    pass
