"""The ActivityLog part of the Storage port (access telemetry, lifecycle candidates), once per adapter.

Candidate selection may return claims that are not due yet (SQLite mirrors the formulas with a
little slack and without the access growth of the half-life) but must never miss a due one; the
property below checks both bounds against the pure functions of ``domain/lifecycle.py``.
"""

from __future__ import annotations

import tempfile
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path

import apsw
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hlmem.adapters.inmemory.store import InMemoryStorage
from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.application.ports import ActivityLog, IndexEntry, Storage
from hlmem.domain.errors import ValidationError
from hlmem.domain.events import ClaimArchived, ClaimAsserted, ClaimRetracted, ItemForgotten, Scope
from hlmem.domain.lifecycle import Activity, LifecyclePolicy, activity_of, archive_at, expiry_of

from support.stores import DAY, T0, InMemoryStore, SQLiteStore, StoreContract
from support.stores import PostgresStore

POLICY = LifecyclePolicy()


def asserted(n: int, *, predicate: str = "likes", value: str = "tea", scope: Scope = Scope.PERMANENT,
             importance: float = 0.5, recorded: datetime = T0, valid_from: datetime | None = None,
             valid_to: datetime | None = None, namespace: str = "default", subject: str = "user") -> ClaimAsserted:
    return ClaimAsserted(
        event_id=f"lg_a{n:05d}", stream_id=f"cl_{n:05d}", version=1, recorded_at=recorded, namespace=namespace,
        subject=subject, predicate=predicate, value=value, importance=importance, scope=scope,
        valid_from=valid_from or recorded, valid_to=valid_to,
    )


def add(store: Storage, *events: ClaimAsserted) -> None:
    store.append(list(events), {e.stream_id: IndexEntry(f"{e.subject} {e.predicate} {e.value}") for e in events})


def all_candidates(store: Storage, kind: str, now: datetime, page: int = 3) -> list[str]:
    """Every candidate, paging by id as maintenance does."""
    out: list[str] = []
    after = ""
    while True:
        got = store.lifecycle_candidates(kind, now=now, policy=POLICY, after=after, limit=page)
        assert got == sorted(got) and all(g > after for g in got)
        out += got
        if len(got) < page:
            return out
        after = got[-1]


