"""What both stores' packet logs share (ADR 0061): packets not written yet, and the history they stood in for.

A recall that builds a context packet reports it (``PacketLog.record_packet``: when, its tokens,
the event ids behind its items). The log keeps such reports in memory and, when it writes them,
turns each into numbers only: the packet's tokens and the **history tokens** it stood in for,
the estimated tokens (:func:`~hlmem.application.packet.estimate_tokens`) of every session the
packet's items came from, each session's transcript being its events' texts, one a line, oldest
first. The ids are dropped once counted, so what is stored holds no text and no id.

``InMemoryPacketLog`` (:mod:`hlmem.adapters.inmemory.packet_log`) and ``SQLitePacketLog``
(:mod:`hlmem.adapters.sqlite.packet_log`) differ only in how they read sessions and where the
numbers go.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from datetime import date, datetime, timezone

from attrs import define, field

from hlmem.application.packet import estimate_tokens
from hlmem.application.ports import PacketDay

#: Packets buffered before a write is due.
FLUSH_PACKETS = 1_000
#: Seconds (monotonic) after which buffered packets are written at the next packet.
FLUSH_SECONDS = 300.0

#: A session as the stores key it: (namespace, session id).
Session = tuple[str, str]


def day_of(at: datetime) -> date:
    """The UTC day of an aware instant."""
    return at.astimezone(timezone.utc).date()


def session_tokens(texts: Iterable[str]) -> int:
    """The estimated tokens of a session's transcript: its texts, one a line, in order."""
    return estimate_tokens("\n".join(texts))


@define
class Pending:
    """Packets reported and not yet written: per UTC day, each packet's tokens and evidence ids."""

    days: dict[date, list[tuple[int, tuple[str, ...]]]] = field(factory=dict)

    def add(self, at: datetime, tokens: int, evidence: Sequence[str]) -> None:
        """One packet served at ``at``."""
        self.days.setdefault(day_of(at), []).append((int(tokens), tuple(dict.fromkeys(evidence))))

    def __len__(self) -> int:
        return sum(len(packets) for packets in self.days.values())

    def take(self) -> dict[date, list[tuple[int, tuple[str, ...]]]]:
        """Everything pending, leaving nothing."""
        taken, self.days = self.days, {}
        return taken

    def put_back(self, taken: Mapping[date, list[tuple[int, tuple[str, ...]]]]) -> None:
        """Packets taken for a write that failed."""
        for day, packets in taken.items():
            self.days.setdefault(day, [])[:0] = packets

    def evidence(self) -> set[str]:
        """Every event id behind a pending packet."""
        return {e for packets in self.days.values() for _, ids in packets for e in ids}


def totals(days: Mapping[date, list[tuple[int, tuple[str, ...]]]], session_of: Mapping[str, Hashable],
           tokens_of: Callable[[Hashable], int]) -> dict[date, tuple[int, int, int]]:
    """Per day: (packets, tokens, history tokens). A packet's history is the sum of
    ``tokens_of(session)`` over the distinct sessions of its evidence (ids without one add nothing)."""
    out = {}
    for day, packets in days.items():
        history = 0
        for _, ids in packets:
            history += sum(tokens_of(s) for s in {session_of[e] for e in ids if e in session_of})
        out[day] = (len(packets), sum(t for t, _ in packets), history)
    return out


def merge_days(stored: Iterable[PacketDay], pending: Mapping[date, tuple[int, int, int]], since: datetime,
               until: datetime) -> list[PacketDay]:
    """Stored days plus pending totals, within [since's day, until's day], oldest first."""
    first, last = day_of(since), day_of(until)
    out = {d.day: d for d in stored if first <= d.day <= last}
    for day, (packets, tokens, history) in pending.items():
        if first <= day <= last:
            old = out.get(day)
            out[day] = PacketDay(day, packets, tokens, history) if old is None else PacketDay(
                day, old.packets + packets, old.tokens + tokens, old.history_tokens + history)
    return [out[d] for d in sorted(out)]
