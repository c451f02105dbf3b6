"""What recall's visibility and final-score stages read of the loaded claims and events (pure)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from hlmem.application.ranking import Features, fold_key_of_text
from hlmem.domain.queries import row_at
from hlmem.domain.state import ClaimState


def held_in(claims: Mapping[str, ClaimState], period: tuple[datetime | None, datetime | None],
             known_at: datetime) -> set[str]:
    """Claims that, as known at ``known_at``, held at some time in ``[start, end)`` (None: open)."""
    start, end = period
    out = set()
    for cid, c in claims.items():
        if c.status.value in ("forgotten", "retracted"):
            continue
        rows = [v for v in c.versions
                if v.recorded_from <= known_at and (v.recorded_to is None or v.recorded_to > known_at)]
        if any((end is None or v.valid_from < end) and (start is None or v.valid_to is None or v.valid_to > start)
               for v in rows):
            out.add(cid)
    return out


def features_of(claims: dict, events: dict, valid_at: datetime, known_at: datetime) -> dict[str, Features]:
    """What the final score reads of each loaded item: its time, importance, feedback and fold key."""
    out: dict[str, Features] = {}
    for cid, c in claims.items():
        held = row_at(c, valid_at, known_at)
        row = held or c.versions[-1]
        # Same subject, predicate, value, coordinates and qualifiers: one fact said twice. Coordinates
        # tell apart facts of one slot family (the version of jieba vs of apsw).
        parts = (c.subject, c.predicate, c.value, *(f"{k}={v}" for k, v in c.coordinates + c.qualifiers))
        key = "claim\x00" + "\x00".join(fold_key_of_text(x) for x in parts)
        out[cid] = Features(when=row.valid_from, importance=c.importance, helpful=c.helpful, unhelpful=c.unhelpful,
                            fold_key=key + ("" if c.polarity else "\x00not"), past=held is None,
                            until=row.valid_to, point=False)
    for eid, e in events.items():
        out[eid] = Features(when=e.occurred_at, helpful=e.helpful, unhelpful=e.unhelpful,
                            fold_key="event\x00" + fold_key_of_text(e.text) if e.text else None)
    return out
