"""``Memory.add_many``: several turns in one transaction, all or none, in order (REST batch and
group commit write through it)."""

from __future__ import annotations

import pytest

from hlmem import Memory
from hlmem.domain.errors import ValidationError
from hlmem.domain.forgetting import ForgottenContent

NOW = "2026-12-01T10:00:00+00:00"


@pytest.fixture
def mem():
    with Memory(":memory:", embedder="hash", now=NOW) as m:
        yield m


def test_a_batch_is_recorded_in_order_with_its_inline_claims(mem: Memory) -> None:
    results = mem.add_many([{"text": "I work at Acme", "session": "s1"},
                            {"text": "hello there", "session": "s1", "extract": False},
                            {"text": "我住在上海", "session": "s2", "role": "user"}])
    assert [r.outcome for r in results] == ["recorded"] * 3
    assert len({r.position for r in results}) == 1, "one transaction, one log position"
    assert [(c.predicate, c.value) for c in results[0].claims] == [("employer", "Acme")]
    assert results[1].claims == ()
    assert [(c.predicate, c.value) for c in results[2].claims] == [("lives_in", "上海")]
    assert mem.stats()["observations"] == 3
    assert [mem.get(r.id).text for r in results] == ["I work at Acme", "hello there", "我住在上海"]
    # extract=False is per event: that turn got no extraction job, the other two ran inline
    assert mem.jobs.job_counts() == {"extract": {"succeeded": 2}}


def test_per_event_flags_override_the_calls(mem: Memory) -> None:
    results = mem.add_many([{"text": "I live in Porto"}, {"text": "I live in Lisbon", "extract": True}],
                           extract=False)
    assert results[0].claims == () and [c.value for c in results[1].claims] == ["Lisbon"]
    assert mem.stats()["claims"] == 1


@pytest.mark.parametrize(("events", "says"), [
    ([{"text": "fine"}, {"text": ""}], "event 1: text is empty"),
    ([{"text": "fine"}, {"text": "ok", "colour": "red"}], "event 1: unknown keys ['colour']"),
    ([{"session": "s"}], "event 0: no text"),
    ([{"text": "fine"}, {"text": "ok", "occurred_at": "yesterday"}], "event 1:"),
    ([{"text": "fine"}, {"text": "ok", "origin": "martian"}], "event 1:"),
    ([{"text": "fine"}, {"text": "ok", "extract": "yes"}], "event 1: extract and process"),
    ([{"text": "fine"}, {"text": " ", "session": " "}], "event 1: text is empty; session is empty"),
])
def test_a_bad_event_names_its_index_and_nothing_is_written(mem: Memory, events: list, says: str) -> None:
    with pytest.raises(ValidationError) as info:
        mem.add_many(events)
    assert str(info.value).startswith(says), str(info.value)
    assert mem.stats().get("observations", 0) == 0


def test_forgotten_content_refuses_the_whole_batch(mem: Memory) -> None:
    gone = mem.add("my locker code is 4411", extract=False)
    mem.forget(gone.id)
    before = mem.stats()["observations"]
    with pytest.raises(ForgottenContent):
        mem.add_many([{"text": "a new turn"}, {"text": "my locker code is 4411"}])
    assert mem.stats()["observations"] == before


def test_an_empty_batch_writes_nothing(mem: Memory) -> None:
    assert mem.add_many([]) == []
    assert mem.stats().get("observations", 0) == 0
