"""Recall through accepted relations end to end (ADR 0085, docs/recall.md): a question that names
someone by a relation walks accepted edges only, says so in its notes and in ``explain``, and
changes nothing at all — items and notes — when relations are off or no accepted edge answers."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from hlmem import Memory
from hlmem.adapters.settings import Settings
from hlmem.domain.errors import NotFound

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
ON = Settings.from_mapping({"relations": {"enabled": True}})
TURNS = ("My sister Anna is flying in next week.", "I work at Hubspot, the office is freezing.",
         "Lunch was a sad sandwich again.", "The weather is grey and wet.", "Anna got the job at Pfizer!",
         "My boss Priya covered for me today.", "Priya's husband Raj is a dentist.",
         "我表哥张伟下个月来上海出差。", "张伟已经从杭州搬到成都了。")
QUESTIONS = ("where does my sister work?", "what does my boss's husband do?", "我表哥现在住哪？", "where do I work?",
             "what's the weather like?")


def _store(path) -> None:
    with Memory(path, embedder="none", now=T0, settings=ON) as mem:
        for i, text in enumerate(TURNS):
            mem.clock.set(T0 + timedelta(days=i))
            mem.add(text, occurred_at=T0 + timedelta(days=i), session=f"day{i}")


def _answers(mem: Memory) -> list[tuple]:
    out = []
    for q in QUESTIONS:
        r = mem.recall(q, now=T0 + timedelta(days=30))
        out.append((q, [(i.id, i.kind, i.text, i.score, i.ranks) for i in r.items], r.notes))
    return out


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "m.db"
    _store(path)
    return path


def test_without_an_accepted_edge_recall_is_what_it_is_with_relations_off(store) -> None:
    with Memory(store, embedder="none", settings=Settings()) as off:
        baseline = _answers(off)
    with Memory(store, embedder="none", settings=ON) as on:
        assert on.relations.list(status="proposed")  # proposals wait: never walked
        assert _answers(on) == baseline
        for r in on.relations.list(status="proposed"):
            on.relations.reject(r.relation_id)
        assert _answers(on) == baseline  # nor rejected ones
    assert not any(n.startswith("relation:") for _q, _items, notes in baseline for n in notes)


def test_an_accepted_edge_answers_by_name_and_says_which_edge(store) -> None:
    with Memory(store, embedder="none", settings=Settings()) as off:
        before = {q: items for q, items, _n in _answers(off)}
    with Memory(store, embedder="none", settings=ON) as mem:
        for r in mem.relations.list(status="proposed"):
            mem.relations.accept(r.relation_id)
        sister = mem.relations.list(entity="Anna")[0]
        result = mem.recall("where does my sister work?", now=T0 + timedelta(days=30))
        assert "Pfizer" in result.items[0].text
        note, = [n for n in result.notes if n.startswith("relation:")]
        assert sister.relation_id in note and "user —sibling→ Anna" in note and sister.evidence[0] in note
        two = mem.recall("what does my boss's husband do?", now=T0 + timedelta(days=30))
        assert "dentist" in two.items[0].text and "Priya —spouse→ Raj" in "".join(two.notes)
        zh = mem.recall("我表哥现在住哪？", now=T0 + timedelta(days=30))
        assert "成都" in " ".join(i.text for i in zh.items[:2]) and "user —cousin→ 张伟" in "".join(zh.notes)
        # Nothing the ordinary recall found among its first ten is lost beyond a third of the slots.
        for q, items, _notes in _answers(mem):
            kept = {i[0] for i in items} & {i[0] for i in before[q][:10]}
            assert len(kept) >= min(len(before[q]), 10) - 10 // 3
        explained = mem.explain(sister.relation_id)
        assert explained.kind == "relation" and explained.relation.relation.status == "accepted"
        assert [e.text for e in explained.relation.evidence] == ["My sister Anna is flying in next week."]
        with pytest.raises(NotFound):
            mem.explain("rl_nosuchedge")


def test_a_retired_edge_is_not_walked_and_a_forgotten_one_explains_only_when(store) -> None:
    with Memory(store, embedder="none", settings=ON) as mem:
        for r in mem.relations.list(status="proposed"):
            mem.relations.accept(r.relation_id)
        sister = mem.relations.list(entity="Anna")[0]
        mem.forget(sister.evidence[0])
        result = mem.recall("where does my sister work?", now=T0 + timedelta(days=30))
        assert not any(n.startswith("relation:") for n in result.notes)
        gone = mem.explain(sister.relation_id)
        assert gone.kind == "forgotten" and gone.relation is None


def test_a_name_that_makes_the_question_too_long_is_skipped(store) -> None:
    from hlmem.application.recall.query import MAX_QUERY_CHARS

    with Memory(store, embedder="none", settings=ON) as mem:
        for r in mem.relations.list(status="proposed"):
            mem.relations.accept(r.relation_id)
        question = "where does my sister work? " + "x" * (MAX_QUERY_CHARS - 27)
        assert len(question) == MAX_QUERY_CHARS
        result = mem.recall(question, now=T0 + timedelta(days=30))  # "Anna" fits; "user's sister" does not
        assert any(n.startswith("relation:") for n in result.notes)
