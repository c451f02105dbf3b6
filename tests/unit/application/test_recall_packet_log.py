"""RecallService reports each packet it builds to the packet log (ADR 0061): when, its tokens, the evidence shown."""

from __future__ import annotations

import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

from hlmem.application.ports import PacketDay, PacketLog
from hlmem.application.recall import RecallService
from hlmem.domain.commands import AssertClaim, RecordObservation

_TESTS = str(Path(__file__).resolve().parents[2])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/fakes.py importable in any import mode
    sys.path.insert(0, _TESTS)

from fakes import make_services  # noqa: E402

T0 = datetime(2026, 3, 1, 8, tzinfo=timezone.utc)


class RecordingPacketLog:
    """A PacketLog that keeps every report."""

    def __init__(self) -> None:
        self.reports: list[tuple[datetime, int, list[str]]] = []

    def record_packet(self, at: datetime, tokens: int, evidence) -> None:
        self.reports.append((at, tokens, list(evidence)))

    def packet_days(self, since: datetime, until: datetime) -> list[PacketDay]:
        return []


def test_the_fake_satisfies_the_port() -> None:
    assert isinstance(RecordingPacketLog(), PacketLog)


def test_a_packet_is_reported_with_the_evidence_of_what_it_shows_only() -> None:
    s = make_services(T0)
    log = RecordingPacketLog()
    recall = RecallService(s.storage, s.clock, None, packets=log)
    event = s.writes.record(RecordObservation(text="I moved to Hangzhou in May", session_id="chat-1")).id
    claim = s.writes.remember(AssertClaim(subject="user", predicate="lives_in", value="Hangzhou",
                                          evidence=(event,))).id
    for i in range(30):
        s.writes.record(RecordObservation(text=f"Hangzhou note number {i} " + "with many more words " * 8,
                                          session_id=f"chat-{i + 2}"))
    s.clock.advance(timedelta(hours=1))

    result = recall.recall("Hangzhou", k=30, budget=300)
    (at, tokens, evidence), = log.reports
    assert at == T0 + timedelta(hours=1) and tokens == result.packet.tokens
    shown = [i for i in result.items if i.id in result.packet.included]
    assert shown and result.packet.omitted
    expected = [e for i in shown for e in ((i.id, *i.evidence) if i.kind == "event" else i.evidence)]
    assert evidence == list(dict.fromkeys(expected))
    assert not set(evidence) & set(result.packet.omitted)  # what was left out stood in for nothing
    assert claim in result.packet.included or event in evidence


def test_no_budget_no_packet_no_report_and_an_empty_packet_is_not_served() -> None:
    s = make_services(T0)
    log = RecordingPacketLog()
    recall = RecallService(s.storage, s.clock, None, packets=log)
    s.writes.record(RecordObservation(text="I moved to Hangzhou in May"))
    recall.recall("Hangzhou")
    recall.recall("Hangzhou", budget=5)  # too small for the header and one item: nothing served
    assert log.reports == []
    recall.recall("Hangzhou", budget=500)
    assert len(log.reports) == 1
