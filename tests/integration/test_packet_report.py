"""``hlmem ops report``'s packets section (ADR 0061): packets served through ``Memory.recall(budget=…)``,
per UTC day, survive closing the store, render as text, and keep nothing a forget would have to erase."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace

from rich.console import Console

from hlmem import Memory
from hlmem.adapters.cli.ops_commands import report_tables
from hlmem.adapters.ops.report import report_dict
from hlmem.adapters.packet_log import session_tokens

T0 = datetime(2026, 3, 1, 22, 0, tzinfo=timezone.utc)
NEEDLE = "ultramarine-harbour-7731"
TRIP = [f"We sailed from {NEEDLE} at dawn.", "The wind turned in the afternoon.", "我们晚上在港口吃了饭。"]


def _free(_path):
    return SimpleNamespace(free=50 << 30)


def _fill(mem: Memory) -> None:
    for text in TRIP:
        mem.add(text, session="trip", extract=False)
    for i in range(20):
        mem.add(f"filler note {i} about tea and the weather", session="filler", extract=False)


def test_packets_per_day_with_the_history_they_stood_in_for(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory(db, embedder="hash", now=T0, synchronous="OFF") as mem:
        _fill(mem)
        first = mem.recall("when did we sail?", budget=400).packet
        mem.recall("when did we sail?", k=3)  # no budget: no packet, nothing counted
        mem.clock.advance(timedelta(hours=3))  # past midnight UTC: the next packet is the next day's
        second = mem.recall("what about tea?", budget=200).packet
    data = report_dict(db, now=T0 + timedelta(hours=4), since=T0 - timedelta(days=1), disk_usage=_free)
    day1, day2 = data["packets"]["days"]
    assert (day1["day"], day1["packets"], day1["tokens"]) == ("2026-03-01", 1, first.tokens)
    assert (day2["day"], day2["packets"], day2["tokens"]) == ("2026-03-02", 1, second.tokens)
    assert day1["history_tokens"] >= session_tokens(TRIP)  # the trip's whole session at least
    assert day1["saved_tokens"] == day1["history_tokens"] - first.tokens
    assert data["packets"]["total"]["packets"] == 2
    assert report_dict(db, now=T0 + timedelta(hours=4), since=T0 + timedelta(hours=3),
                       disk_usage=_free)["packets"]["days"] == [day2]
    console = Console(width=160, record=True)
    for table in report_tables(data):
        console.print(table)
    text = console.export_text()
    assert "context packets" in text and "2026-03-02" in text and f"{day1['saved_tokens']:,}" in text
    json.dumps(data)  # the JSON shape stays serialisable


def test_a_store_without_packets_or_without_the_table_reports_none(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory(db, embedder="hash", now=T0) as mem:
        mem.add("hello", extract=False)
    assert report_dict(db, now=T0, since=T0 - timedelta(days=1), disk_usage=_free)["packets"]["days"] == []
    missing = report_dict(tmp_path / "none.db", now=T0, since=T0, disk_usage=_free)["packets"]
    assert missing == {"days": [], "total": {"packets": 0, "tokens": 0, "tokens_mean": None, "history_tokens": 0,
                                             "history_tokens_mean": None, "saved_tokens": 0}}


def test_forgetting_the_session_a_packet_came_from_leaves_no_text(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory(db, embedder="hash", now=T0, synchronous="OFF") as mem:
        _fill(mem)
        assert NEEDLE in mem.recall("when did we sail?", budget=400).packet.text
        mem.storage.packet_log.flush()
        mem.storage.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert any(NEEDLE.encode() in f.read_bytes() for f in tmp_path.glob("m.db*"))  # on disk before
        mem.forget(session="trip")
        mem.recall("filler note", budget=400)  # another packet after the forget
    assert not any(NEEDLE.encode() in f.read_bytes() for f in tmp_path.glob("m.db*"))
    with Memory(db, embedder="hash", now=T0) as mem:
        rows = mem.storage.connection.execute("SELECT * FROM packet_activity").fetchall()
    assert [r[:2] for r in rows] == [("2026-03-01", 2)] and all(isinstance(v, int) for v in rows[0][1:])


def test_a_v1_packet_is_counted_as_served_not_as_the_v2_packet_of_the_same_items(tmp_path: Path) -> None:
    """The packet the report counts is the one the caller got: a v1 packet is built in v1 by the
    recall itself, not rebuilt from a v2 one after it was counted (ADR 0097)."""
    db = tmp_path / "m.db"
    with Memory(db, embedder="hash", now=T0, synchronous="OFF") as mem:
        _fill(mem)
        v1 = mem.recall("when did we sail?", budget=400, packet_version=1).packet
        v2 = mem.recall("when did we sail?", budget=400).packet
    assert (v1.version, v2.version) == (1, 2)
    assert v1.tokens != v2.tokens  # the same items cost differently in each format
    data = report_dict(db, now=T0 + timedelta(hours=1), since=T0 - timedelta(days=1), disk_usage=_free)
    (day,) = data["packets"]["days"]
    assert (day["packets"], day["tokens"]) == (2, v1.tokens + v2.tokens)
