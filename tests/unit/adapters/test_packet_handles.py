"""Packet handles (ADR 0092): ``<tag>.<n>`` names item n of a v2 packet this process served, wherever an
id is taken; anything else passes through; a handle it cannot resolve safely is refused, never guessed."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hlmem import Memory
from hlmem.adapters.packet_handles import PacketHandles, packet_format
from hlmem.application.packet import Packet, PacketItem, build_packet
from hlmem.domain.errors import NotFound, ValidationError

NOW = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)


def _packet(ids: tuple[str, ...], tag: str = "bcdfghj") -> Packet:
    return Packet(text="x", tokens=1, budget=10, included=ids, cut=(), omitted=(), tag=tag)


def test_a_handle_names_the_item_its_packet_showed() -> None:
    handles = PacketHandles()
    items = [PacketItem(id=f"ev_{i}", text=f"note {i}", kind="event", occurred_at=NOW) for i in range(3)]
    packet = build_packet(items, budget_tokens=500, now=NOW)
    handles.remember(packet)
    assert [handles.resolve(f"{packet.tag}.{n}") for n in (1, 2, 3)] == ["ev_0", "ev_1", "ev_2"]
    assert handles.resolve(f" {packet.tag}.2 ") == "ev_1"
    with pytest.raises(NotFound, match="shows 3 item"):
        handles.resolve(f"{packet.tag}.4")


@given(st.text(max_size=40))
def test_anything_but_a_handle_passes_through(text: str) -> None:
    handles = PacketHandles()
    handles.remember(_packet(("ev_1",)))
    if not (text.strip().startswith("bcdfghj.") and text.strip()[8:].isdigit()):
        try:
            assert handles.resolve(text) == text
        except NotFound:  # a handle of a packet never served
            assert "." in text


@pytest.mark.parametrize("item_id", ["ev_01JNB3K9PQRSTVWXYZ0123ABCD", "cl_1", "pd_01M99D0NJ8314NC72CKQPZ2393", "", "3"])
def test_ids_are_never_taken_for_handles(item_id: str) -> None:
    assert PacketHandles().resolve(item_id) == item_id


def test_a_handle_this_process_did_not_serve_is_refused_with_the_way_out() -> None:
    with pytest.raises(NotFound, match="did not serve.*packet.included"):
        PacketHandles().resolve("bcdfghj.1")


def test_two_packets_sharing_a_tag_make_it_ambiguous_never_the_wrong_item() -> None:
    handles = PacketHandles()
    handles.remember(_packet(("ev_1", "ev_2")))
    handles.remember(_packet(("ev_1", "ev_2")))  # the same items again: the same table, still fine
    assert handles.resolve("bcdfghj.2") == "ev_2"
    handles.remember(_packet(("ev_9",)))
    with pytest.raises(ValidationError, match="ambiguous"):
        handles.resolve("bcdfghj.1")


def test_only_the_last_packets_are_kept() -> None:
    handles = PacketHandles(kept=2)
    for tag in ("bbbbbbb", "ccccccc", "ddddddd"):
        handles.remember(_packet((f"ev_{tag}",), tag=tag))
    with pytest.raises(NotFound):
        handles.resolve("bbbbbbb.1")
    assert handles.resolve("ddddddd.1") == "ev_ddddddd"


def test_v1_and_empty_packets_leave_no_handles() -> None:
    handles = PacketHandles()
    handles.remember(build_packet([PacketItem(id="cl_1", text="t")], budget_tokens=500, now=NOW, version=1))
    handles.remember(_packet((), tag="bcdfghj"))
    handles.remember(None)
    with pytest.raises(NotFound):
        handles.resolve("bcdfghj.1")


@pytest.mark.parametrize(("asked", "version"), [(None, 2), (1, 1), (2, 2)])
def test_packet_format(asked, version) -> None:
    assert packet_format(asked) == version


@pytest.mark.parametrize("asked", [0, 3, True, "2", 1.5])
def test_an_unknown_packet_format_is_refused(asked) -> None:
    with pytest.raises(ValidationError, match="packet_version"):
        packet_format(asked)


def test_every_memory_method_that_takes_an_id_takes_a_handle() -> None:
    with Memory(":memory:", embedder="hash", now=NOW) as mem:
        mem.add("I moved to Hangzhou last month.", session="s1")
        mem.remember("user", "pet_name", "Miso")
        packet = mem.recall("Hangzhou Miso", budget=400).packet
        assert packet is not None and packet.version == 2 and packet.tag and not any(i in packet.text for i in packet.included)
        handle = {i: f"{packet.tag}.{n}" for n, i in enumerate(packet.included, start=1)}
        claim = next(i for i in packet.included if i.startswith("cl_") and mem.get(i).predicate == "pet_name")
        event = next(i for i in packet.included if i.startswith("ev_"))
        assert mem.resolve(handle[claim]) == claim and mem.get(handle[event]).event_id == event
        assert mem.explain(handle[claim]).claim.claim_id == claim
        assert mem.feedback(handle[event], "helpful").id == event
        assert mem.claim(handle[claim]).claim_id == claim
        assert mem.correct(handle[claim], "Mochi").corrected == claim
        assert mem.forget(handle[event], dry_run=True).target == event
        again = mem.recall("Hangzhou Miso", budget=400, packet_version=1).packet
        assert again.version == 1 and again.tag == "" and event in again.text
        with pytest.raises(ValidationError, match="packet_version"):
            mem.recall("Hangzhou", budget=400, packet_version=3)
        current = mem.recall("pet name", budget=400).packet
        cl = next(i for i in current.included if i.startswith("cl_") and mem.get(i).status.value == "active")
        assert mem.retract(f"{current.tag}.{current.included.index(cl) + 1}").id == cl
