"""The relations role's contract (``RelationReader``, ADR 0081), once per adapter, and the guard over it.

Each port method has its cases; the projection is built the way production builds it (events
appended through the store's own ``append``, the guard deciding lifecycle events in the same
transaction), checked against the pure fold :func:`~hlmem.domain.relations.project_relations`, and
a failed transaction leaves no trace.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from hlmem.adapters.ids import SequentialIds
from hlmem.application.ports import HasRelations, RelationReader
from hlmem.application.relation_guard import RELATION_TOMBSTONE, relation_guarded
from hlmem.application.relations import RelationService
from hlmem.application.replay import ReplayService
from hlmem.application.writes import WriteService
from hlmem.domain.commands import AssertClaim
from hlmem.domain.events import ClaimRetracted, ItemForgotten
from hlmem.domain.relation_decisions import RelationCandidate, decide_proposals, decide_review
from hlmem.domain.relations import PERSON, USER_ENTITY, Entity, project_relations
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

from support.stores import T0, InMemoryStore, PostgresStore, SQLiteStore, StoreContract

KEY = b"k" * 32


def proposals(store, *names: str, namespace: str = "default", evidence=("cl_1",), ids=None) -> list[str]:
    ids = ids or SequentialIds()
    cands = [RelationCandidate("friend", USER_ENTITY, Entity(PERSON, n), tuple(evidence), "test", T0) for n in names]
    events = decide_proposals(cands, store.relations.get_relations([]), forgotten=(), namespace=namespace, key=KEY,
                              new_id=ids.new, recorded_at=T0)
    store.append(events)
    return [e.stream_id for e in events]


def all_events(store) -> list:
    return [s.event for s in store.read()]


class RelationsContract(StoreContract):
    """Cases every adapter's relation projection must pass."""

    def test_the_store_has_the_role(self, store) -> None:
        assert isinstance(store, HasRelations)
        assert isinstance(store.relations, RelationReader)

    def test_get_relations_returns_the_folded_state_and_skips_other_ids(self, store) -> None:
        rid, = proposals(store, "Anna")
        got = store.relations.get_relations([rid, "cl_1", "rl_missing", rid])
        assert list(got) == [rid]
        assert got[rid] == project_relations(all_events(store))[rid]
        assert (got[rid].status, got[rid].target_name, got[rid].evidence) == ("proposed", "Anna", ("cl_1",))
        assert store.relations.get_relations([]) == {}

    def test_relations_lists_by_namespace_status_entity_and_cursor(self, store) -> None:
        ids = SequentialIds()
        a, b, c = sorted(proposals(store, "Anna", "Bob", "Cleo", ids=ids))
        proposals(store, "Dora", namespace="other", ids=ids)
        rel = store.relations
        assert [r.relation_id for r in rel.relations("default")] == [a, b, c]
        assert [r.relation_id for r in rel.relations("default", after=a, limit=1)] == [b]
        assert rel.relations("default", limit=0) == []
        state = rel.get_relations([b])[b]
        store.append(decide_review(state, b, accept=True, actor="u", reason="", live=True, new_id=ids.new,
                                   recorded_at=T0))
        assert [r.relation_id for r in rel.relations("default", status="accepted")] == [b]
        assert [r.relation_id for r in rel.relations("default", status="proposed")] == [a, c]
        bob = Entity(PERSON, "bob").id(KEY)  # names compare case-folded
        assert [r.relation_id for r in rel.relations("default", entities=[bob])] == [b]
        assert [r.target_name for r in rel.relations("default", entities=[USER_ENTITY.id(KEY)])] == [
            s.target_name for s in rel.relations("default")]
        assert [r.target_name for r in rel.relations("other")] == ["Dora"]

    def test_relations_citing_finds_edges_by_claim_or_event_whatever_their_status(self, store) -> None:
        ids = SequentialIds()
        a, = proposals(store, "Anna", evidence=("cl_1", "ev_1"), ids=ids)
        b, = proposals(store, "Bob", evidence=("cl_2",), ids=ids)
        rel = store.relations
        assert sorted(rel.relations_citing(["ev_1"])) == [a]
        assert sorted(rel.relations_citing(["cl_1", "cl_2", "cl_9"])) == sorted([a, b])
        assert rel.relations_citing([]) == {} and rel.relations_citing(["ev_9"]) == {}
        state = rel.get_relations([b])[b]
        store.append(decide_review(state, b, accept=False, actor="u", reason="no", live=True, new_id=ids.new,
                                   recorded_at=T0))
        assert rel.relations_citing(["cl_2"])[b].status == "rejected"

    def test_relation_counts_per_status_and_namespace(self, store) -> None:
        ids = SequentialIds()
        proposals(store, "Anna", "Bob", ids=ids)
        proposals(store, "Cleo", namespace="other", ids=ids)
        assert store.relations.relation_counts("default") == {"proposed": 2}
        assert store.relations.relation_counts("other") == {"proposed": 1}
        assert store.relations.relation_counts("none") == {}

    def test_a_failed_transaction_leaves_no_trace(self, store) -> None:
        with pytest.raises(RuntimeError), store.transaction():
            proposals(store, "Anna")
            raise RuntimeError("boom")
        assert store.relations.relations("default") == [] and store.relations.relations_citing(["cl_1"]) == {}

    def test_the_guard_retires_and_forgets_edges_with_their_evidence(self, store, clock) -> None:
        ids = SequentialIds()
        guard = relation_guarded(store, ids, DEFAULT_REGISTRY, enabled=True)
        writes = WriteService(guard, clock, ids, DEFAULT_REGISTRY)
        sib = writes.remember(AssertClaim(subject="user", predicate="sibling", value="Anna")).id
        job = writes.remember(AssertClaim(subject="Anna", predicate="employer", value="Acme")).id
        queue = {r.relation: r for r in store.relations.relations("default")}
        assert set(queue) == {"sibling", "works_at"} and queue["works_at"].evidence == (job,)
        svc = RelationService(store, clock, ids, DEFAULT_REGISTRY)
        svc.accept(queue["works_at"].relation_id)
        clock.advance(timedelta(days=1))
        writes.remember(AssertClaim(subject="Anna", predicate="employer", value="Globex"))
        retired = store.relations.get_relations([queue["works_at"].relation_id])[queue["works_at"].relation_id]
        assert (retired.status, retired.retired_reason, retired.valid_to) == ("retired", "superseded", clock.now())
        with store.transaction():  # a forget's tombstone, as the forget service appends it
            guard.append([ItemForgotten(event_id=ids.new("lg"), stream_id=sib, version=2, recorded_at=clock.now(),
                                        namespace="default", cascade_of="fg_1")])
        gone = store.relations.get_relations([queue["sibling"].relation_id])[queue["sibling"].relation_id]
        assert (gone.status, gone.target_name, gone.evidence) == ("forgotten", "", ())
        assert RELATION_TOMBSTONE in {t.kind for t in store.tombstones.tombstones()}
        assert not any("Anna" in repr(s.event) for s in store.read() if s.event.stream_id == gone.relation_id)
        assert store.relations.get_relations([r.relation_id for r in store.relations.relations("default")]) == {
            k: v for k, v in project_relations(all_events(store)).items() if v.status != "forgotten"}

    def test_a_retracted_claim_retires_an_open_edge_and_accepting_it_is_refused(self, store, clock) -> None:
        ids = SequentialIds()
        guard = relation_guarded(store, ids, DEFAULT_REGISTRY, enabled=True)
        cid = WriteService(guard, clock, ids, DEFAULT_REGISTRY).remember(
            AssertClaim(subject="user", predicate="friend", value="Bob")).id
        rid, = [r.relation_id for r in store.relations.relations("default")]
        guard.append([ClaimRetracted(event_id=ids.new("lg"), stream_id=cid, version=2, recorded_at=clock.now(),
                                     namespace="default", reason="wrong")])
        assert store.relations.get_relations([rid])[rid].status == "retired"
        from hlmem.domain.errors import DomainRuleViolation
        with pytest.raises(DomainRuleViolation, match="retired"):
            RelationService(store, clock, ids, DEFAULT_REGISTRY).accept(rid)

    def test_replay_rebuilds_the_projection_exactly(self, store, clock, tmp_path) -> None:
        ids = SequentialIds()
        guard = relation_guarded(store, ids, DEFAULT_REGISTRY, enabled=True)
        writes = WriteService(guard, clock, ids, DEFAULT_REGISTRY)
        writes.remember(AssertClaim(subject="user", predicate="colleague", value="Tom"))
        writes.remember(AssertClaim(subject="Tom", predicate="employer", value="Acme"))
        writes.remember(AssertClaim(subject="Tom", predicate="employer", value="Initech"))
        target = self.make_store(tmp_path / "replayed")
        try:
            report = ReplayService(DEFAULT_REGISTRY).replay(store, target)
            assert report.equal, report.differences
            assert target.relations.relation_counts("default") == store.relations.relation_counts("default")
        finally:
            target.close()


class TestInMemoryRelations(InMemoryStore, RelationsContract):
    pass


class TestSQLiteRelations(SQLiteStore, RelationsContract):
    pass


class TestPostgresRelations(PostgresStore, RelationsContract):
    pass
