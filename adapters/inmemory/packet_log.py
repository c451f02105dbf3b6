"""The packet log of the in-memory store (ADR 0061): each packet's numbers worked out when it is reported."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime

from hlmem.adapters.packet_log import Pending, merge_days, session_tokens, totals
from hlmem.application.ports import PacketDay
from hlmem.domain.state import ObservationState


class InMemoryPacketLog:
    """``PacketLog`` over the store's observations (read through ``observations``, never copied).

    Nothing is buffered: the history a packet stood in for is estimated when it is reported, and
    only the day's three numbers are kept.
    """

    def __init__(self, observations: Callable[[], Mapping[str, ObservationState]]) -> None:
        self._observations = observations
        self._days: dict[date, tuple[int, int, int]] = {}
        self._lock = threading.Lock()

    def record_packet(self, at: datetime, tokens: int, evidence: Sequence[str]) -> None:
        pending = Pending()
        pending.add(at, tokens, evidence)
        observations = self._observations()
        session_of = {e: (o.namespace, o.session_id) for e in pending.evidence()
                      if (o := observations.get(e)) is not None and not o.forgotten}
        wanted = set(session_of.values())
        texts: dict[tuple[str, str], list[ObservationState]] = {s: [] for s in wanted}
        for o in observations.values():
            if (o.namespace, o.session_id) in wanted and not o.forgotten:
                texts[(o.namespace, o.session_id)].append(o)
        cost = {s: session_tokens(o.text for o in sorted(found, key=lambda o: (o.occurred_at, o.event_id)))
                for s, found in texts.items()}
        with self._lock:
            for day, (packets, total, history) in totals(pending.take(), session_of, cost.__getitem__).items():
                old = self._days.get(day, (0, 0, 0))
                self._days[day] = (old[0] + packets, old[1] + total, old[2] + history)

    def packet_days(self, since: datetime, until: datetime) -> list[PacketDay]:
        with self._lock:
            return merge_days((), dict(self._days), since, until)
