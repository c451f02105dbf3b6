"""Neighbour turns in ranking: replies (another speaker's next turn) and the turn before a relevant one."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from hlmem import Memory
from hlmem.adapters.clock import FixedClock
from hlmem.application.ports import Candidate
from hlmem.application.conversation import propagate_replies, propagate_successors
from hlmem.application.ranking import RankingConfig, Scored, text_levels
from hlmem.application.recall import RecallService

T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)


def s(item_id: str, relevance: float, **ranks: int) -> Scored:
    return Scored(item_id=item_id, kind="event", relevance=relevance, score=relevance, ranks=ranks or {"text": 1})


def test_text_levels_are_bm25_over_the_best_and_never_increase_along_the_adapter_order() -> None:
    cands = [Candidate("a", "event", 1, 4.0, True), Candidate("b", "event", 2, 8.0), Candidate("c", "event", 3, 2.0)]
    # b has the higher bm25 but came after the AND hit a: it may not rise above it.
    assert text_levels(cands) == pytest.approx({"a": 0.5, "b": 0.5, "c": 0.25})
    assert text_levels([]) == {}


def test_a_reply_gets_a_share_of_the_full_text_level_of_the_turn_it_answers() -> None:
    config = RankingConfig(reply_weight=0.3, reply_top=2)
    text = [Candidate("q", "event", 1, 10.0), Candidate("x", "event", 2, 5.0), Candidate("y", "event", 3, 5.0)]
    scored = [s("q", 1.0), s("x", 0.4), s("y", 0.3), s("r", 0.2, vector=4)]
    out = propagate_replies(scored, text, {"q": "r", "x": "new", "y": "late"}, config)
    got = {o.item_id: o.relevance for o in out}
    # Added, not a maximum: r is relevant itself and answers q. y is beyond reply_top.
    assert got == pytest.approx({"q": 1.0, "r": 0.5, "x": 0.4, "y": 0.3, "new": 0.15})
    assert [o.item_id for o in out] == ["q", "r", "x", "y", "new"]
    assert next(o for o in out if o.item_id == "r").ranks == {"vector": 4, "reply": 1}


def test_replies_pass_on_nothing_from_hits_below_the_floor_or_when_off() -> None:
    text = [Candidate("q", "event", 1, 10.0)]
    # q did not survive the floor: its reply does not enter.
    assert propagate_replies([], text, {"q": "r"}, RankingConfig()) == []
    scored = [s("q", 1.0)]
    assert propagate_replies(scored, text, {"q": "r"}, RankingConfig(reply_weight=0)) == scored


def test_the_turn_before_a_relevant_event_is_lifted_after_the_successors() -> None:
    config = RankingConfig(successor_weight=0.7, predecessor_weight=0.6)
    scored = [s("b", 1.0), s("z", 0.1, vector=3)]
    out = propagate_successors(scored, {"a": "b", "b": "c"}, config, predecessors={"b": "a", "c": "b"})
    assert {o.item_id: o.relevance for o in out} == pytest.approx({"b": 1.0, "c": 0.7, "a": 0.6, "z": 0.1})
    assert next(o for o in out if o.item_id == "a").ranks == {"predecessor": 1}
    off = propagate_successors(scored, {}, RankingConfig(predecessor_weight=0), predecessors={"b": "a"})
    assert [o.item_id for o in off] == ["b", "z"]


def test_recall_lifts_another_speakers_reply_but_not_the_same_speakers_next_note() -> None:
    def store(second_role: str) -> tuple[RecallService, str]:
        mem = Memory(":memory:", embedder="none", now=T0)
        for n in range(3):  # unrelated turns, so the question's terms are rare
            mem.add(f"Talked about the weather {n}.", session=f"other{n}", role="nate", extract=False)
        mem.add("Which flavour of ice cream did you make?", session="s1", role="joanna", extract=False)
        nxt = mem.add("Chocolate and vanilla swirl.", session="s1", role=second_role, extract=False).id
        # Only the reply signal: no successor or predecessor lift, no context ranking, no session evidence.
        config = RankingConfig(successor_weight=0, predecessor_weight=0, context_weight=0, session_weight=0)
        return RecallService(mem.storage, FixedClock(T0), None, config), nxt

    recall, reply = store("nate")
    items = recall.recall("flavour of ice cream").items
    assert [i.id for i in items][1:2] == [reply]
    assert items[1].ranks == {"reply": 1}
    recall, note = store("joanna")
    assert note not in [i.id for i in recall.recall("flavour of ice cream").items]


def _successor_store(gap: timedelta) -> tuple[RecallService, str]:
    mem = Memory(":memory:", embedder="none", now=T0 + timedelta(days=1))
    for n in range(3):  # unrelated turns, so the question's terms are rare
        mem.add(f"Talked about the weather {n}.", session=f"other{n}", extract=False)
    mem.add("Which flavour of ice cream did Nate make?", session="s1", occurred_at=T0, extract=False)
    nxt = mem.add("Chocolate and vanilla swirl.", session="s1", occurred_at=T0 + gap, extract=False).id
    # Only the successor lift: no replies (one speaker), context ranking or session evidence.
    config = RankingConfig(reply_weight=0, predecessor_weight=0, context_weight=0, session_weight=0)
    return RecallService(mem.storage, FixedClock(T0 + timedelta(days=1)), None, config), nxt


def test_the_next_turn_is_lifted_only_when_said_within_the_gap() -> None:
    recall, close = _successor_store(timedelta(minutes=2))
    items = recall.recall("flavour of ice cream").items
    assert [i.id for i in items][1:2] == [close] and items[1].ranks == {"successor": 1}
    recall, later = _successor_store(timedelta(hours=5))  # a note hours later is not the answer
    assert later not in [i.id for i in recall.recall("flavour of ice cream").items]


def test_without_a_gap_every_next_turn_is_context() -> None:
    mem = Memory(":memory:", embedder="none", now=T0 + timedelta(days=1))
    for n in range(3):
        mem.add(f"Talked about the weather {n}.", session=f"other{n}", extract=False)
    mem.add("Which flavour of ice cream did Nate make?", session="s1", occurred_at=T0, extract=False)
    later = mem.add("Chocolate and vanilla swirl.", session="s1", occurred_at=T0 + timedelta(hours=5),
                    extract=False).id
    config = RankingConfig(reply_weight=0, predecessor_weight=0, context_weight=0, session_weight=0,
                           neighbour_gap_s=None)
    recall = RecallService(mem.storage, FixedClock(T0 + timedelta(days=1)), None, config)
    assert later in [i.id for i in recall.recall("flavour of ice cream").items]
