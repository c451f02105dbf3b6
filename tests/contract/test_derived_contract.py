"""The derived role's contract (ADR 0046), once per adapter: DerivedReader, and the staleness guard over it.

One suite, subclassed once per adapter (style guide item 18, ADR 0028).
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from hlmem.adapters.ids import SequentialIds
from hlmem.application.derived import DerivedService
from hlmem.application.derived_guard import DERIVE, guarded
from hlmem.application.ports import DerivedReader
from hlmem.application.replay import ReplayService
from hlmem.domain.commands import AssertClaim
from hlmem.domain.derived import MENTAL_MODEL, OBSERVATION_SUMMARY, project_derived
from hlmem.domain.events import ClaimAsserted, DerivedBecameStale, DerivedBuilt, DerivedRemoved, ItemForgotten
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY
from hlmem.application.writes import WriteService

from support.stores import T0, InMemoryStore, SQLiteStore, StoreContract


def built(n: int, sources: tuple[tuple[str, int], ...], *, subject: str = "user", kind: str = OBSERVATION_SUMMARY,
          namespace: str = "default", family: str = "preferences") -> DerivedBuilt:
    return DerivedBuilt(event_id=f"lg_d{n}", stream_id=f"dv_{n}", version=1, recorded_at=T0, namespace=namespace,
                        kind=kind, subject=subject, family=family, label="preferences", text=f"text {n} 深色",
                        language="en", sources=sources, watermark=7, builder="rules")


def claim(n: int, subject: str = "user", value: str = "dark") -> ClaimAsserted:
    return ClaimAsserted(event_id=f"lg_c{n}", stream_id=f"cl_{n}", version=1, recorded_at=T0, namespace="default",
                         subject=subject, predicate="likes", value=value, valid_from=T0)


class DerivedContract(StoreContract):
    """Cases every adapter's ``DerivedReader`` must pass."""

    def test_the_store_is_a_derived_reader(self, store) -> None:
        assert isinstance(store, DerivedReader)

    def test_get_derived_returns_the_projected_state_and_skips_other_ids(self, store) -> None:
        store.append([claim(1), claim(2), built(3, (("cl_1", 1), ("cl_2", 1)))])
        got = store.get_derived(["dv_3", "cl_1", "dv_missing"])
        assert list(got) == ["dv_3"]
        assert got["dv_3"] == project_derived([built(3, (("cl_1", 1), ("cl_2", 1)))])["dv_3"]
        assert got["dv_3"].sources == (("cl_1", 1), ("cl_2", 1)) and got["dv_3"].watermark == 7

    def test_derived_citing_finds_every_item_built_from_a_claim(self, store) -> None:
        store.append([claim(1), claim(2), claim(3), built(4, (("cl_1", 1), ("cl_2", 1))),
                      built(5, (("cl_2", 1), ("cl_3", 1)), kind=MENTAL_MODEL, family="")])
        assert sorted(store.derived_citing(["cl_2"])) == ["dv_4", "dv_5"]
        assert sorted(store.derived_citing(["cl_1", "cl_9"])) == ["dv_4"]
        assert store.derived_citing(["cl_9"]) == {}
        assert store.derived_citing([]) == {}

    def test_derived_items_filter_by_namespace_subject_and_kind(self, store) -> None:
        store.append([claim(1), built(2, (("cl_1", 1),), subject="User"),
                      built(3, (("cl_1", 1),), subject="我", kind=MENTAL_MODEL, family=""),
                      built(4, (("cl_1", 1),), subject="小明"), built(5, (("cl_1", 1),), namespace="work")])
        assert [d.derived_id for d in store.derived_items("default")] == ["dv_2", "dv_3", "dv_4"]
        # Every name of the user is one subject, as subject_claims matches it.
        assert [d.derived_id for d in store.derived_items("default", subject="user")] == ["dv_2", "dv_3"]
        assert [d.derived_id for d in store.derived_items("default", subject="user", kind=MENTAL_MODEL)] == ["dv_3"]
        assert [d.derived_id for d in store.derived_items("work")] == ["dv_5"]

    def test_stale_removed_and_forgotten_states_project_alike(self, store) -> None:
        store.append([claim(1), claim(2), built(3, (("cl_1", 1), ("cl_2", 1))), built(4, (("cl_1", 1),))])
        later = T0 + timedelta(hours=1)
        events = [
            DerivedBecameStale(event_id="lg_s1", stream_id="dv_3", version=2, recorded_at=later, namespace="default",
                               reason="forgotten", triggers=("cl_1",), scrubbed=True, dropped=("cl_1",),
                               subject="user", family="preferences", label="preferences"),
            DerivedRemoved(event_id="lg_s2", stream_id="dv_3", version=3, recorded_at=later, namespace="default",
                           reason="too few"),
            ItemForgotten(event_id="lg_s3", stream_id="dv_4", version=2, recorded_at=later, namespace="default"),
        ]
        store.append(events)
        got = store.get_derived(["dv_3", "dv_4"])
        assert got["dv_3"].status == "removed" and got["dv_3"].text == "" and got["dv_3"].sources == (("cl_2", 1),)
        assert got["dv_3"].stale_since == later
        assert got["dv_4"].status == "forgotten" and got["dv_4"].subject == "" and got["dv_4"].sources == ()
        assert store.derived_citing(["cl_1"]) == {}
        log = [s.event for s in store.read()]
        assert got == {k: v for k, v in project_derived(log).items() if k in got}
        assert store.counts()["derived"] == 2

    def test_a_rolled_back_transaction_leaves_no_derived_state(self, store) -> None:
        store.append([claim(1)])
        with pytest.raises(RuntimeError), store.transaction():
            store.append([built(2, (("cl_1", 1),))])
            raise RuntimeError("abort")
        assert store.get_derived(["dv_2"]) == {} and store.derived_citing(["cl_1"]) == {}

    def test_supersede_makes_the_item_stale_in_the_same_transaction(self, store, clock) -> None:
        ids = SequentialIds(1)
        queue = self.make_queue(store, ids.new)
        guard = guarded(store, ids, queue)
        writes = WriteService(guard, clock, ids, DEFAULT_REGISTRY)
        a = writes.remember(AssertClaim(subject="user", predicate="theme", value="dark")).id
        writes.remember(AssertClaim(subject="user", predicate="preferred_editor_theme", value="dark"))
        derived = DerivedService(store, clock, ids, DEFAULT_REGISTRY, jobs=queue)
        report = derived.build()
        assert len(report.built) == 2
        before = store.last_position()
        writes.remember(AssertClaim(subject="user", predicate="theme", value="light"))
        tail = [s.event for s in store.read(after=before)]
        stale = [e for e in tail if isinstance(e, DerivedBecameStale)]
        assert {e.stream_id for e in stale} == set(report.built)
        assert all(e.triggers == (a,) and e.reason == "superseded" for e in stale)
        assert {j.payload["derived_id"] for j in queue.jobs() if j.kind == DERIVE} == set(report.built)
        rebuilt = derived.rebuild(sorted(report.built))
        assert set(rebuilt.rebuilt) == set(report.built)
        assert all(d.status == "current" and a not in d.source_ids for d in store.get_derived(report.built).values())

    def test_replay_rebuilds_the_derived_states(self, store, clock, tmp_path) -> None:
        ids = SequentialIds(1)
        writes = WriteService(guarded(store, ids), clock, ids, DEFAULT_REGISTRY)
        writes.remember(AssertClaim(subject="小明", predicate="likes", value="茶"))
        writes.remember(AssertClaim(subject="小明", predicate="likes", value="咖啡"))
        DerivedService(store, clock, ids, DEFAULT_REGISTRY).build()
        cid = writes.remember(AssertClaim(subject="小明", predicate="hobby", value="围棋")).id
        writes.retract(cid, "wrong")
        target = self.make_store(tmp_path / "replayed")
        report = ReplayService(DEFAULT_REGISTRY).replay(store, target)
        assert report.equal, report.differences
        assert target.get_derived([d.derived_id for d in store.derived_items("default")]) == {
            d.derived_id: d for d in store.derived_items("default")}
        target.close()


class TestInMemoryDerived(InMemoryStore, DerivedContract):
    pass


class TestSQLiteDerived(SQLiteStore, DerivedContract):
    pass
