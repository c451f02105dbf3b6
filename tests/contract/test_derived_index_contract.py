"""Derived items in the search index (ADR 0084), once per adapter: a current item is searchable by
full text and vector (kind ``derived``); a rebuild replaces its row in the same transaction; going
stale, being removed or forgotten takes it out; the worker's ``fill_vectors`` and replay treat it
as they treat claims.

One suite, subclassed once per adapter (style guide item 18, ADR 0028).
"""

from __future__ import annotations

import numpy as np

from hlmem.adapters.ids import SequentialIds
from hlmem.application.derived import DerivedService
from hlmem.application.derived_guard import guarded
from hlmem.application.indexing import derived_text
from hlmem.application.ports import IndexEntry
from hlmem.application.replay import ReplayService
from hlmem.application.writes import WriteService
from hlmem.domain.commands import AssertClaim
from hlmem.domain.derived import MENTAL_MODEL, OBSERVATION_SUMMARY, index_namespace
from hlmem.domain.events import (ClaimAsserted, DerivedBecameStale, DerivedBuilt, DerivedRebuilt, DerivedRemoved,
                                 ItemForgotten)
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

from support.stores import T0, InMemoryStore, PostgresStore, SQLiteStore, StoreContract

MODEL = ("test-model", 4)


def claim(n: int, value: str = "dark") -> ClaimAsserted:
    return ClaimAsserted(event_id=f"lg_c{n}", stream_id=f"cl_{n}", version=1, recorded_at=T0, namespace="default",
                         subject="Bob", predicate="likes", value=value, valid_from=T0)


def build(n: int, text: str, *, version: int = 1, kind: str = OBSERVATION_SUMMARY,
          sources: tuple[tuple[str, int], ...] = (("cl_1", 1), ("cl_2", 1))) -> DerivedBuilt:
    cls = DerivedBuilt if version == 1 else DerivedRebuilt
    return cls(event_id=f"lg_d{n}_{version}", stream_id=f"dv_{n}", version=version, recorded_at=T0,
               namespace="default", kind=kind, subject="Bob", family="preferences", label="preferences", text=text,
               language="en", sources=sources, watermark=2, builder="rules")


def entry(event: DerivedBuilt, vector: bytes | None = None) -> dict[str, IndexEntry]:
    return {event.stream_id: IndexEntry(derived_text(event.kind, event.subject, event.label, event.text), vector)}


def vec(*values: float) -> bytes:
    return np.array(values, dtype="<f4").tobytes()


#: Where the default namespace's derived items are searched (ADR 0084).
DNS = index_namespace("default")


def hits(store, query: str, namespace: str = DNS) -> list[tuple[str, str]]:
    return [(c.item_id, c.kind) for c in store.text_candidates(namespace, query, 10)]


