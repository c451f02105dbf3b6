"""The activity role (ADR 0015): access telemetry, lifecycle candidates and the store's small meta values;
and the packet log (ADR 0061): what context packets served stood in for."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Protocol, runtime_checkable

from attrs import frozen

from hlmem.application.ports.search import Candidate
from hlmem.domain.lifecycle import Activity, LifecyclePolicy


@runtime_checkable
class ActivityLog(Protocol):
    """Access telemetry and lifecycle look-ups (ADR 0015). Not in the event log: recall reads
    claims on every call, and an event per read would make every read a durable write.

    Contract:
    - ``record_access(claim_ids, at)`` counts one access of each distinct id at ``at`` (unknown
      ids are ignored). It never raises for a busy store: an adapter may buffer accesses in
      memory and write them later (SQLite: within 5 minutes or 4,096 claims, and at ``close()``),
      so a crash may lose the last few; ``activity`` always includes what this object recorded.
    - ``activity(claim_ids)`` maps each id with recorded accesses to its
      :class:`~hlmem.domain.lifecycle.Activity` (last access, access count; feedback counts are
      the claim state's, not here).
    - ``lifecycle_candidates(kind, now=, policy=, after=, limit=)`` returns, in id order and
      after ``after``, at most ``limit`` claim ids that *may* be due at ``now`` under ``policy``:
      ``kind="expire"`` active claims whose expiry (:func:`~hlmem.domain.lifecycle.expiry_of`)
      has passed; ``kind="archive"`` claims neither archived nor forgotten whose
      :func:`~hlmem.domain.lifecycle.archive_at` has passed. Every due claim is included (a
      superset is allowed: the caller decides with the pure functions); the selection must not
      load every claim (SQLite filters with indexes).
    - ``archived_candidates(namespace, query, limit)`` finds archived (not forgotten) claims of
      ``namespace`` whose subject, predicate, value or qualifier values contain the query's
      terms, best first (``kind="claim"``); the slow, opt-in path of ``include_archived``.
    - ``meta(key)`` / ``set_meta(key, value)`` read and write a small value kept with the store
      (maintenance keeps its cursor there).
    """

    def record_access(self, claim_ids: Sequence[str], at: datetime) -> None: ...

    def activity(self, claim_ids: Sequence[str]) -> dict[str, Activity]: ...

    def lifecycle_candidates(self, kind: str, *, now: datetime, policy: LifecyclePolicy, after: str = "",
                             limit: int = 500) -> list[str]: ...

    def archived_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]: ...

    def meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...


@frozen
class PacketDay:
    """One UTC day of context packets served (issue 39): how many, their tokens, the history they stood in for.

    ``history_tokens`` sums, over the day's packets, the estimated tokens of the whole sessions the
    packet's items came from: what an agent carrying those conversations instead would have paid.
    """

    day: date
    packets: int
    tokens: int
    history_tokens: int


@runtime_checkable
class PacketLog(Protocol):
    """What context packets save (issue 39, ADR 0061): per UTC day, the packets a recall built, their
    tokens, and the tokens of the history they stood in for. Numbers only: neither the packet's text
    nor any id is kept, so forgetting never has anything here to erase.

    Contract:
    - ``record_packet(at, tokens, evidence)`` counts one packet of ``tokens`` tokens served at
      ``at``; ``evidence`` are the event ids behind its items (an event itself, a claim's
      evidence). The history it stood in for is the estimated tokens
      (:func:`hlmem.application.packet.estimate_tokens`) of every event, not forgotten, of the
      sessions those events belong to, one transcript per session; ids of no stored event add
      nothing. It never raises for a busy store: an adapter may buffer and estimate later (SQLite:
      within five minutes or 1,000 packets, and at ``close()``), so a crash may lose the last few.
    - ``packet_days(since, until)`` lists the days from ``since``'s to ``until``'s (UTC, both
      included) with at least one packet, oldest first, including what this object still buffers.
    """

    def record_packet(self, at: datetime, tokens: int, evidence: Sequence[str]) -> None: ...

    def packet_days(self, since: datetime, until: datetime) -> list[PacketDay]: ...
