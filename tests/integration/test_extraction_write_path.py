"""The rule extractor through the real write pipeline (Memory.add → claims, supersede, explain)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hlmem import Memory

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


def _say(mem: Memory, *texts: str) -> None:
    for i, text in enumerate(texts):
        at = T0 + timedelta(days=i)
        mem.clock.set(at)  # type: ignore[attr-defined]
        mem.add(text, session="s", occurred_at=at)


def _current(mem: Memory, subject: str, predicate: str) -> set[tuple[str, bool]]:
    return {(c.value, c.polarity) for c in mem.history(subject, predicate) if c.status.value == "active"}


def test_garbage_never_supersedes_a_good_value() -> None:
    with Memory(":memory:", embedder="none", now=T0) as mem:
        _say(mem, "我住在杭州。", "这家酒店住得很舒服，住在附近的人都说好。", "我有一辆特斯拉Model 3。",
             "I live in Denver.", "The hotel was lovely, a great place to live for a week.")
        assert _current(mem, "用户", "lives_in") == {("Denver", True)}  # 用户 and user are one subject
        assert [c.value for c in mem.history("用户", "lives_in")] == ["杭州", "Denver"]
        assert not mem.claims(predicate="model").items
        assert ("特斯拉Model 3", True) in _current(mem, "用户", "owns")


def test_a_negation_retires_the_old_value_of_a_multi_valued_slot() -> None:
    with Memory(":memory:", embedder="none", now=T0) as mem:
        _say(mem, "我喜欢喝全糖奶茶。", "我也喜欢吃火锅。", "我现在不喜欢甜的了。")
        assert _current(mem, "用户", "likes") == {("吃火锅", True), ("甜", False)}
        [old] = [c for c in mem.history("用户", "likes") if c.value == "喝全糖奶茶"]
        assert old.status.value == "superseded"


def test_switched_from_a_to_b_closes_a() -> None:
    with Memory(":memory:", embedder="none", now=T0) as mem:
        _say(mem, "I use Evernote for notes.", "I switched from Evernote to Obsidian.")
        assert _current(mem, "user", "uses") == {("Obsidian", True), ("Evernote", False)}


def test_a_reported_move_supersedes_what_was_said_before() -> None:
    with Memory(":memory:", embedder="none", now=T0) as mem:
        _say(mem, "我住在杭州。", "我上个月搬到了苏州。")
        [now] = [c for c in mem.history("用户", "lives_in") if c.status.value == "active"]
        assert now.value == "苏州" and now.versions[-1].valid_from.date().isoformat() == "2026-02-01"
        [old] = [c for c in mem.history("用户", "lives_in") if c.value == "杭州"]
        assert old.status.value == "superseded"


def test_third_parties_are_their_own_subjects() -> None:
    with Memory(":memory:", embedder="none", now=T0) as mem:
        _say(mem, "我住在上海。", "我表哥住在成都。", "My coworker Tom is vegan.")
        assert _current(mem, "用户", "lives_in") == {("上海", True)}
        assert _current(mem, "用户的表哥", "lives_in") == {("成都", True)}
        assert _current(mem, "Tom", "diet") == {("vegan", True)}
        assert _current(mem, "user", "colleague") == {("Tom", True)}


def test_explain_shows_the_rule_that_made_a_claim() -> None:
    with Memory(":memory:", embedder="none", now=T0) as mem:
        _say(mem, "我对青霉素过敏。")
        [claim] = mem.claims(predicate="allergy").items
        assert claim.source == "extracted:rules#zh.allergy"
        explained = mem.explain(claim.claim_id)
        assert explained.claim is not None and explained.claim.source.endswith("#zh.allergy")
        assert [e.text for e in explained.evidence] == ["我对青霉素过敏。"]