class ActivityContract(StoreContract):
    """Cases every adapter's ActivityLog must pass. Subclasses mix in the adapter."""

    def test_satisfies_the_role(self, store: Storage) -> None:
        assert isinstance(store, ActivityLog)

    def test_accesses_count_per_call_and_keep_the_latest_time(self, store: Storage) -> None:
        add(store, asserted(1), asserted(2), asserted(3))
        assert store.activity(["cl_00001"]) == {}
        store.record_access(["cl_00001", "cl_00002", "cl_00001"], T0 + DAY)
        store.record_access(["cl_00001"], T0 + 3 * DAY)
        store.record_access(["cl_00001"], T0 + 2 * DAY)  # out of order: the latest stays
        got = store.activity(["cl_00001", "cl_00002", "cl_00003", "cl_nope"])
        assert got == {"cl_00001": Activity(T0 + 3 * DAY, 3), "cl_00002": Activity(T0 + DAY, 1)}
        store.record_access([], T0)

    def test_unknown_ids_are_ignored_and_access_is_not_an_event(self, store: Storage) -> None:
        add(store, asserted(1))
        before = (store.last_position(), store.stream_versions())
        store.record_access(["cl_ghost", "cl_00001"], T0)
        assert store.activity(["cl_ghost"]) == {}
        assert (store.last_position(), store.stream_versions()) == before

    def test_expire_candidates(self, store: Storage) -> None:
        add(store,
            asserted(1, predicate="plan", value="开会", scope=Scope.TEMPORAL, valid_from=T0 + DAY, valid_to=T0 + 2 * DAY),
            asserted(2, predicate="plan", value="dentist", valid_from=T0),          # open plan: + 1 day
            asserted(3, predicate="status", value="busy", scope=Scope.TEMPORAL),    # TTL 14 d
            asserted(4, predicate="name", value="王伟", importance=0.8),             # never
            asserted(5, predicate="lives_in", value="Paris", valid_to=T0 + 5 * DAY),
            asserted(6, predicate="plan", value="trip", valid_to=T0 + DAY))
        store.append([ClaimRetracted(event_id="lg_r6", stream_id="cl_00006", version=2, recorded_at=T0,
                                     namespace="default")])
        assert all_candidates(store, "expire", T0) == []
        assert all_candidates(store, "expire", T0 + DAY) == ["cl_00002"]
        assert all_candidates(store, "expire", T0 + 2 * DAY) == ["cl_00001", "cl_00002"]
        assert all_candidates(store, "expire", T0 + 15 * DAY) == ["cl_00001", "cl_00002", "cl_00003", "cl_00005"]
        assert store.lifecycle_candidates("expire", now=T0 + 15 * DAY, policy=POLICY, after="cl_00002",
                                          limit=1) == ["cl_00003"]

    def test_archive_candidates(self, store: Storage) -> None:
        add(store,
            asserted(1, importance=0.2),                                  # due at 90 + 14 days
            asserted(2, importance=0.05),                                 # due at 14 days
            asserted(3, predicate="name", value="王伟", importance=0.05),  # identity: never
            asserted(4, importance=0.05),                                 # archived already
            asserted(5, importance=0.05),                                 # forgotten
            asserted(6, importance=0.05, scope=Scope.TEMPORAL))
        store.append([ClaimArchived(event_id="lg_x4", stream_id="cl_00004", version=2, recorded_at=T0,
                                    namespace="default"),
                      ItemForgotten(event_id="lg_f5", stream_id="cl_00005", version=2, recorded_at=T0,
                                    namespace="default")])
        assert all_candidates(store, "archive", T0 + 13 * DAY) == []
        assert all_candidates(store, "archive", T0 + 14 * DAY) == ["cl_00002", "cl_00006"]
        assert all_candidates(store, "archive", T0 + 104 * DAY) == ["cl_00001", "cl_00002", "cl_00006"]
        # An access moves the reinforcement time.
        store.record_access(["cl_00002"], T0 + 10 * DAY)
        store.record_access(["cl_00001"], T0 + 50 * DAY)
        assert all_candidates(store, "archive", T0 + 104 * DAY) == ["cl_00002", "cl_00006"]

    def test_candidate_kind_is_checked(self, store: Storage) -> None:
        with pytest.raises(ValidationError):
            store.lifecycle_candidates("delete", now=T0, policy=POLICY)

    def test_archived_candidates_match_own_words_within_the_namespace(self, store: Storage) -> None:
        add(store, asserted(1, predicate="favorite_snack", value="Salted Pretzels"),
            asserted(2, predicate="likes", value="爬山", subject="用户"),
            asserted(3, predicate="favorite_snack", value="pretzel sticks", namespace="other"),
            asserted(4, predicate="favorite_snack", value="pretzels too"),
            asserted(5, predicate="favorite_snack", value="more pretzels"))
        events = [ClaimArchived(event_id=f"lg_x{n}", stream_id=f"cl_0000{n}", version=2, recorded_at=T0,
                                namespace="other" if n == 3 else "default") for n in (1, 2, 3, 5)]
        events.append(ItemForgotten(event_id="lg_f5", stream_id="cl_00005", version=3, recorded_at=T0,
                                    namespace="default"))
        store.append(events)
        found = store.archived_candidates("default", "favorite snack pretzels", 10)
        assert [c.item_id for c in found] == ["cl_00001"]  # not 4 (not archived), 3 (namespace), 5 (forgotten)
        assert found[0].kind == "claim" and found[0].rank == 1
        assert [c.item_id for c in store.archived_candidates("default", "我喜欢爬山吗", 10)] == ["cl_00002"]
        assert store.archived_candidates("default", "nothing here", 10) == []

    def test_meta_round_trip(self, store: Storage) -> None:
        assert store.meta("maintenance.cursor") is None
        store.set_meta("maintenance.cursor", '["archive", "cl_1"]')
        assert store.meta("maintenance.cursor") == '["archive", "cl_1"]'


class TestInMemoryActivity(InMemoryStore, ActivityContract):
    pass


