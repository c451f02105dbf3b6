"""Derived items in recall (ADR 0084): a profile question gets the subject's mental model and the
topic's summary first, with their sources; any other question ranks exactly as without them; a
stale item is never served (left out with a note until the worker rebuilds it); the packet shows them."""

from __future__ import annotations

import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from hlmem.adapters.clock import FixedClock
from hlmem.adapters.ids import SequentialIds
from hlmem.adapters.inmemory.store import InMemoryStorage
from hlmem.application.derived import DerivedService
from hlmem.application.derived_guard import guarded
from hlmem.application.packet import PacketItem, build_packet
from hlmem.application.recall import RecallService
from hlmem.application.recall.derived_items import TOP, about
from hlmem.application.writes import WriteService
from hlmem.domain.commands import AssertClaim
from hlmem.domain.ask_features import IntentReading
from hlmem.domain.derived import index_namespace
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

_TESTS = str(Path(__file__).resolve().parents[2])
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

from fakes import FakeEmbedder, keyword_handler  # noqa: E402

T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)


class World:
    """A store whose writes go through the staleness guard, the derived service and recall."""

    def __init__(self, embedder: FakeEmbedder | None = None) -> None:
        self.storage = InMemoryStorage()
        self.clock = FixedClock(T0)
        ids = SequentialIds()
        self.writes = WriteService(guarded(self.storage, ids), self.clock, ids, DEFAULT_REGISTRY, embedder)
        self.derived = DerivedService(self.storage, self.clock, ids, DEFAULT_REGISTRY, embedder=embedder)
        self.recall = RecallService(self.storage, self.clock, embedder)

    def say(self, subject: str, predicate: str, value: str) -> str:
        return self.writes.remember(AssertClaim(subject=subject, predicate=predicate, value=value)).id


@pytest.fixture
def world() -> World:
    w = World()
    w.say("Bob", "employer", "Acme")
    w.say("Bob", "lives_in", "Paris")
    w.say("Bob", "likes", "jazz")
    w.say("Bob", "likes", "cycling")
    w.say("用户", "diet", "素食")
    w.say("用户", "allergy", "花生")
    w.say("用户", "employer", "字节跳动")
    return w


def test_a_profile_question_gets_the_model_first_with_its_sources(world: World) -> None:
    world.derived.build()
    result = world.recall.recall("what do you know about Bob?")
    first = result.items[0]
    assert first.kind == "mental_model" and first.subject == "Bob"
    bob = {c.claim_id for c in world.storage.subject_claims("default", "Bob")}
    assert set(first.evidence) == bob and first.status == "current"
    assert first.ranks["derived"] == 1 and first.ranks["derived_text"] >= 1 and first.score >= max(i.score for i in result.items[1:])
    assert sum(i.kind in ("mental_model", "observation_summary") for i in result.items) <= TOP
    assert any("profile question about 'Bob'" in n for n in result.notes)


def test_a_topic_gets_its_summary_then_the_model_and_no_other_summary(world: World) -> None:
    world.derived.build()
    items = world.recall.recall("用户的饮食习惯").items
    assert [i.kind for i in items[:2]] == ["observation_summary", "mental_model"]
    assert items[0].predicate == "health" and "素食" in items[0].text
    work = world.recall.recall("说说我的工作情况").items  # no work summary (one claim): the model only
    assert [i.kind for i in work if i.kind != "claim"] == ["mental_model"]


def test_other_questions_rank_exactly_as_without_derived_items(world: World) -> None:
    questions = ["where does Bob work now?", "Bob", "bob", "Bob Acme", "我对什么过敏？", "what does Bob like", "Paris jazz Acme"]
    before = {q: world.recall.recall(q, k=20) for q in questions}
    world.derived.build()
    assert world.storage.text_candidates(index_namespace("default"), "Bob profile", 50)  # indexed, but …
    for q in questions:  # … they never displace, reorder or re-weigh what answers these
        after = world.recall.recall(q, k=20)
        assert (after.items, after.notes) == (before[q].items, before[q].notes), q
    assert world.recall.recall("where does Bob work now?").items[0].value == "Acme"


