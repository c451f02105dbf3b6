"""Fusing the hop's recalls with the ordinary one (application/recall/relation_hops.py, ADR 0085)."""

from __future__ import annotations

from hypothesis import example, given, strategies as st

from hlmem.application.recall.items import RecallItem
from hlmem.application.recall.relation_hops import fuse


def item(i: str, subject: str | None = None) -> RecallItem:
    return RecallItem(id=i, kind="claim" if subject else "event", text=i, score=0.0, subject=subject)


ids = st.lists(st.sampled_from([f"i{n}" for n in range(30)]), unique=True, max_size=15)


@given(ids, st.lists(st.tuples(ids, st.floats(0.1, 3.0)), max_size=3), st.integers(1, 12))
@example(["a", "b", "c"], [(["x", "y", "z", "a"], 2.0)], 3)
def test_the_ordinary_recall_keeps_two_thirds_of_its_best(ordinary, hops, k) -> None:
    out = fuse([item(i) for i in ordinary], [([item(i) for i in h], w) for h, w in hops], k)
    got = [i.id for i in out]
    assert len(got) == len(set(got)) <= k
    best = set(ordinary[:k])
    assert len([i for i in got if i not in best]) <= max(1, k // 3)
    assert len(best & set(got)) >= min(len(best), k - max(1, k // 3))
    assert len(got) == min(k, len(best) + min(max(1, k // 3), len({i for h, _w in hops for i in h} - best)))
    if not hops:
        assert got == ordinary[:k]


def test_what_both_found_first_and_the_users_own_values_and_the_edges_claims_after() -> None:
    ordinary = [item("mine", subject="user"), item("said", subject="user"), item("turn"), item("other")]
    hop = [item("answer"), item("turn"), item("mine", subject="user")]
    got = [i.id for i in fuse(ordinary, [(hop, 2.0)], 5, said=frozenset({"said"}), told=frozenset({"turn"}))]
    assert got[:2] == ["answer", "turn"] and got.index("mine") > got.index("turn")
    assert set(got) == {"answer", "turn", "mine", "said", "other"}


def test_a_claim_between_two_people_of_the_walk_says_who_not_what() -> None:
    tie = RecallItem(id="tie", kind="claim", text="林琳 · 男朋友 · 周杰", score=0.0, subject="林琳", value="周杰")
    fact = RecallItem(id="fact", kind="claim", text="周杰 · job · 摄影师", score=0.0, subject="周杰", value="摄影师")
    got = fuse([tie, fact], [([tie, fact], 2.0)], 5, names=frozenset({"林琳", "周杰", "user"}))
    assert [i.id for i in got] == ["fact", "tie"]
