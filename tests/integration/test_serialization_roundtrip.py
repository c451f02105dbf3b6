"""Round trip of every persisted event type: through the converter, the codec and a real SQLite row."""

from __future__ import annotations

import itertools

import pytest
from attrs import evolve
from hypothesis import given
from strategies import EVENT_STRATEGIES

from hlmem.adapters import serialization
from hlmem.adapters.inmemory.store import InMemoryStorage
from hlmem.adapters.serialization import TAGS, converter, decode, encode_payload, split, tag_of
from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.domain.errors import SchemaError
from hlmem.domain.events import EVENT_TYPES, ClaimAsserted, ConflictOpened, DomainEvent, ObservationRecorded

#: Every tag ever written, in registry order. This list is append-only, like the registry itself:
#: a stored event carries its tag forever, so removing or renaming one orphans data on disk.
#: Add new tags at the end (both here and in ``TAGS``); never edit a line.
KNOWN_TAGS = [
    "observation.recorded.v1",
    "claim.asserted.v1",
    "claim.corroborated.v1",
    "claim.superseded.v1",
    "claim.retracted.v1",
    "item.forgotten.v1",
    "extraction.recorded.v1",
    "conflict.opened.v1",
    "conflict.resolved.v1",
]

TYPE_IDS = [cls.__name__ for cls in EVENT_STRATEGIES]


# --- the registry --------------------------------------------------------------------------------


def test_tag_registry_is_append_only() -> None:
    assert list(TAGS)[: len(KNOWN_TAGS)] == KNOWN_TAGS, "a stored tag was removed, renamed or reordered"


def test_every_event_type_has_exactly_one_tag() -> None:
    tagged = list(TAGS.values())
    for cls in EVENT_TYPES:
        assert tagged.count(cls) == 1, f"{cls.__name__} needs exactly one current tag"


def test_no_tag_is_a_class_name() -> None:
    names = set()
    for cls in EVENT_TYPES:
        names |= {cls.__name__, cls.__qualname__, f"{cls.__module__}.{cls.__qualname__}"}
    lowered = {n.lower() for n in names}
    for tag in TAGS:
        assert tag not in names and tag.lower() not in lowered, f"tag {tag!r} is a class name"


def test_unknown_tag_is_a_schema_error() -> None:
    with pytest.raises(SchemaError):
        decode("claim.asserted.v999", {"event_id": "lg_1"}, "{}")


def test_corrupt_payload_is_a_schema_error() -> None:
    envelope = {"event_id": "lg_1", "stream_id": "cl_1", "version": 1,
                "recorded_at": "2026-03-01T00:00:00.000000Z", "namespace": "default", "schema_version": 1}
    with pytest.raises(SchemaError):
        decode("claim.superseded.v1", envelope, '{"superseded_by": "cl_2", "valid_to": "not a time"}')


def test_upcasters_only_rewrite_known_old_tags() -> None:
    for old, (new, _fn) in serialization.UPCASTERS.items():
        assert old in KNOWN_TAGS and new in TAGS and old != new


# --- the codec -----------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", list(EVENT_STRATEGIES), ids=TYPE_IDS)
def test_converter_round_trip(cls: type[DomainEvent]) -> None:
    @given(EVENT_STRATEGIES[cls])
    def check(event: DomainEvent) -> None:
        assert converter.structure(converter.unstructure(event), cls) == event

    check()


@pytest.mark.parametrize("cls", list(EVENT_STRATEGIES), ids=TYPE_IDS)
def test_codec_round_trip(cls: type[DomainEvent]) -> None:
    @given(EVENT_STRATEGIES[cls])
    def check(event: DomainEvent) -> None:
        envelope, _ = split(event)
        payload = encode_payload(event)
        back = decode(tag_of(event), envelope, payload)
        assert back == event
        assert type(back) is cls
        assert encode_payload(back) == payload  # stable bytes: equal events encode identically

    check()


# --- through a real SQLite row -------------------------------------------------------------------


@pytest.fixture(scope="module")
def sqlite_store(tmp_path_factory: pytest.TempPathFactory):
    store = SQLiteStorage(tmp_path_factory.mktemp("roundtrip") / "s.db", synchronous="OFF")
    yield store
    store.close()


_fresh = itertools.count(1)


@pytest.mark.parametrize("cls", list(EVENT_STRATEGIES), ids=TYPE_IDS)
def test_sqlite_row_round_trip(cls: type[DomainEvent], sqlite_store: SQLiteStorage) -> None:
    @given(EVENT_STRATEGIES[cls])
    def check(event: DomainEvent) -> None:
        # A fresh stream at version 1, so the append is accepted whatever ids were drawn.
        n = next(_fresh)
        prefix = event.stream_id.split("_", 1)[0]
        event = evolve(event, event_id=f"lg_rt{n}", stream_id=f"{prefix}_rt{n}", version=1)
        position = sqlite_store.append([event])
        [stored] = list(sqlite_store.read(after=position - 1, limit=1))
        assert stored.position == position
        assert stored.event == event
        assert type(stored.event) is cls

    check()


# --- projection rows: the states an event creates survive the SQLite row codecs ------------------

#: Event types that create a projected state, and how to read that state back from a store.
CREATING = {
    ObservationRecorded: lambda store, sid: store.get_observations([sid]),
    ClaimAsserted: lambda store, sid: store.get_claims([sid]),
    ConflictOpened: lambda store, sid: store.get_conflicts([sid]),
}


@pytest.mark.parametrize("cls", list(CREATING), ids=[c.__name__ for c in CREATING])
def test_sqlite_projection_round_trip(cls: type[DomainEvent], sqlite_store: SQLiteStorage) -> None:
    memory = InMemoryStorage()

    @given(EVENT_STRATEGIES[cls])
    def check(event: DomainEvent) -> None:
        n = next(_fresh)
        prefix = event.stream_id.split("_", 1)[0]
        event = evolve(event, event_id=f"lg_pr{n}", stream_id=f"{prefix}_pr{n}", version=1)
        if isinstance(event, ClaimAsserted):
            event = evolve(event, superseded_by=None)  # a link to a missing claim is another test's job
        sqlite_store.append([event])
        memory.append([event])
        expected = CREATING[cls](memory, event.stream_id)
        assert list(expected) == [event.stream_id]
        assert CREATING[cls](sqlite_store, event.stream_id) == expected

    check()
