"""The in-memory store's undo journal: a rollback to a mark restores exactly the state at the mark."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hlmem.adapters.inmemory.journal import Journal

KEYS = st.sampled_from("abcd")
OPS = st.lists(st.one_of(
    st.tuples(st.just("set"), KEYS, st.integers(0, 9)),
    st.tuples(st.just("pop"), KEYS, st.none()),
    st.tuples(st.just("add"), KEYS, st.none()),
    st.tuples(st.just("append"), st.none(), st.integers(0, 9)),
), max_size=20)


def apply(journal: Journal, state: tuple[dict, set, list], ops: list) -> None:
    mapping, members, items = state
    for op, key, value in ops:
        if op == "set":
            journal.set(mapping, key, value)
        elif op == "pop":
            journal.pop(mapping, key)
        elif op == "add":
            journal.add(members, key)
        else:
            journal.remember_length(items)
            items.append(value)


def copy(state: tuple[dict, set, list]) -> tuple[dict, set, list]:
    return dict(state[0]), set(state[1]), list(state[2])


@given(OPS, OPS, OPS)
def test_rollback_to_a_mark_restores_the_state_at_the_mark(first: list, second: list, third: list) -> None:
    journal = Journal()
    state: tuple[dict, set, list] = ({"a": 1}, {"z"}, [7])
    apply(journal, state, first)
    at_outer = copy(state)
    outer = journal.mark()
    apply(journal, state, second)
    at_inner = copy(state)
    inner = journal.mark()
    apply(journal, state, third)
    journal.rollback(inner)  # a failed nested block
    assert state == at_inner
    journal.rollback(outer)
    assert state == at_outer


def test_clear_forgets_what_a_committed_transaction_changed() -> None:
    journal = Journal()
    mapping: dict = {}
    journal.set(mapping, "k", 1)
    journal.clear()
    journal.rollback(0)
    assert mapping == {"k": 1}
