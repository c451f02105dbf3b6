"""Whose fact (ADR 0089): a question's asked subject ranks that person's values before the same kind
of value about someone else — the user's for "我"/"I", the sister's for 我妹/"my sister", Bob's for
"Bob" — and leaves every other item where relevance put it."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from attrs import evolve as attrs_evolve

from hlmem.adapters.clock import FixedClock
from hlmem.adapters.ids import SequentialIds
from hlmem.adapters.inmemory.store import InMemoryStorage
from hlmem.application.ports import Candidate
from hlmem.application.ranking import RankingConfig, Scored
from hlmem.application.recall import RecallService
from hlmem.application.recall.floor import slot_values_kept
from hlmem.application.recall.subject_order import order_by_subject, subject_order
from hlmem.application.writes import WriteService
from hlmem.domain.asked_subject import AskedSubject
from hlmem.domain.commands import AssertClaim
from hlmem.domain.events import Cardinality, Scope
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY
from hlmem.domain.state import ClaimState

T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)
FACTS = [("用户", "lives_in", "杭州"), ("user's sister", "lives_in", "Berlin"), ("Bob", "lives_in", "Paris"),
         ("用户", "employer", "字节跳动"), ("Bob", "employer", "Acme"), ("user's sister", "employer", "Siemens"),
         ("Alice", "allergy", "cats"), ("用户", "allergy", "花生")]


def recall_service(order: list[tuple[str, str, str]], **ranking) -> RecallService:
    storage, clock, ids = InMemoryStorage(), FixedClock(T0), SequentialIds()
    writes = WriteService(storage, clock, ids, DEFAULT_REGISTRY, None)
    for subject, predicate, value in order:
        writes.remember(AssertClaim(subject=subject, predicate=predicate, value=value))
    return RecallService(storage, clock, None, ranking=RankingConfig(**ranking))


QUESTIONS = [
    ("我住在哪个城市？", "杭州"), ("我妹住在哪个城市？", "Berlin"), ("where does Bob live?", "Paris"),
    ("where does my sister live?", "Berlin"), ("我在哪家公司上班", "字节跳动"), ("我妹妹在哪家公司上班？", "Siemens"),
    ("Where does Bob work?", "Acme"), ("我对什么过敏？", "花生"), ("Alice对什么过敏？", "cats"),
]


@pytest.mark.parametrize("reverse", [False, True], ids=["written-first", "written-last"])
@pytest.mark.parametrize(("question", "value"), QUESTIONS)
def test_the_asked_subjects_value_comes_first(question: str, value: str, reverse: bool) -> None:
    service = recall_service(FACTS[::-1] if reverse else FACTS)
    items = service.recall(question, k=5).items
    assert items and items[0].value == value, [i.text for i in items]


def test_without_the_stage_words_alone_put_a_third_party_first() -> None:
    """The bug this stage fixes: equal words, and the newer of the two claims won."""
    facts = [("用户", "employer", "字节跳动"), ("Bob", "employer", "Acme")]
    assert recall_service(facts, asked_subject=False).recall("我在哪家公司上班", k=5).items[0].value == "Acme"
    result = recall_service(facts).recall("我在哪家公司上班", k=5)
    assert result.items[0].value == "字节跳动"
    assert any(n.startswith("asked subject: user ('我'); 1 item(s) placed") for n in result.notes)
    facts = [("user's sister", "lives_in", "Berlin"), ("用户", "lives_in", "杭州")]
    assert recall_service(facts, asked_subject=False).recall("我妹住在哪个城市？", k=5).items[0].value == "杭州"
    assert recall_service(facts).recall("我妹住在哪个城市？", k=5).items[0].value == "Berlin"


def test_understand_query_off_leaves_the_order() -> None:
    facts = [("用户", "employer", "字节跳动"), ("Bob", "employer", "Acme")]
    items = recall_service(facts).recall("我在哪家公司上班", k=5, understand_query=False).items
    assert items[0].value == "Acme"


# --- the ordering itself -----------------------------------------------------------------------------

def claim(cid: str, subject: str, predicate: str, value: str) -> ClaimState:
    return ClaimState(claim_id=cid, namespace="default", subject=subject, predicate=predicate, value=value,
                      qualifiers=(), coordinates=(), polarity=True, importance=0.3, scope=Scope.PERMANENT,
                      cardinality=Cardinality.SINGLE, source="user", recorded_at=T0, version=1)


def ranked(*ids_kinds: tuple[str, str]) -> list[Scored]:
    n = len(ids_kinds)
    return [Scored(item_id=i, kind=k, relevance=1.0, score=float(n - p), ranks={"text": p + 1})
            for p, (i, k) in enumerate(ids_kinds)]


def test_order_only_swaps_within_a_kind_and_keeps_scores_sorted() -> None:
    claims = {"a": claim("a", "Alice", "allergy", "cats"), "u": claim("u", "用户", "allergy", "花生"),
              "b": claim("b", "Bob", "employer", "Acme"), "d": claim("d", "用户", "diet", "素食")}
    scored = ranked(("a", "claim"), ("b", "claim"), ("t", "event"), ("u", "claim"), ("d", "claim"))
    out, moved = order_by_subject(scored, {i: [c] for i, c in claims.items()}, AskedSubject("user"))
    assert [s.item_id for s in out] == ["u", "b", "t", "a", "d"]  # Bob's employer and the turn stay
    assert moved == 1 and out[0].ranks.get("subject") == 1
    assert [s.score for s in out] == [s.score for s in scored]
    joined = [s if s.item_id != "u" else Scored(item_id="u", kind="claim", relevance=0.1, score=s.score,
                                                 ranks={"slot": 1}) for s in scored]
    out, moved = order_by_subject(joined, {i: [c] for i, c in claims.items()}, AskedSubject("user"))
    # joined by the slot stage, not found by the question: it takes no one's place (the diet, found, does)
    assert [s.item_id for s in out] == ["d", "b", "t", "u", "a"] and moved == 1


def test_a_family_yields_when_the_asked_subject_lacks_the_predicate() -> None:
    claims = {"h": claim("h", "user's sister", "hobby", "painting"), "l": claim("l", "用户", "likes", "爬山"),
              "w": claim("w", "user's sister", "sibling", "用户")}
    scored = ranked(("h", "claim"), ("w", "claim"), ("l", "claim"))
    out, _ = order_by_subject(scored, {i: [c] for i, c in claims.items()}, AskedSubject("user"))
    assert [s.item_id for s in out] == ["l", "w", "h"]


def test_an_event_counts_by_the_claims_citing_it_and_a_value_naming_the_person_is_no_rival() -> None:
    claims_of = {"e1": [claim("c1", "user's sister", "lives_in", "Berlin")],
                 "e2": [claim("c2", "用户", "lives_in", "杭州")],
                 "f": [claim("f", "用户", "friend", "Bob")], "bl": [claim("bl", "Bob", "lives_in", "Paris")]}
    scored = ranked(("e1", "event"), ("f", "claim"), ("e2", "event"))
    out, _ = order_by_subject(scored, claims_of, AskedSubject("user", ("妹",)))
    assert [s.item_id for s in out] == ["e1", "f", "e2"]  # already first
    out, _ = order_by_subject(scored, claims_of, AskedSubject("user"))
    assert [s.item_id for s in out] == ["e2", "f", "e1"]
    out, moved = order_by_subject(ranked(("f", "claim"), ("bl", "claim")), claims_of, AskedSubject("Bob"))
    assert [s.item_id for s in out] == ["f", "bl"] and moved == 0


def test_a_negated_claim_neither_leads_nor_yields() -> None:
    """"用户的妈妈 · owns · NOT 泰迪" says what the mother does not have: it is no value of hers."""
    claims_of = {"n": [attrs_evolve(claim("n", "用户的妈妈", "owns", "泰迪"), polarity=False)],
                 "u": [claim("u", "用户", "owns", "虎皮鹦鹉")]}
    scored = ranked(("u", "claim"), ("n", "claim"))
    notes: list[str] = []
    claims = {cs[0].claim_id: cs[0] for cs in claims_of.values()}
    assert subject_order("我妈最近养的是啥宠物？", scored, claims, [], notes) is None and not notes


def test_a_claim_given_the_user_from_a_turn_about_him_is_in_doubt() -> None:
    """"开学第二天，他已经…上一年级了" gave the user the son's grade: that claim does not yield to the son's."""
    son = attrs_evolve(claim("s", "用户的儿子", "education", "幼儿园大班"), evidence=("e1",))
    user = attrs_evolve(claim("u", "用户", "education", "一年级"), evidence=("e2",))
    said = {"e1": "儿子在幼儿园大班，今天老师说他午睡总说话", "e2": "开学第二天，他已经能自己背书包进校门了，上一年级了"}
    scored = ranked(("u", "claim"), ("s", "claim"))
    claims = {"s": son, "u": user}
    turns = lambda ids: {i: (said[i], "user") for i in ids}  # noqa: E731
    assert subject_order("我儿子读几年级了？", scored, claims, [], [], turns) is None
    said["e2"] = "我上一年级了"  # said in the first person: the user's value, and it yields to the son's
    out = subject_order("我儿子读几年级了？", scored, claims, [], [], turns)
    assert out is not None and [s.item_id for s in out] == ["s", "u"]


def test_the_floor_keeps_the_asked_subjects_slot() -> None:
    """A failed floor keeps one slot: the sister's employer for 我姐姐, not the user's the words found first."""
    user = [Scored(item_id="u", kind="claim", relevance=0.5, score=0.5, similarity=0.1)]
    sister = [Scored(item_id="s", kind="claim", relevance=0.4, score=0.4, similarity=0.1)]
    rankings = {"text": [Candidate(item_id="u", kind="claim", rank=1, score=2.0)]}
    slots = {"u": frozenset({"ns\x1f@user\x1femployer\x1f"}), "s": frozenset({"ns\x1fuser's sister\x1femployer\x1f"})}
    kept = slot_values_kept(user + sister, rankings, slots, None)
    assert [s.item_id for s in kept] == ["u"]
    kept = slot_values_kept(user + sister, rankings, slots, None, prefer=slots["s"])
    assert [s.item_id for s in kept] == ["s"]  # the asked subject's slot of the same predicate
    kept = slot_values_kept(user + sister, rankings, slots, None, prefer=slots["s"], doubtful=slots["u"])
    assert [s.item_id for s in kept] == ["u"]


def test_in_a_group_chat_the_user_of_a_claim_is_whoever_said_it() -> None:
    """LoCoMo with extraction: "Nate: I went to a cooking show" is stored as ``user · …``; asked
    about Nate, it is Nate's, and Joanna's first-person claim of the kind is the rival."""
    nate = attrs_evolve(claim("n", "user", "visited", "cooking show"), evidence=("e1",))
    joanna = attrs_evolve(claim("j", "user", "visited", "film festival"), evidence=("e2",))
    said = {"e1": ("I went to a cooking show on Monday", "Nate"), "e2": ("I went to a film festival", "Joanna")}
    scored = ranked(("j", "claim"), ("n", "claim"))
    out = subject_order("When did Nate attend a cooking show?", scored, {"n": nate, "j": joanna}, [], [],
                        lambda ids: {i: said[i] for i in ids})
    assert out is not None and [s.item_id for s in out] == ["n", "j"]
    assert subject_order("When did I attend a cooking show?", scored, {"n": nate, "j": joanna}, [], [],
                         lambda ids: {i: said[i] for i in ids}) is None  # neither is the user's


def test_turns_never_move() -> None:
    """A turn cited by someone else's claim may answer for other reasons ("Congrats on the cooking
    show, Nate!"): the stage orders claims only, among the places claims hold."""
    claims = {"u": claim("u", "用户", "lives_in", "杭州"), "s": claim("s", "user's sister", "lives_in", "Berlin")}
    scored = ranked(("e", "event"), ("s", "claim"), ("t", "event"), ("u", "claim"))
    out = subject_order("我住哪个城市？", scored, claims, [], [])
    assert out is not None and [s.item_id for s in out] == ["e", "u", "t", "s"]
