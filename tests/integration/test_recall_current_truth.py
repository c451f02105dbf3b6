"""What is true now, what was before, what held on a day (ADR 0060), through ``Memory`` on every store.

README's own scenario first: "我现在主要用深色模式。" then "最近眼睛不舒服，暂时换成浅色模式。": the first
statement shares more words with "用户现在用什么主题？" than the change does, yet the current value
must come first, the old statement is history, and "之前" returns the old value.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from hlmem import Memory
from hlmem.adapters.settings import Settings

Z = timezone(timedelta(hours=8))
T0 = datetime(2026, 3, 1, 20, 0, tzinfo=Z)


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgres":
        return request.getfixturevalue("postgres_url")
    return ":memory:" if request.param == "memory" else str(tmp_path / "m.db")


def _readme(path: str) -> Memory:
    mem = Memory(path, embedder="hash", now=T0, settings=Settings())
    mem.add("我现在主要用深色模式。")
    mem.clock.set(T0 + timedelta(minutes=1))
    mem.add("最近眼睛不舒服，暂时换成浅色模式。")
    mem.clock.set(T0 + timedelta(hours=12))
    return mem


def _first_value(items, values=("深色", "浅色")) -> str | None:
    for item in items:
        found = [v for v in values if v in item.text]
        if found:
            return found[0] if len(found) == 1 else "both"
    return None


def test_readme_scenario_current_value_first_and_the_old_statement_is_history(store: str) -> None:
    with _readme(store) as mem:
        result = mem.recall("用户现在用什么主题？")
        items = list(result.items)
        assert _first_value(items) == "浅色", [(i.kind, i.text) for i in items]
        old = next(i for i in items if "深色" in i.text)
        current_claim = next(i for i in items if i.kind == "claim" and i.value == "浅色模式")
        change = next(i for i in items if i.kind == "event" and "浅色" in i.text)
        assert old.kind == "event" and old.history and not change.history
        assert items.index(old) > items.index(current_claim) and items.index(old) > items.index(change)
        assert [i.score for i in items] == sorted((i.score for i in items), reverse=True)
        assert any(n.startswith("history: 1 event") for n in result.notes)


def test_readme_scenario_before_returns_the_old_value_first(store: str) -> None:
    with _readme(store) as mem:
        items = mem.recall("用户之前用什么主题？").items
        assert _first_value(items) == "深色", [(i.kind, i.text) for i in items]
        assert items[0].kind == "claim" and items[0].status == "superseded"


def test_a_current_time_packet_leaves_history_out_and_a_history_packet_keeps_it(store: str) -> None:
    with _readme(store) as mem:
        now = mem.recall("用户现在用什么主题？", budget=400)
        assert "深色" not in now.packet.text and "浅色" in now.packet.text
        assert any(n.startswith("packet: 1 event(s) left out as history") for n in now.notes)
        before = mem.recall("用户之前用什么主题？", budget=400)
        assert "深色" in before.packet.text


def test_the_json_of_a_recall_marks_history_events(tmp_path: Path) -> None:
    from hlmem.adapters.wire.recall import recall_dict

    with _readme(":memory:") as mem:
        out = recall_dict(mem.recall("用户现在用什么主题？"))
        marks = {i["text"]: i.get("history") for i in out["items"] if i["kind"] == "event"}
        assert marks == {"我现在主要用深色模式。": True, "最近眼睛不舒服，暂时换成浅色模式。": False}


def _three_cities(path: str) -> Memory:
    mem = Memory(path, embedder="hash", now=datetime(2026, 1, 5, 20, 0, tzinfo=Z), settings=Settings())
    mem.add("我住在杭州，西湖边上。")
    mem.clock.set(datetime(2026, 1, 20, 12, 0, tzinfo=Z))
    mem.add("今天中午吃了碗面，挺好吃的。")
    mem.clock.set(datetime(2026, 2, 16, 21, 0, tzinfo=Z))
    mem.add("我搬到苏州了，我住在园区。")
    mem.clock.set(datetime(2026, 4, 2, 9, 0, tzinfo=Z))
    mem.add("我又搬家了，现在我住在南京。")
    mem.clock.set(datetime(2026, 5, 1, 10, 0, tzinfo=Z))
    return mem


CITIES = ("杭州", "苏州", "南京")


def test_the_slot_holds_three_values_in_order(store: str) -> None:
    with _three_cities(store) as mem:
        claims = sorted((c for c in mem.claims(predicate="lives_in").items), key=lambda c: c.valid_from)
        assert [c.value for c in claims] == ["杭州", "苏州", "南京"]
        assert [c.status.value for c in claims] == ["superseded", "superseded", "active"]


@pytest.mark.parametrize(
    ("question", "kwargs", "expected"),
    [
        ("我现在住在哪？", {}, "南京"),
        ("我住在哪？", {}, "南京"),  # tense-neutral: what holds now
        ("我之前住在哪？", {}, "苏州"),  # the value just before the current one, not the first
        ("我一开始住在哪？", {}, "杭州"),
        ("3月15日那会儿我住在哪？", {}, "苏州"),  # a day in the middle, named
        ("三月中旬我住在哪？", {}, "苏州"),
        ("1月底我住在哪？", {}, "杭州"),
        ("我住在哪？", {"valid_at": datetime(2026, 3, 15, 12, 0, tzinfo=Z)}, "苏州"),  # an explicit instant
        ("我住在哪？", {"valid_at": datetime(2026, 1, 25, 12, 0, tzinfo=Z)}, "杭州"),
    ],
)
def test_time_and_supersede_state_decide_between_values(store: str, question: str, kwargs: dict,
                                                       expected: str) -> None:
    with _three_cities(store) as mem:
        result = mem.recall(question, now=datetime(2026, 5, 1, 10, 0, tzinfo=Z), **kwargs)
        assert _first_value(result.items, CITIES) == expected, [(i.kind, i.text) for i in result.items]


def test_a_middle_day_question_is_read_in_the_askers_zone() -> None:
    # 3月1日 at +08:00 starts at 16:00 UTC on 28 February: the period is the asker's day.
    with _three_cities(":memory:") as mem:
        result = mem.recall("3月1日那会儿我住在哪？", now=datetime(2026, 5, 1, 10, 0, tzinfo=Z))
        assert result.intent.valid_range.start == datetime(2026, 3, 1, tzinfo=Z)


def test_a_slot_value_just_under_the_floor_is_kept_when_what_passed_it_was_said_later() -> None:
    # Only the later turn is similar enough to pass the floor, and it was said after the instant asked
    # about: the earlier turn (evidence of a claim), just under the floor, is kept, with a note.
    mem = Memory(":memory:", embedder="hash", now=datetime(2026, 1, 5, tzinfo=Z), settings=Settings(),
                 ranking={"similarity_floor": 0.3, "slot_floors": (("hash-", -1.0),)})
    with mem:
        early = mem.add("Home is Portland.", extract=False, session="s1").id
        mem.remember("user", "lives_in", "Portland", evidence=[early])
        mem.clock.set(datetime(2026, 3, 1, tzinfo=Z))
        mem.add("where do I live these days? I live in Denver now.", extract=False, session="s2")
        result = mem.recall("where do I live these days", valid_at=datetime(2026, 2, 1, tzinfo=Z), kinds=("event",))
        assert [i.text for i in result.items] == ["Home is Portland."], result.notes
        assert any("slot value(s) just under similarity 0.3 kept" in n for n in result.notes), result.notes
        without = mem.recall("where do I live these days", valid_at=datetime(2026, 2, 1, tzinfo=Z), kinds=("event",),
                             understand_query=False)  # not read as a question about facts: nothing, and why
        assert not without.items
        assert any("not visible at 2026-01-31T16:00" in n for n in without.notes), without.notes


def test_a_recall_of_events_only_gets_no_claim_added(store: str) -> None:
    with _three_cities(store) as mem:
        result = mem.recall("我之前住在哪？", kinds=("event",), now=datetime(2026, 5, 1, 10, 0, tzinfo=Z))
        assert result.items and {i.kind for i in result.items} == {"event"}
        assert _first_value(result.items, CITIES) == "苏州"


@pytest.mark.parametrize("question", ["我住哪", "我住在哪个城市", "where do I live?", "我现在住在哪里？"])
def test_a_turn_of_two_facts_one_since_replaced_yields_to_the_new_value(tmp_path: Path, question: str) -> None:
    # The old turn also states a job that did not change; "住" matches the old turn, not the move.
    with Memory(tmp_path / "m.db", embedder="hash", now=T0, settings=Settings()) as mem:
        mem.add("我住在杭州，在字节跳动做产品经理")
        mem.clock.set(T0 + timedelta(days=3))
        mem.add("我搬到上海了")
        items = mem.recall(question, k=5).items
    assert _first_value(items, ("杭州", "上海", "产品经理")) == "上海", [i.text for i in items]