class TestSQLiteActivity(SQLiteStore, ActivityContract):

    def test_accesses_survive_close_and_reopen(self, tmp_path: Path) -> None:
        store = SQLiteStorage(tmp_path / "a.db")
        add(store, asserted(1))
        store.record_access(["cl_00001"], T0 + DAY)
        store.close()
        again = SQLiteStorage(tmp_path / "a.db")
        try:
            assert again.activity(["cl_00001"]) == {"cl_00001": Activity(T0 + DAY, 1)}
        finally:
            again.close()

    def test_a_busy_store_never_blocks_access_recording(self, tmp_path: Path, monkeypatch) -> None:
        from hlmem.adapters.sqlite import activity

        monkeypatch.setattr(activity, "FLUSH_CLAIMS", 256)
        store = SQLiteStorage(tmp_path / "b.db")
        add(store, *[asserted(n) for n in range(300)])
        other = apsw.Connection(str(tmp_path / "b.db"))
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        try:
            started = time.perf_counter()
            # 300 claims: over the flush threshold, so a write is attempted and must not wait 10 s.
            store.record_access([f"cl_{n:05d}" for n in range(300)], T0 + DAY)
            assert time.perf_counter() - started < 2.0
            assert store.activity(["cl_00007"]) == {"cl_00007": Activity(T0 + DAY, 1)}
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert store.connection.execute("SELECT count(*) FROM claim_activity").fetchone()[0] == 0
        # The lock is free: the next access writes everything that waited.
        store.record_access(["cl_00007"], T0 + 2 * DAY)
        assert store.connection.execute("SELECT count(*) FROM claim_activity").fetchone()[0] == 300
        assert store.flush_activity() == 0
        assert store.activity(["cl_00007"]) == {"cl_00007": Activity(T0 + 2 * DAY, 2)}
        store.close()

    def test_recording_from_two_threads_loses_nothing(self, tmp_path: Path) -> None:
        store = SQLiteStorage(tmp_path / "t.db")
        add(store, *[asserted(n) for n in range(20)])

        def hammer(offset: int) -> None:
            for i in range(200):
                store.record_access([f"cl_{(i + offset) % 20:05d}"], T0 + timedelta(seconds=i))

        threads = [threading.Thread(target=hammer, args=(k,)) for k in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        store.flush_activity()
        got = store.activity([f"cl_{n:05d}" for n in range(20)])
        assert sum(a.accesses for a in got.values()) == 400
        store.close()

    @pytest.mark.parametrize(("kind", "index"), [("expire", "claims_lifecycle"), ("archive", "claims_lifecycle")])
    def test_candidate_selection_uses_its_partial_index(self, store: SQLiteStorage, kind: str, index: str) -> None:
        from hlmem.adapters.sqlite import activity

        sql = activity._EXPIRE if kind == "expire" else activity._ARCHIVE
        params = {"after": "", "now": 0, "slack": 0, "limit": 10, "plans": "[]", "plan_by": 0, "ttl": 1,
                  "identity": "[]", "h_temporal": 1, "h_permanent": 1, "h_identity": None, "floor": 0.1, "grace": 0}
        plan = " ".join(str(r) for r in store.connection.execute(f"EXPLAIN QUERY PLAN {sql}", params))
        assert index in plan, plan


@pytest.mark.parametrize("adapter", ["memory", "sqlite"])
@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_candidates_never_miss_a_due_claim(adapter: str, data: st.DataObject) -> None:
    """Every due claim is a candidate; an extra one is due within the slack or was accessed."""
    specs = data.draw(st.lists(st.tuples(
        st.sampled_from(["plan", "likes", "name", "status", "schedule"]),
        st.sampled_from(list(Scope)),
        st.sampled_from([0.0, 0.05, 0.1, 0.2, 1 / 3, 0.5, 0.8, 1.0]),
        st.integers(-400, 0),          # recorded, days from T0
        st.integers(-30, 30),          # valid_from offset from recorded, days
        st.one_of(st.none(), st.integers(1, 60)),  # valid_to after valid_from, days
        st.one_of(st.none(), st.tuples(st.integers(0, 400), st.integers(1, 20))),  # access: day, count
    ), min_size=1, max_size=12))
    now = T0 + timedelta(hours=data.draw(st.integers(-24, 24 * 400)))
    with tempfile.TemporaryDirectory() as tmp:
        store = InMemoryStorage() if adapter == "memory" else SQLiteStorage(Path(tmp) / "p.db")
        try:
            events = []
            for n, (pred, scope, imp, rec, vf, vt, _) in enumerate(specs):
                recorded = T0 + rec * DAY
                start = recorded + vf * DAY
                events.append(asserted(n, predicate=pred, scope=scope, importance=imp, recorded=recorded,
                                       valid_from=start, valid_to=None if vt is None else start + vt * DAY))
            add(store, *events)
            for n, spec in enumerate(specs):
                if spec[6] is not None:
                    day, count = spec[6]
                    for _ in range(count):
                        store.record_access([f"cl_{n:05d}"], T0 - 400 * DAY + day * DAY)
            claims = store.get_claims([e.stream_id for e in events])
            acts = store.activity(list(claims))
            slack = now + timedelta(seconds=1)

            expire = set(all_candidates(store, "expire", now))
            due = {c for c, s in claims.items() if (x := expiry_of(s, POLICY)) and x.at <= now}
            assert due <= expire
            for extra in expire - due:
                x = expiry_of(claims[extra], POLICY)
                assert x is not None and x.at <= slack

            archive = set(all_candidates(store, "archive", now))
            due = {c for c, s in claims.items()
                   if (a := archive_at(s, activity_of(s, acts.get(c)), POLICY)) and a <= now}
            assert due <= archive
            for extra in archive - due:
                # Only the half-life's growth by accesses may make SQL pick a claim early.
                base = acts.get(extra) or Activity()
                a = archive_at(claims[extra], Activity(base.last_access, 0), POLICY)
                assert a is not None and a <= slack
        finally:
            store.close()


# --- PostgreSQL (adapters/postgres/, issue 18): the same suite on a fresh database per test ----------


class TestPostgresActivity(PostgresStore, ActivityContract):
    pass
