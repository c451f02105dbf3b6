"""Reading a profile question (ADR 0090): the cue rules, the intent model or the bare structure
decide that it is one; the subject is read against the subjects with a profile, the side by its
words; without a subject with a profile there is no profile question, whatever the intent."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from hlmem.application.recall.profile_question import read_profile
from hlmem.domain.ask_features import IntentReading
from hlmem.domain.profile_intent import ProfileAsk

from hlmem.adapters.clock import FixedClock
from hlmem.adapters.ids import SequentialIds
from hlmem.adapters.inmemory.store import InMemoryStorage
from hlmem.application.derived import DerivedService
from hlmem.application.derived_guard import guarded
from hlmem.application.writes import WriteService
from hlmem.domain.commands import AssertClaim
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY



class World:
    def __init__(self) -> None:
        self.storage, self.clock, ids = InMemoryStorage(), FixedClock(datetime(2026, 3, 1, tzinfo=timezone.utc)), SequentialIds()
        self.writes = WriteService(guarded(self.storage, ids), self.clock, ids, DEFAULT_REGISTRY, None)
        self.derived = DerivedService(self.storage, self.clock, ids, DEFAULT_REGISTRY)

    def say(self, subject: str, predicate: str, value: str) -> None:
        self.writes.remember(AssertClaim(subject=subject, predicate=predicate, value=value))


class Intent:
    """Reads every question as ``probability`` against 0.5."""

    def __init__(self, probability: float) -> None:
        self.probability, self.asked = probability, []

    def reading(self, text: str) -> IntentReading:
        self.asked.append(text)
        return IntentReading(self.probability, 0.5, "test")


@pytest.fixture
def world() -> World:
    w = World()
    for subject, predicate, value in [("Bob", "employer", "Acme"), ("Bob", "likes", "jazz"), ("Bob", "likes", "cycling"),
                                      ("user's sister", "lives_in", "Berlin"), ("用户", "diet", "素食"),
                                      ("用户", "allergy", "花生")]:
        w.say(subject, predicate, value)
    w.derived.build()
    return w


def read(world: World, question: str, intent: Intent | None) -> tuple[ProfileAsk | None, list[str]]:
    notes: list[str] = []
    return read_profile(question, world.storage, "default", intent, notes), notes


@pytest.mark.parametrize(("question", "ask"), [
    ("hey quick q — what do you remember about Bob?", ProfileAsk("Bob")),
    ("我妹的情况你都知道些什么？", ProfileAsk("user's sister")),
    ("我吃东西有啥要注意的，你帮我总结一下", ProfileAsk("用户", "health")),
    ("give me a quick rundown on Bob's hobbies stuff", ProfileAsk("Bob", "preferences")),
])
def test_the_intent_model_reads_it_and_the_subject_and_side_are_read(world: World, question: str, ask: ProfileAsk) -> None:
    found, notes = read(world, question, Intent(0.9))
    assert found == ask
    assert any("intent model (test, p=0.90" in n for n in notes)


def test_no_subject_with_a_profile_means_no_profile_question(world: World) -> None:
    assert read(world, "hey, got anything on Carol? tell me", Intent(0.99))[0] is None


def test_a_value_question_the_model_does_not_read_as_profile_stays_a_value_question(world: World) -> None:
    intent = Intent(0.1)
    assert read(world, "what kind of music is Bob into?", intent)[0] is None
    assert intent.asked == ["what kind of music is Bob into?"]


def test_a_bare_subject_is_a_profile_question_without_any_model(world: World) -> None:
    found, notes = read(world, "Bob's work stuff?", None)
    assert found == ProfileAsk("Bob", "work") and any("nothing else to ask" in n for n in notes)
    assert read(world, "where does Bob work?", None)[0] is None


def test_the_cue_rules_need_no_model_and_keep_their_subject_when_none_is_stored(world: World) -> None:
    intent = Intent(0.0)
    assert read(world, "what do you know about Bob?", intent)[0] == ProfileAsk("Bob")
    assert read(world, "what do you know about Carol?", intent)[0] == ProfileAsk("Carol")
    assert intent.asked == []  # the cues decided; the model was not asked
    assert read(world, "说说小明平时喜欢干嘛", None)[0] is not None  # cued, subject as the cue read it


def test_a_long_question_the_model_does_not_read_is_not_read_further(world: World) -> None:
    long = "Bob " + "and so on " * 10
    assert read(world, long, Intent(0.0))[0] is None
    assert read(world, "   ", Intent(1.0))[0] is None
