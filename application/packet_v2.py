"""Packet format v2: the tokens go to the content (docs/packet.md, "Format v2"; ADR 0092).

::

    memory v2 (times UTC; [n] = n-th best, named fxqwtzk.n)
    [1] user · lives in · Hangzhou [current 2026-04-01/..]
    2026-02-27 Fri:
    [3] 08:30 我下个月要搬到杭州。
    [2] 09:05 周末去看房子。
    2026-03-01 Sun 09:10 (today):
    [4] Let's sync about the migration plan… [cut]
    [truncated: 1 cut, 2 omitted]

Facts (claims, experience items, profiles) come first, in rank order, each with its label and
validity; events follow grouped by UTC day, oldest day first and in time order within a day, the
day (weekday, "today", "yesterday" or "N days ago" within a week) written once, the time of day
once for the group when every event of it shares it, else at the start of each line. Every line
starts with its handle ``[n]``: the item's rank in the packet, ``Packet.included[n - 1]``. No ids,
no evidence ids, no kind words: an agent names item ``n`` as ``<tag>.n`` (:func:`parse_handle`),
where the tag, in the header, is a digest of the ids shown (the same items give the same tag).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from datetime import datetime, timezone

from hlmem.application.packet_item import PacketItem, label, one_line, validity

VERSION = 2
CUT_MARK = "…"
#: Letters of a packet tag: consonants only, so every tag costs the same estimated tokens.
TAG_LETTERS = "bcdfghjklmnpqrstvwxz"
TAG_LENGTH = 7
_HANDLE = re.compile(rf"([{TAG_LETTERS}]{{{TAG_LENGTH}}})\.([1-9][0-9]{{0,5}})")
_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
#: An item line of a v2 packet: its handle, then (events) the time of day, then the text.
ITEM_LINE = re.compile(r"\[([1-9][0-9]*)\] (?:([0-2][0-9]:[0-5][0-9]) )?(.*)")

Entry = tuple[int, "str | None"]  # (position in the items, the cut text shown, or None for the whole text)


def packet_tag(ids: Sequence[str]) -> str:
    """The tag of a packet showing ``ids`` (in order): 7 consonants from their digest."""
    digest = int.from_bytes(hashlib.sha256("\n".join(ids).encode("utf-8", "surrogatepass")).digest()[:8], "big")
    letters = []
    for _ in range(TAG_LENGTH):
        digest, i = divmod(digest, len(TAG_LETTERS))
        letters.append(TAG_LETTERS[i])
    return "".join(letters)


def parse_handle(text: str) -> tuple[str, int] | None:
    """``("fxqwtzk", 3)`` for the handle ``fxqwtzk.3`` (surrounding spaces allowed); None for anything else."""
    m = _HANDLE.fullmatch(str(text).strip())
    return None if m is None else (m.group(1), int(m.group(2)))


def header(tag: str) -> str:
    return f"memory v{VERSION} (times UTC; [n] = n-th best, named {tag}.n)"


def _day(at: datetime, now: datetime) -> tuple[str, str]:
    v, today = at.astimezone(timezone.utc), now.astimezone(timezone.utc)
    ago = (today.date() - v.date()).days
    rel = {0: "today", 1: "yesterday"}.get(ago, f"{ago} days ago" if 1 < ago < 7 else "")
    return f"{v:%Y-%m-%d} {_WEEKDAYS[v.weekday()]}", rel


def _minute(at: datetime) -> str | None:
    v = at.astimezone(timezone.utc)
    return None if (v.hour, v.minute, v.second, v.microsecond) == (0, 0, 0, 0) else f"{v:%H:%M}"


def fact_line(item: PacketItem, position: int, now: datetime, text: str | None = None) -> str:
    """A claim's, experience item's or profile's line: ``[n] text [label validity]``."""
    body = (text + CUT_MARK) if text is not None else (one_line(item.text) or "(empty)")
    interval = validity(item) if item.kind not in ("mental_model", "observation_summary") else None
    meta = label(item, now) + (f" {interval}" if interval else "")
    return f"[{position + 1}] {body} [{meta}]" + (" [cut]" if text is not None else "")


def event_line(item: PacketItem, position: int, text: str | None = None, minute: str | None = None) -> str:
    """An event's line within its day: ``[n] HH:MM text`` (no time when the group states it)."""
    body = (text + CUT_MARK + " [cut]") if text is not None else (one_line(item.text) or "(empty)")
    return f"[{position + 1}] " + (f"{minute} " if minute else "") + body


def item_line(item: PacketItem, position: int, now: datetime, text: str | None = None) -> str:
    """The line of one item alone, its time of day written (what ``max_item_tokens`` is checked on)."""
    if item.kind == "event":
        return event_line(item, position, text, item.occurred_at and _minute(item.occurred_at))
    return fact_line(item, position, now, text)


def render(pool: Sequence[PacketItem], entries: Sequence[Entry], now: datetime, footer: str | None) -> str:
    """The whole v2 text of ``entries`` (positions in ``pool``, best first), and ``footer`` when given."""
    tag = packet_tag([pool[p].id for p, _ in entries])
    lines = [header(tag)]
    days: dict[str | None, list[Entry]] = {}
    for p, text in entries:
        item = pool[p]
        if item.kind != "event":
            lines.append(fact_line(item, p, now, text))
        else:
            key = None if item.occurred_at is None else f"{item.occurred_at.astimezone(timezone.utc):%Y-%m-%d}"
            days.setdefault(key, []).append((p, text))
    far = datetime.max.replace(tzinfo=timezone.utc)
    for key in sorted(days, key=lambda d: (d is None, d or "")):
        group = sorted(days[key], key=lambda e: (pool[e[0]].occurred_at or far, e[0]))
        minutes = {_minute(pool[p].occurred_at) for p, _ in group} if key is not None else {None}
        shared = minutes.pop() if len(minutes) == 1 else None
        if key is None:
            lines.append("undated:")
        else:
            day, rel = _day(pool[group[0][0]].occurred_at, now)  # type: ignore[arg-type]
            lines.append(day + (f" {shared}" if shared else "") + (f" ({rel})" if rel else "") + ":")
        for p, text in group:
            item = pool[p]
            minute = None if shared or item.occurred_at is None else _minute(item.occurred_at)
            lines.append(event_line(item, p, text, minute))
    return "\n".join([*lines, footer] if footer else lines)
