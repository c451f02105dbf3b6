"""``hlmem ops report``'s packets section: per UTC day, context packets served, their mean tokens and the
history they stood in for (ADR 0061; the numbers come from ``packet_activity``, migration 0020).

A day is listed when it touches the period (``--since`` to now) and a packet was served on it; its
numbers are the whole day's. What a running process still buffers (up to five minutes of packets)
is not in the file yet and so not in the report.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import apsw

from hlmem.adapters.packet_log import day_of
from hlmem.adapters.sqlite.packet_log import read_days


def packets(con: apsw.Connection | None, since: datetime, now: datetime) -> dict[str, Any]:
    """``{"days": [...], "total": {...}}``: each day's packets, tokens (sum and mean), history tokens
    (sum and mean per packet) and ``saved_tokens`` (history − packets; negative when the packets
    cost more than the sessions they came from)."""
    has = con is not None and con.execute(
        "SELECT 1 FROM sqlite_schema WHERE name = 'packet_activity'").fetchone() is not None
    days = read_days(con, day_of(since), day_of(now)) if has else []
    rows = [_numbers({"day": d.day.isoformat()}, d.packets, d.tokens, d.history_tokens) for d in days]
    total = _numbers({}, sum(d.packets for d in days), sum(d.tokens for d in days),
                     sum(d.history_tokens for d in days))
    return {"days": rows, "total": total}


def _numbers(out: dict[str, Any], n: int, tokens: int, history: int) -> dict[str, Any]:
    out.update(packets=n, tokens=tokens, tokens_mean=round(tokens / n, 1) if n else None, history_tokens=history,
               history_tokens_mean=round(history / n, 1) if n else None, saved_tokens=history - tokens)
    return out


def packet_rows(section: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """The section as text rows: day, packets, mean tokens, history tokens per packet, saved (and the share)."""
    rows = []
    for d in [*section["days"], *([{**section["total"], "day": "total"}] if len(section["days"]) > 1 else [])]:
        share = f" ({d['saved_tokens'] / d['history_tokens']:.0%})" if d["history_tokens"] else ""
        rows.append((d["day"], f"{d['packets']:,}", f"{d['tokens_mean']:,.0f}", f"{d['history_tokens_mean']:,.0f}",
                     f"{d['saved_tokens']:,}{share}"))
    return rows