class DerivedIndexContract(StoreContract):
    """Cases every adapter's search index must pass for derived items."""

    def test_a_built_item_is_found_by_full_text_as_kind_derived(self, store) -> None:
        first = build(3, "Bob likes marzipan and zither music")
        store.append([claim(1, "zither"), claim(2), first], entry(first))
        assert hits(store, "zither") == [("dv_3", "derived")]
        assert ("dv_3", "derived") in set(store.items())

    def test_claims_and_events_are_searched_apart_from_derived_items(self, store) -> None:
        """The namespace's own searches never see a derived item, nor count its words (bm25)."""
        store.bind_vector_model(*MODEL)
        store.append([claim(1, "zither"), claim(2)], {"cl_1": IndexEntry("Bob likes zither", vec(1, 0, 0, 0)),
                                                      "cl_2": IndexEntry("Bob likes dark", vec(0, 1, 0, 0))})
        before = store.text_candidates("default", "Bob zither", 10)
        first = build(3, "Bob likes zither zither zither")
        store.append([first], entry(first, vec(1, 0, 0, 0)))
        assert store.text_candidates("default", "Bob zither", 10) == before
        assert [c.item_id for c in store.vector_candidates("default", vec(1, 0, 0, 0), 10)] == ["cl_1", "cl_2"]
        assert hits(store, "zither", "work") == [] and hits(store, "zither", index_namespace("work")) == []

    def test_chinese_text_is_segmented_as_claims_are(self, store) -> None:
        first = build(3, "小明的偏好：喜欢为咖啡、茶。", kind=MENTAL_MODEL)
        store.append([claim(1), claim(2), first], entry(first))
        assert ("dv_3", "derived") in hits(store, "小明喜欢什么咖啡")
        assert ("dv_3", "derived") in hits(store, "画像")  # the kind's words, in both languages

    def test_a_rebuild_replaces_the_row_in_its_transaction(self, store) -> None:
        first = build(3, "Bob likes marzipan")
        store.append([claim(1), claim(2), first], entry(first))
        again = build(3, "Bob likes quinoa", version=2)
        store.append([again], entry(again))
        assert hits(store, "marzipan") == []
        assert ("dv_3", "derived") in hits(store, "quinoa")
        assert [i for i in store.items() if i[0] == "dv_3"] == [("dv_3", "derived")]

    def test_stale_removed_and_forgotten_items_leave_the_index(self, store) -> None:
        items = [build(n, f"Bob likes word{n}x") for n in (3, 4, 5)]
        index = {k: v for e in items for k, v in entry(e).items()}
        store.append([claim(1), claim(2), *items], index)
        store.append([DerivedBecameStale(event_id="lg_s", stream_id="dv_3", version=2, recorded_at=T0,
                                         namespace="default", reason="superseded", triggers=("cl_1",)),
                      DerivedRemoved(event_id="lg_r", stream_id="dv_4", version=2, recorded_at=T0,
                                     namespace="default", reason="too few"),
                      ItemForgotten(event_id="lg_f", stream_id="dv_5", version=2, recorded_at=T0,
                                    namespace="default", reason="its only sources were forgotten", actor="system")])
        for n in (3, 4, 5):
            assert hits(store, f"word{n}x") == []
        assert not [i for i in store.items() if i[1] == "derived"]

    def test_a_rolled_back_build_leaves_no_row(self, store) -> None:
        store.append([claim(1), claim(2)])
        first = build(3, "Bob likes marzipan")
        try:
            with store.transaction():
                store.append([first], entry(first))
                raise RuntimeError("undo")
        except RuntimeError:
            pass
        assert hits(store, "marzipan") == []

    def test_vectors_find_a_current_item_and_leave_with_it(self, store) -> None:
        store.bind_vector_model(*MODEL)
        first = build(3, "Bob likes marzipan")
        store.append([claim(1), claim(2), first], entry(first, vec(1, 0, 0, 0)))
        found = store.vector_candidates(DNS, vec(1, 0, 0, 0), 5)
        assert [(c.item_id, c.kind) for c in found] == [("dv_3", "derived")]
        again = build(3, "Bob likes quinoa", version=2)
        store.append([again], entry(again, vec(0, 1, 0, 0)))
        found = store.vector_candidates(DNS, vec(0, 1, 0, 0), 5)
        assert [(c.item_id, c.kind) for c in found] == [("dv_3", "derived")] and found[0].score > 0.99
        store.append([DerivedBecameStale(event_id="lg_s", stream_id="dv_3", version=3, recorded_at=T0,
                                         namespace="default", reason="superseded", triggers=("cl_1",))])
        assert store.vector_candidates(DNS, vec(0, 1, 0, 0), 5) == []

    def test_fill_vectors_gives_a_derived_item_its_owed_vector(self, store) -> None:
        store.bind_vector_model(*MODEL)
        first = build(3, "Bob likes marzipan")
        store.append([claim(1), claim(2), first], entry(first))
        assert store.fill_vectors([("dv_3", vec(0, 0, 1, 0))]) == 1
        assert [c.item_id for c in store.vector_candidates(DNS, vec(0, 0, 1, 0), 5)] == ["dv_3"]

    def test_builds_and_replay_index_alike(self, store, clock, tmp_path) -> None:
        ids = SequentialIds(1)
        writes = WriteService(guarded(store, ids), clock, ids, DEFAULT_REGISTRY)
        writes.remember(AssertClaim(subject="小明", predicate="likes", value="茶"))
        old = writes.remember(AssertClaim(subject="小明", predicate="likes", value="咖啡")).id
        DerivedService(store, clock, ids, DEFAULT_REGISTRY).build()
        writes.retract(old, "wrong")  # the items go stale: out of the index until rebuilt
        assert not [i for i in store.items() if i[1] == "derived"]
        writes.remember(AssertClaim(subject="小明", predicate="likes", value="可可"))
        DerivedService(store, clock, ids, DEFAULT_REGISTRY).build()
        live = sorted(i for i in store.items() if i[1] == "derived")
        assert len(live) == 2 and {h[0] for h in hits(store, "可可")} == {i for i, _ in live}
        target = self.make_store(tmp_path / "replayed")
        report = ReplayService(DEFAULT_REGISTRY).replay(store, target)
        assert report.equal, report.differences
        assert sorted(i for i in target.items() if i[1] == "derived") == live
        assert hits(target, "可可 画像") == hits(store, "可可 画像")
        target.close()


class TestInMemoryDerivedIndex(InMemoryStore, DerivedIndexContract):
    pass


class TestSQLiteDerivedIndex(SQLiteStore, DerivedIndexContract):
    pass


class TestPostgresDerivedIndex(PostgresStore, DerivedIndexContract):
    pass
