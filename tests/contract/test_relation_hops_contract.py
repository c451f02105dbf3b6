"""Recall's walk through accepted edges (``RelationHops``, ADR 0085) over each adapter's relations
role: the accepted edges at an entity, both ways, two hops, in one namespace — and nothing else."""

from __future__ import annotations

import pytest

from hlmem.adapters.ids import SequentialIds
from hlmem.application.ports import RelationRecallStore
from hlmem.application.recall.relation_hops import RelationHops
from hlmem.domain.relation_decisions import RelationCandidate, decide_proposals, decide_review
from hlmem.domain.relations import PERSON, USER_ENTITY, Entity

from support.stores import T0, InMemoryStore, PostgresStore, SQLiteStore, StoreContract


IDS = SequentialIds()


def edges(store, *triples: tuple[str, str, str], accept: bool = True, namespace: str = "default") -> list[str]:
    """Propose ``(source, relation, target)`` edges ("user" is the user) and accept them."""
    ids, key = IDS, store.tombstones.salt()
    ends = {n: USER_ENTITY if n == "user" else Entity(PERSON, n) for t in triples for n in (t[0], t[2])}
    cands = [RelationCandidate(r, ends[s], ends[t], (f"cl_{s}{r}{t}",), "test", T0) for s, r, t in triples]
    events = decide_proposals(cands, {}, forgotten=(), namespace=namespace, key=key, new_id=ids.new, recorded_at=T0)
    store.append(events)
    rids = [e.stream_id for e in events]
    if accept:
        for rid in rids:
            state = store.relations.get_relations([rid])[rid]
            store.append(decide_review(state, rid, accept=True, actor="u", reason="", live=True, new_id=ids.new,
                                       recorded_at=T0))
    return rids


def reached(store, question: str, namespace: str = "default") -> list[str] | None:
    plan = RelationHops(store).plan(question, namespace)
    return None if plan is None else [r.name for r in plan.reached]


class RelationHopsContract(StoreContract):
    def test_the_store_serves_recall_through_relations(self, store) -> None:
        assert isinstance(store, RelationRecallStore)

    def test_one_and_two_hops_from_the_user_and_from_a_name(self, store) -> None:
        edges(store, ("user", "manager", "Priya"), ("Priya", "spouse", "Raj"), ("Tom", "manager", "Sarah"))
        assert reached(store, "who is my boss?") == ["Priya"]
        plan = RelationHops(store).plan("what does my boss's husband do?", "default")
        assert [r.name for r in plan.reached] == ["Raj"] and [e.relation for e in plan.reached[0].path] == [
            "manager", "spouse"]
        assert [q for q, _w in plan.questions] == ["what does Raj do?", "what does Priya's husband do?"]
        assert reached(store, "what's Tom's manager's name?") == ["Sarah"]
        assert reached(store, "Raj's wife?") == ["Priya"]  # a spouse edge read backwards

    def test_only_accepted_edges_in_the_namespace_asked(self, store) -> None:
        edges(store, ("user", "sibling", "Anna"), accept=False)
        edges(store, ("user", "cousin", "张伟"), namespace="other")
        assert reached(store, "where does my sister work?") is None
        assert reached(store, "我表哥现在住哪？") is None
        assert reached(store, "我表哥现在住哪？", namespace="other") == ["张伟"]

    def test_every_accepted_edge_is_read_page_by_page(self, store, monkeypatch) -> None:
        import hlmem.application.recall.relation_hops as hops

        monkeypatch.setattr(hops, "MAX_EDGES", 2)
        edges(store, *[("user", "friend", f"Friend{i}") for i in range(5)], ("user", "sibling", "Anna"))
        assert reached(store, "where does my sister work?") == ["Anna"]

    def test_a_question_without_a_relation_phrase_reads_nothing(self, store, monkeypatch) -> None:
        edges(store, ("user", "sibling", "Anna"))
        monkeypatch.setattr(store.relations, "relations", lambda *a, **kw: pytest.fail("read"), raising=False)
        assert reached(store, "where do I work?") is None


class TestInMemoryRelationHops(InMemoryStore, RelationHopsContract):
    pass


class TestSQLiteRelationHops(SQLiteStore, RelationHopsContract):
    pass


class TestPostgresRelationHops(PostgresStore, RelationHopsContract):
    pass
