"""What a context packet is made of: :class:`PacketItem` (one recalled fact or event) and the
pieces of a line every packet format shares (one-line text, UTC times, validity labels).

Split from :mod:`hlmem.application.packet`, which re-exports these names; docs/packet.md.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Protocol

from attrs import field, frozen

#: The label of a derived item's line; its evidence are the ids of the claims it was built from.
DERIVED_LABELS = {"mental_model": "profile", "observation_summary": "summary"}
#: Kinds of the experience channel (docs/experience.md), labelled by their kind.
EXPERIENCE_KINDS = ("policy", "procedure", "episode")


class Recalled(Protocol):
    """What :meth:`PacketItem.from_recall` reads: the fields of ``hlmem.application.recall.RecallItem``."""

    @property
    def id(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def score(self) -> float: ...
    @property
    def evidence(self) -> tuple[str, ...]: ...
    @property
    def status(self) -> str | None: ...
    @property
    def valid_from(self) -> datetime | None: ...
    @property
    def valid_to(self) -> datetime | None: ...
    @property
    def occurred_at(self) -> datetime | None: ...
    @property
    def history(self) -> bool: ...


@frozen(kw_only=True)
class PacketItem:
    """One fact or event to put in a packet. ``evidence`` are the ids of the observations behind it."""

    id: str
    text: str
    kind: str = "claim"  # claim | event | policy | procedure | episode | mental_model | observation_summary
    status: str | None = None  # active | superseded | retracted | …, as stored
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    occurred_at: datetime | None = None
    evidence: tuple[str, ...] = field(default=(), converter=tuple)
    score: float | None = None
    #: An event whose every extracted value no longer holds (recall's ``RecallItem.history``, ADR 0060).
    history: bool = False

    @classmethod
    def from_recall(cls, item: Recalled) -> PacketItem:
        """The packet item of a recalled claim or event."""
        return cls(id=item.id, text=item.text, kind=item.kind, status=item.status, valid_from=item.valid_from,
                   valid_to=item.valid_to, occurred_at=item.occurred_at, evidence=item.evidence, score=item.score,
                   history=getattr(item, "history", False))


_LINE_BREAKS = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]+")


def one_line(text: str) -> str:
    """``text`` on one line: a newline inside an item must not start a line that looks like another item."""
    return " ".join(_LINE_BREAKS.sub(" ", text).split())


def when(value: datetime) -> str:
    """An instant in UTC: a date when it is midnight, else ``YYYY-MM-DDTHH:MMZ``."""
    v = value.astimezone(timezone.utc)
    if (v.hour, v.minute, v.second, v.microsecond) == (0, 0, 0, 0):
        return f"{v:%Y-%m-%d}"
    return f"{v:%Y-%m-%dT%H:%MZ}"


def label(item: PacketItem, now: datetime) -> str:
    """The first word of an item's brackets: current, ended, future, a stored status, event, or a kind."""
    if item.kind == "event":
        return "event"
    if item.kind in DERIVED_LABELS:  # a profile or summary, served only while current (ADR 0084)
        return DERIVED_LABELS[item.kind]
    if item.kind in EXPERIENCE_KINDS:  # the experience channel (docs/experience.md)
        return item.kind if (item.status or "active") == "active" else f"{item.kind}, {one_line(item.status)}"
    status = one_line(item.status or "active") or "active"
    if status != "active":
        return status
    if item.valid_to is not None and item.valid_to <= now:
        return "ended"
    if item.valid_from is not None and item.valid_from > now:
        return "future"
    return "current"


def validity(item: PacketItem) -> str | None:
    """A claim's ISO 8601 interval ``<from>/<to>`` (``..`` for an open side), or None without one."""
    if item.valid_from is None and item.valid_to is None:
        return None
    start = when(item.valid_from) if item.valid_from else ".."
    end = when(item.valid_to) if item.valid_to else ".."
    return f"{start}/{end}"
