"""Joining the recalls of a question's parts (application/recall/parts.py, ADR 0057)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hlmem.application.recall.items import RecallItem
from hlmem.application.recall.parts import bridge_heads, interleave, part_notes


def item(i: str) -> RecallItem:
    return RecallItem(id=i, kind="event", text=i, score=0.0)


def ids(items: list[RecallItem]) -> list[str]:
    return [i.id for i in items]


def test_interleave_takes_the_best_of_each_in_turn_and_each_item_once() -> None:
    lists = [[item("a"), item("b"), item("c")], [item("x"), item("a"), item("y")]]
    assert ids(interleave(lists, 5)) == ["a", "x", "b", "c", "y"]
    assert ids(interleave(lists, 2)) == ["a", "x"]
    assert ids(interleave([[item("a")], [item("x"), item("y"), item("z")]], 3)) == ["a", "x", "y"]  # slots left over


@given(st.lists(st.lists(st.sampled_from("abcdefgh"), max_size=6, unique=True), min_size=1, max_size=4),
       st.integers(min_value=1, max_value=10))
def test_interleave_fills_k_with_distinct_items_and_each_lists_best(lists: list[list[str]], k: int) -> None:
    out = ids(interleave([[item(i) for i in one] for one in lists], k))
    assert len(out) == len(set(out)) == min(k, len({i for one in lists for i in one}))
    assert set(out) <= {i for one in lists for i in one}
    if len(lists) <= k:  # every non-empty list's best item is in
        assert all(one[0] in out for one in lists if one)


@given(st.lists(st.integers(min_value=0, max_value=6), min_size=1, max_size=4), st.integers(min_value=1, max_value=12))
def test_interleave_keeps_each_lists_order(sizes: list[int], k: int) -> None:
    lists = [[f"{n}-{r}" for r in range(size)] for n, size in enumerate(sizes)]  # no item in two lists
    out = ids(interleave([[item(i) for i in one] for one in lists], k))
    for one in lists:
        assert [i for i in out if i in one] == one[:len([i for i in out if i in one])]
    # Turn by turn: no list is two items ahead of another that still has items.
    taken = [len([i for i in out if i in one]) for one in lists]
    assert all(a <= b + 1 for a, s in zip(taken, sizes) for b, t in zip(taken, sizes) if b < t)


def test_bridge_heads() -> None:
    texts = ["我表弟的电话号码是13225162475。", "用户的表弟 phone 13225162475", "我表弟叫张伟。", "我舅舅的电话号码是138。"]
    assert bridge_heads("那个联系电话是13225162475的人，其姓名是什么？", texts, 2) == (
        "联系电话是13225162475", "其姓名是什么?", ["表弟", "舅舅"])
    assert bridge_heads("那个联系电话是13225162475的人，其姓名是什么？", texts, 1)[2] == ["表弟"]
    assert bridge_heads("那个表弟的电话是多少的人，叫什么？", ["我表弟的电话号码是1。"], 2) is None  # named already
    assert bridge_heads("我表弟叫什么？", texts, 2) is None  # not a question about "the one whose"
    assert bridge_heads("那个联系电话是132的人，其姓名是什么？", texts, 0) is None  # off


def test_part_notes() -> None:
    assert part_notes(("a?", "b?"), "a? 另外，b?", [["n1"], ["n1", "n2"]]) == [
        "compound question: 2 parts searched apart, their best items interleaved: 'a?' | 'b?'", "n1", "n2"]
    assert part_notes(("b?",), "x. 我真正想问的是：b?", [["n"]]) == [
        "correction: only what follows it is searched: 'b?'", "n"]
    assert part_notes(("q",), " q ", [["n", "n"]]) == ["n"]