@pytest.mark.parametrize("question", ["Bob?", "bob?", "Bob's work stuff", "hey, Bob?"])
def test_a_question_that_only_names_a_subject_gets_its_profile(world: World, question: str) -> None:
    world.derived.build()
    result = world.recall.recall(question)
    assert result.items[0].kind == "mental_model" and result.items[0].subject == "Bob"
    assert any("nothing else to ask" in n for n in result.notes)


def test_two_asks_in_one_get_the_profile_first_as_the_whole_question_reads() -> None:
    class Always:
        def reading(self, text: str) -> IntentReading:
            return IntentReading(1.0 if "也说说" in text else 0.0, 0.5, "test")

    w = World()
    w.say("小明", "lives_in", "上海")
    w.say("小明", "likes", "茶")
    w.derived.build()
    w.recall = RecallService(w.storage, w.clock, None, profile_intent=Always())
    result = w.recall.recall("小明住哪？还有别的关于他的也说说")
    assert result.items[0].kind == "mental_model" and result.items[0].subject == "小明"
    assert any(i.kind == "claim" and i.value == "上海" for i in result.items)  # the value asked still comes
    assert len({i.id for i in result.items}) == len(result.items)


def test_a_stale_item_is_left_out_with_a_note_until_it_is_rebuilt(world: World) -> None:
    world.derived.build()
    world.say("Bob", "employer", "Globex")  # supersedes Acme: Bob's model goes stale
    result = world.recall.recall("what do you know about Bob?")
    assert all(i.kind != "mental_model" for i in result.items)
    assert any("stale item(s) about 'Bob' left out" in n for n in result.notes)
    world.derived.build()  # what the worker's derive job does
    fresh = world.recall.recall("what do you know about Bob?").items[0]
    assert fresh.kind == "mental_model" and "Globex" in fresh.text and "Acme" not in fresh.text


def test_an_instant_before_the_sources_held_gets_no_derived_item(world: World) -> None:
    world.derived.build()
    result = world.recall.recall("what do you know about Bob?", valid_at=T0 - timedelta(days=30))
    assert all(i.kind == "claim" for i in result.items)
    assert any("did not all hold" in n for n in result.notes)
    past = world.recall.recall("what did you know about Bob last year?")
    assert all(i.kind == "claim" for i in past.items)


def test_events_only_recall_gets_no_derived_item(world: World) -> None:
    world.derived.build()
    assert all(i.kind == "event" for i in world.recall.recall("what do you know about Bob?", kinds=("event",)).items)


def test_the_packet_shows_them_compact_with_their_source_ids_within_budget(world: World) -> None:
    world.derived.build()
    result = world.recall.recall("tell me about Bob's hobbies", budget=400)
    packet = result.packet
    assert packet is not None and packet.tokens <= 400
    lines = packet.text.splitlines()
    assert lines[1] == "[1] Bob — preferences: likes: cycling, jazz. [summary]"  # v2: handles, no ids
    assert packet.included[0].startswith("dv_")
    v1 = build_packet([PacketItem.from_recall(i) for i in result.items], budget_tokens=400, now=T0,
                      version=1).text.splitlines()
    assert v1[1].startswith("- Bob — preferences: likes: cycling, jazz. [summary; id dv_") and "evidence cl_" in v1[1]
    assert packet.included[0] == result.items[0].id


def test_vectors_find_a_model_across_languages() -> None:
    embedder = FakeEmbedder(keyword_handler(["小明", "profile", "画像", "茶"]))
    w = World(embedder)
    w.say("小明", "likes", "茶")
    w.say("小明", "likes", "咖啡")
    w.derived.build()
    found = w.storage.vector_candidates(index_namespace("default"), embedder.embed_queries(["小明 画像"])[0].astype("<f4").tobytes(),
                                        10)
    assert any(c.kind == "derived" for c in found)
    assert w.recall.recall("介绍一下小明").items[0].kind == "mental_model"


@pytest.mark.parametrize(("item", "asked", "score"), [
    ("Bob", "bob", 2), ("用户", "user", 2), ("我", "用户", 2), ("Bob Smith", "Bob", 1), ("表哥张伟", "张伟", 1),
    ("user's sister", "user", 0), ("user", "user's sister", 0), ("Alice", "Bob", 0), ("Bobby", "Bob", 0),
])
def test_about_matches_the_subject_asked(item: str, asked: str, score: int) -> None:
    assert about(item, asked) == score
