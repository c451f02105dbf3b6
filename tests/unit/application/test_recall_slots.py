"""The slot stage (application/recall/slots.py) and the floor's fallback (application/recall/floor.py), pure."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from attrs import evolve

from hlmem.application.ports import Candidate
from hlmem.application.ranking import Scored
from hlmem.application.recall.floor import asks_for_values, slot_values_kept
from hlmem.application.recall.slots import MAX_ADDED, asked_of, order_slots, slot_groups
from hlmem.domain import temporal
from hlmem.domain.events import ClaimAsserted, ClaimSuperseded, DomainEvent, ItemForgotten
from hlmem.domain.query_understanding import understand
from hlmem.domain.reducers import project
from hlmem.domain.state import ClaimState
from hlmem.domain.value_order import Wanted

UTC = timezone.utc
BASE = datetime(2026, 1, 1, tzinfo=UTC)
NOW = BASE + timedelta(days=30)
_n = iter(range(1, 1_000_000))


def day(n: float) -> datetime:
    return BASE + timedelta(days=n)


def asserted(cid: str, value: str, vf: float, *, predicate: str = "preferred_ui_theme",
             evidence: tuple[str, ...] = ()) -> ClaimAsserted:
    return ClaimAsserted(event_id=f"lg_{next(_n)}", stream_id=cid, version=1, recorded_at=day(vf), namespace="default",
                         subject="user", predicate=predicate, value=value, valid_from=day(vf), evidence=evidence)


def superseded(cid: str, by: str, vt: float) -> ClaimSuperseded:
    return ClaimSuperseded(event_id=f"lg_{next(_n)}", stream_id=cid, version=2, recorded_at=day(vt),
                           namespace="default", superseded_by=by, valid_to=day(vt))


def claims(*events: DomainEvent) -> dict[str, ClaimState]:
    return dict(project(events).claims)


#: dark (said in ev_dark, day 0) superseded by light (ev_light, day 10); a city in ev_city (day 5).
CLAIMS = claims(asserted("cl_dark", "深色", 0, evidence=("ev_dark",)), asserted("cl_light", "浅色", 10, evidence=("ev_light",)),
                superseded("cl_dark", "cl_light", 10),
                asserted("cl_city", "杭州", 5, predicate="lives_in", evidence=("ev_city",)))
CITED = {"ev_dark": ["cl_dark"], "ev_light": ["cl_light"], "ev_city": ["cl_city"], "ev_both": ["cl_dark", "cl_city"]}


def scored(*ids: str) -> list[Scored]:
    """Items best first with scores 1.0, 0.9, 0.8…"""
    return [Scored(item_id=i, kind="claim" if i.startswith("cl_") else "event", relevance=1 - n / 10,
                   score=1 - n / 10) for n, i in enumerate(ids)]


def now() -> object:
    return asked_of(history=False, earliest=False, window=None, valid_at=NOW, known_at=NOW)


def test_words_place_the_group_time_orders_its_members() -> None:
    # The old statement matched best, an unrelated turn sits between: the group keeps its places
    # (1, 3, 4), the unrelated turn its own (2), and the current value takes the first place; then
    # the claim goes just before the turn it rests on (the unrelated turn moves down one).
    order = order_slots(scored("ev_dark", "ev_other", "ev_light", "cl_light"), CITED, CLAIMS, now())
    assert [s.item_id for s in order.scored] == ["cl_light", "ev_light", "ev_other", "ev_dark"]
    assert [s.score for s in order.scored] == [1.0, 0.9, 0.8, 0.7]  # the places' scores: still sorted
    assert order.history == frozenset({"ev_dark"}) and order.moved == 3  # the lift is not counted


def test_a_claim_far_below_the_turn_it_rests_on_is_lifted_to_it_not_the_turn_dropped() -> None:
    # The turn stating the change matched best; its claim matched poorly. The claim goes just before
    # the turn; the turn is not sent down to the claim's place.
    order = order_slots(scored("ev_light", "ev_a", "ev_b", "ev_c", "cl_light"), CITED, CLAIMS, now())
    assert [s.item_id for s in order.scored] == ["cl_light", "ev_light", "ev_a", "ev_b", "ev_c"]


def test_before_puts_the_old_value_first() -> None:
    asked = asked_of(history=True, earliest=False, window=None, valid_at=NOW, known_at=NOW)
    order = order_slots(scored("cl_light", "ev_light", "ev_dark", "cl_dark"), CITED, CLAIMS, asked)
    assert [s.item_id for s in order.scored] == ["cl_dark", "ev_dark", "cl_light", "ev_light"]


def test_a_period_puts_the_value_then_first() -> None:
    asked = asked_of(history=False, earliest=False, window=(day(3), day(4)), valid_at=NOW, known_at=NOW)
    assert asked.wanted is Wanted.DURING
    order = order_slots(scored("ev_light", "cl_light", "ev_dark"), CITED, CLAIMS, asked)
    assert [s.item_id for s in order.scored][0] == "ev_dark"


def test_an_event_stating_two_slots_joins_them_and_ranks_by_its_best_value() -> None:
    groups = slot_groups(scored("ev_both", "cl_light", "cl_city"), CITED, CLAIMS)
    assert groups["ev_both"] == groups["cl_light"] == groups["cl_city"]
    # ev_both records the old theme and the current city: not history.
    order = order_slots(scored("ev_both", "ev_dark", "cl_light"), CITED, CLAIMS, now())
    assert "ev_both" not in order.history and "ev_dark" in order.history


def test_a_turn_whose_value_was_replaced_is_preceded_by_what_replaced_it_not_its_other_fact() -> None:
    # "我住在杭州，在字节跳动做产品经理" (ev_both: the old theme here, and the current city), then the
    # theme changed. Asked now, the turn matched best: the value that replaced the one it stated
    # goes before it, not the turn's other, unchanged fact, which the turn's matching words may not
    # be about ("我住哪" once lifted the job title above 上海).
    order = order_slots(scored("ev_both", "cl_light", "ev_x", "cl_city"), {**CITED, "ev_both": ["cl_dark", "cl_city"]},
                        {**CLAIMS, "cl_city": evolve(CLAIMS["cl_city"], evidence=("ev_city", "ev_both"))}, now())
    ids = [s.item_id for s in order.scored]
    assert ids.index("cl_light") < ids.index("ev_both") < ids.index("cl_city"), ids


def test_items_of_no_slot_are_left_alone() -> None:
    items = scored("ev_small_talk", "ev_other")
    order = order_slots(items, CITED, CLAIMS, now())
    assert order.scored == items and not order.moved and not order.history


def test_the_value_asked_for_joins_a_group_that_lacks_it() -> None:
    # Only the old statement matched the words: the slot's current claim is added after it, then
    # takes the group's first place.
    slot = CLAIMS["cl_light"].slot_key
    order = order_slots(scored("ev_dark", "ev_other"), CITED, CLAIMS, now(), {slot: [CLAIMS["cl_dark"], CLAIMS["cl_light"]]})
    assert [s.item_id for s in order.scored] == ["cl_light", "ev_dark", "ev_other"]
    assert order.added == ("cl_light",) and set(order.claims) == {"cl_light"}
    assert order.scored[0].ranks == {"slot": 1} and MAX_ADDED >= 1


def test_forgotten_claims_make_no_slot() -> None:
    gone = claims(asserted("cl_x", "x", 0, evidence=("ev_x",)),
                  ItemForgotten(event_id="lg_f", stream_id="cl_x", version=2, recorded_at=day(1), namespace="default",
                                reason="asked"))
    assert slot_groups(scored("ev_x", "cl_x"), {"ev_x": ["cl_x"]}, gone) == {}


def _candidates(text: list[str] = (), vector: list[tuple[str, float]] = ()) -> dict[str, list[Candidate]]:
    return {"text": [Candidate(i, "claim" if i.startswith("cl_") else "event", n + 1, 1.0) for n, i in enumerate(text)],
            "vector": [Candidate(i, "claim" if i.startswith("cl_") else "event", n + 1, s)
                       for n, (i, s) in enumerate(vector)]}


def _fused(*pairs: tuple[str, float]) -> list[Scored]:
    return [Scored(item_id=i, kind="claim" if i.startswith("cl_") else "event", relevance=s, score=s, similarity=s)
            for i, s in pairs]


SLOTS = {"cl_light": frozenset({"theme"}), "ev_light": frozenset({"theme"}), "cl_city": frozenset({"city"})}


def test_a_word_naming_a_slot_keeps_its_claims() -> None:
    fused = _fused(("ev_chat", 0.80), ("cl_light", 0.70), ("cl_city", 0.60))
    kept = slot_values_kept(fused, _candidates(text=["cl_light"]), SLOTS, None)
    assert [s.item_id for s in kept] == ["cl_light"]


def test_meaning_keeps_one_slot_only_when_the_nearest_memory_is_a_slot_value() -> None:
    fused = _fused(("ev_light", 0.81), ("cl_city", 0.80), ("cl_light", 0.795), ("ev_chat", 0.70))
    kept = slot_values_kept(fused, _candidates(), SLOTS, 0.79)
    assert [s.item_id for s in kept] == ["ev_light", "cl_light"]  # the city is another slot
    small_talk_nearest = _fused(("ev_chat", 0.815), ("ev_light", 0.81), ("cl_light", 0.80))
    assert slot_values_kept(small_talk_nearest, _candidates(), SLOTS, 0.79) == []
    assert slot_values_kept(fused, _candidates(), SLOTS, None) == []  # no slot floor: words only
    assert slot_values_kept(_fused(("ev_light", 0.70)), _candidates(), SLOTS, 0.79) == []


def test_only_questions_about_facts_or_times_fall_back() -> None:
    def intent(q: str) -> object:
        return understand(q, now=NOW, times=temporal)

    assert asks_for_values(intent("what theme do I use?"))  # about the user
    assert asks_for_values(intent("what did we use for tasks before?"))  # a time
    assert not asks_for_values(intent("what is the capital of France?"))
    assert not asks_for_values(None)


def test_a_past_value_nothing_shown_replaces_is_not_marked_history() -> None:
    # ev_dark's value ended, but no item says what holds instead: it keeps its place and its mark off
    # (a past plan, say, is still worth showing in a packet).
    alone = order_slots(scored("ev_dark", "ev_other"), CITED, CLAIMS, now())
    assert alone.history == frozenset()
    with_current = order_slots(scored("ev_dark", "ev_light"), CITED, CLAIMS, now())
    assert with_current.history == frozenset({"ev_dark"})
