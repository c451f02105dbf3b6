"""Recall through the conversational-context ranking, and the ranking weights as ``Memory`` configuration."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from hlmem import Memory
from hlmem.application.ranking import RankingConfig
from hlmem.domain.errors import ConfigurationError

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)


def say(mem: Memory, turns: list[tuple[str, str, str]]) -> dict[str, str]:
    """Record ``(session, role, text)`` turns a minute apart; their ids by text."""
    ids = {}
    for session, role, text in turns:
        mem.clock.advance(timedelta(minutes=1))
        ids[text] = mem.add(text, session=session, role=role, extract=False).id
    return ids


def chat(mem: Memory) -> dict[str, str]:
    """Two sessions; the answer to "how long has she painted" is a reply that never says "paint"."""
    return say(mem, [
        ("s1", "user", "I went hiking with my sister last weekend"), ("s1", "assistant", "Sounds lovely, where?"),
        ("s1", "user", "Up the north ridge, the view was great"),
        ("s2", "user", "How long have you been painting watercolours?"), ("s2", "assistant", "Seven years now"),
        ("s2", "user", "Impressive, I should try it"),
    ])


def test_the_reply_is_found_through_the_turn_it_answers() -> None:
    with Memory(":memory:", embedder="none", now=T0) as mem:
        ids = chat(mem)
        items = mem.recall("how many years of painting watercolours", k=3).items
        answer = next(i for i in items if i.id == ids["Seven years now"])
        assert "context" in answer.ranks
        assert items[0].id in {ids["Seven years now"], ids["How long have you been painting watercolours?"]}


def test_context_weight_zero_turns_the_ranking_off() -> None:
    with Memory(":memory:", embedder="none", now=T0, ranking={"context_weight": 0}) as mem:
        chat(mem)
        assert all("context" not in i.ranks for i in mem.recall("painting watercolours", k=5).items)


@pytest.mark.parametrize("path", [":memory:", "file"])
def test_ranking_weights_are_configuration(tmp_path, path: str) -> None:
    where = ":memory:" if path == ":memory:" else tmp_path / "m.db"
    config = RankingConfig(text_weight=0.3, context_weight=0.2, recency_weight=0.0)
    with Memory(where, embedder="none", now=T0, ranking=config) as mem:
        assert mem._container.recall()._ranking == config
    with Memory(where, embedder="none", now=T0, ranking={"text_weight": 0.3, "context_weight": 0.2,
                                                          "recency_weight": 0.0}) as mem:
        assert mem._container.recall()._ranking == config


@pytest.mark.parametrize("bad, message", [
    ({"text_wieght": 0.3}, "unknown ranking setting.*text_wieght"),
    ({"fusion": "borda"}, "fusion"),
    ("heavy", "RankingConfig or a mapping"),
])
def test_bad_ranking_settings_fail_at_construction(bad, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        Memory(":memory:", embedder="none", ranking=bad)


def party(mem: Memory) -> dict[str, str]:
    """Two participants who both researched something; the words alone favour Melanie's turn."""
    return say(mem, [("a", "Caroline", "I researched adoption agencies today"),
                     ("b", "Melanie", "I researched researched pottery classes for the kids"),
                     ("b", "Nate", "Thanks for listening")])


def test_a_question_about_one_speaker_ranks_what_they_said_first() -> None:
    with Memory(":memory:", embedder="none", now=T0) as mem:
        ids = party(mem)
        plain = mem.recall("researched", k=3).items
        assert plain[0].role == "Melanie"  # more of the word: the text alone prefers her turn
        result = mem.recall("What has Caroline researched?", k=3)
        assert result.items[0].id == ids["I researched adoption agencies today"]
        assert result.items[0].ranks.get("speaker") == 1
        assert any("names Caroline" in n for n in result.notes)
        # Both named, or neither: nothing to prefer.
        both = mem.recall("What have Caroline and Melanie researched?", k=3)
        assert both.items[0].role != "Caroline" and not any("speaker" in i.ranks for i in both.items)


def test_speaker_weight_zero_turns_the_bonus_off() -> None:
    with Memory(":memory:", embedder="none", now=T0, ranking={"speaker_weight": 0}) as mem:
        party(mem)
        items = mem.recall("What has Caroline researched?", k=3).items
        assert items[0].role != "Caroline" and not any("speaker" in i.ranks for i in items)


def _two_users(mem: Memory) -> dict[str, str]:
    """Two people's histories in one store, each with a boss who works somewhere."""
    ids = {}
    for session, text in [("u1", "我上司的生日是10月16号"), ("u1", "我喜欢攀岩"), ("u1", "我妈妈是老师"),
                          ("u1", "我的上司在浙江杭州上班"), ("u2", "我舅舅的生日是5月1日"), ("u2", "我爸爸是医生"),
                          ("u2", "我的上司在江苏南京上班，每天都在那里上班")]:
        mem.clock.advance(timedelta(minutes=1))
        ids[text] = mem.add(text, session=session, extract=False).id
    return ids


def _place(items, item_id: str) -> int:
    return next((n for n, i in enumerate(items) if i.id == item_id), len(items))


@pytest.mark.parametrize("weight", [None, 0])
def test_evidence_in_the_same_session_counts_together(weight) -> None:
    """"Where does the person born on 16 October work?": the work turn of the session that holds the
    birthday outranks another session's work turn, which matches the words better."""
    with Memory(":memory:", embedder="none", now=T0,
                ranking=None if weight is None else {"session_weight": weight}) as mem:
        ids = _two_users(mem)
        items = mem.recall("那个生日是10月16号的人在哪里上班？", k=5).items
        right, other = ids["我的上司在浙江杭州上班"], ids["我的上司在江苏南京上班，每天都在那里上班"]
        if weight is None:
            assert _place(items, right) < _place(items, other)
            assert next(i for i in items if i.id == right).ranks.get("session") == 1
        else:
            assert _place(items, other) < _place(items, right)


def test_ranking_settings_from_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("HLMEM_RANKING", '{"speaker_weight": 0, "text_weight": 0.4}')
    with Memory(":memory:", embedder="none", now=T0) as mem:
        config = mem._container.recall()._ranking
        assert (config.speaker_weight, config.text_weight) == (0, 0.4)
    with Memory(":memory:", embedder="none", now=T0, ranking={"speaker_weight": 0.2}) as mem:
        assert mem._container.recall()._ranking.speaker_weight == 0.2  # an explicit argument wins
    for bad, message in (("{not json", "not JSON"), ("[1, 2]", "JSON object"), ('{"nope": 1}', "unknown ranking")):
        monkeypatch.setenv("HLMEM_RANKING", bad)
        with pytest.raises(ConfigurationError, match=message):
            Memory(":memory:", embedder="none")
