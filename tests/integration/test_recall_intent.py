"""Query understanding in recall, on both adapters: 之前/现在, 4月时, "used to", explicit instants win."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from hlmem import Memory
from hlmem.domain.query_understanding import TimeMode

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)


@pytest.fixture(params=["memory", "sqlite"])
def mem(request: pytest.FixtureRequest, tmp_path: Path) -> Memory:
    path = ":memory:" if request.param == "memory" else tmp_path / "m.db"
    m = Memory(path, embedder="hash", now=NOW)
    m.remember("user", "preferred_ui_theme", "深色", valid_from="2025-01-01T00:00:00+00:00")
    m.remember("user", "preferred_ui_theme", "浅色", valid_from="2026-01-01T00:00:00+00:00")
    m.remember("user", "lives_in", "北京", valid_from="2025-01-01T00:00:00+00:00")
    m.remember("user", "lives_in", "上海", valid_from="2026-05-01T00:00:00+00:00")
    m.remember("user", "preferred_editor", "vim", valid_from="2025-01-01T00:00:00+00:00")
    m.remember("user", "preferred_editor", "emacs", valid_from="2026-02-01T00:00:00+00:00")
    yield m
    m.close()


@pytest.mark.parametrize(
    ("query", "mode", "first"),
    [
        ("我之前偏好什么主题？", TimeMode.HISTORY, "深色"),
        ("我现在偏好什么主题？", TimeMode.CURRENT, "浅色"),
        ("4月时我住在哪", TimeMode.AT, "北京"),
        ("我现在住在哪", TimeMode.CURRENT, "上海"),
        ("The editor I used to prefer?", TimeMode.HISTORY, "vim"),
        ("Which editor did I use before?", TimeMode.HISTORY, "vim"),
        ("Which editor do I prefer now?", TimeMode.CURRENT, "emacs"),
    ],
)
def test_time_intent_picks_the_value(mem: Memory, query: str, mode: TimeMode, first: str) -> None:
    result = mem.recall(query)
    assert result.intent is not None and result.intent.time_mode is mode
    assert result.items and result.items[0].value == first, [(i.value, i.score) for i in result.items]
    assert any(note.startswith("inferred") for note in result.notes)


def test_current_leaves_the_superseded_value_out(mem: Memory) -> None:
    values = [i.value for i in mem.recall("我现在偏好什么主题？").items]
    assert "深色" not in values


def test_an_inferred_period_ranks_what_held_in_it_first_and_hides_nothing(mem: Memory) -> None:
    result = mem.recall("4月时我住在哪")
    assert result.valid_at == NOW  # a soft filter: the period is in the notes and the intent
    assert result.intent.valid_range.start == datetime(2026, 4, 1, tzinfo=timezone.utc)
    assert any(note.startswith("inferred period [2026-04-01") for note in result.notes)
    assert [i.value for i in result.items][:2] == ["北京", "上海"]


def test_a_date_that_is_a_value_is_not_a_filter(tmp_path: Path) -> None:
    m = Memory(tmp_path / "b.db", embedder="hash", now=NOW)
    m.remember("Paul", "birthday", "5月15日", valid_from="2026-05-20T00:00:00+00:00")
    assert [i.value for i in m.recall("谁生日5月15日？").items] == ["5月15日"]
    m.close()


def test_explicit_valid_at_wins_over_the_query(mem: Memory) -> None:
    result = mem.recall("我现在住在哪", valid_at="2025-06-01T00:00:00+00:00")
    assert result.valid_at == datetime(2025, 6, 1, tzinfo=timezone.utc)
    assert [i.value for i in result.items] == ["北京"]
    assert result.intent.time_mode is TimeMode.AT
    assert not any("inferred valid_at" in note for note in result.notes)


def test_understanding_can_be_turned_off(mem: Memory) -> None:
    result = mem.recall("我之前偏好什么主题？", understand_query=False)
    assert result.intent is None
    assert "深色" not in [i.value for i in result.items]  # without the history intent: now only


def test_use_to_as_instrument_is_not_history() -> None:
    from hlmem.domain import temporal
    from hlmem.domain.query_understanding import understand

    intent = understand("What does Joanna use to remember her dog?", now=NOW, times=temporal)
    assert intent.time_mode is not TimeMode.HISTORY
    for habitual in ("Where did you use to live?", "What didn't I use to like?", "Where did Joanna use to work?"):
        assert understand(habitual, now=NOW, times=temporal).time_mode is TimeMode.HISTORY, habitual


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_events_are_invisible_before_they_occurred(kind: str, tmp_path: Path) -> None:
    m = Memory(":memory:" if kind == "memory" else tmp_path / "e.db", embedder="hash", now=NOW)
    m.add("记住 团队角色是研究员。", occurred_at="2025-01-01T00:00:00+00:00", extract=False)
    m.add("记住 团队角色是负责人。", occurred_at="2026-01-01T00:00:00+00:00", extract=False)
    assert m.recall("团队角色", valid_at="2024-06-01T00:00:00+00:00").items == ()
    at_2025 = m.recall("团队角色", valid_at="2025-06-01T00:00:00+00:00").items
    assert [i.text for i in at_2025] == ["记住 团队角色是研究员。"]
    # Both visible later: the newest witness of the state at that instant ranks first.
    later = m.recall("团队角色", valid_at="2026-03-01T00:00:00+00:00").items
    assert later[0].text == "记住 团队角色是负责人。"
    m.close()
