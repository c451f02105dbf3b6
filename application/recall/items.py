"""What a recall returns: its items (a claim or an event, with why it ranked and its clocks) and result."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from attrs import field, frozen

from hlmem.domain.queries import row_at

if TYPE_CHECKING:
    from hlmem.application.packet import Packet
    from hlmem.application.ranking import Scored
    from hlmem.domain.query_understanding import QueryIntent
    from hlmem.domain.state import ClaimState, ObservationState


@frozen(kw_only=True)
class RecallItem:
    """One recalled claim or event, with why it ranked (its per-source ranks) and its clocks."""

    id: str
    kind: str
    text: str
    score: float
    ranks: dict[str, int] = field(factory=dict)
    evidence: tuple[str, ...] = ()
    subject: str | None = None
    predicate: str | None = None
    value: str | None = None
    qualifiers: tuple[tuple[str, str], ...] = ()
    polarity: bool | None = None
    status: str | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    recorded_from: datetime | None = None
    recorded_to: datetime | None = None
    occurred_at: datetime | None = None
    session_id: str | None = None
    role: str | None = None
    #: Out of normal recall (lifecycle); returned only with ``include_archived``.
    archived: bool = False
    #: Near-duplicates folded into this item (ranking); their evidence is in ``evidence``.
    folded: tuple[str, ...] = ()
    #: An event whose every extracted claim ended or was retracted by ``valid_at``: a record of the
    #: past, ranked after the current value and left out of a current-time packet (ADR 0060).
    history: bool = False
    # The experience channel's items (kind policy/procedure, docs/experience.md): their support.
    support: int | None = None
    successes: int | None = None
    failures: int | None = None
    reliability: float | None = None
    steps: tuple[str, ...] = ()
    policy_id: str | None = None


@frozen
class RecallResult:
    """Items best first, with the instants they were filtered at, and notes on degraded paths."""

    items: tuple[RecallItem, ...]
    valid_at: datetime
    known_at: datetime
    notes: tuple[str, ...] = ()
    #: What the query was read as (time mode, inferred instants, entities); None when not read.
    intent: QueryIntent | None = None
    #: The context packet for the agent's prompt when a token budget was given (docs/packet.md).
    packet: Packet | None = None



def build_items(chosen: Sequence[Scored], claims: Mapping[str, ClaimState], events: Mapping[str, ObservationState],
                valid_at: datetime, known_at: datetime, *, history: frozenset[str] = frozenset()) -> list[RecallItem]:
    """The recall items of ``chosen``; a claim carries the evidence of the claims folded into it
    (folding joins only loaded items, so their claims are in ``claims``); ``history``: the events
    that record only past values (:mod:`hlmem.application.recall.slots`)."""
    items = []
    for s in chosen:
        item_id, score, ranks = s.item_id, s.score, dict(s.ranks)
        if item_id in claims:
            c = claims[item_id]
            row = row_at(c, valid_at, known_at) or c.versions[-1]
            items.append(RecallItem(
                id=item_id, kind="claim", text=render_claim(c.subject, c.predicate, c.value, c.qualifiers, c.polarity),
                score=score, ranks=ranks, subject=c.subject, predicate=c.predicate, folded=s.folded,
                evidence=tuple(dict.fromkeys(c.evidence + tuple(
                    e for f in s.folded if f in claims for e in claims[f].evidence))),
                value=c.value, qualifiers=c.qualifiers, polarity=c.polarity, status=c.status.value, archived=c.archived,
                valid_from=row.valid_from, valid_to=row.valid_to, recorded_from=row.recorded_from,
                recorded_to=row.recorded_to,
            ))
        elif item_id in events:
            e = events[item_id]
            items.append(RecallItem(
                id=item_id, kind="event", text=e.text, score=score, ranks=ranks, evidence=(item_id, *s.folded),
                folded=s.folded,
                occurred_at=e.occurred_at, recorded_from=e.recorded_at, session_id=e.session_id, role=e.role,
                history=item_id in history,
            ))
    return items



def render_claim(subject: str, predicate: str, value: str, qualifiers: tuple[tuple[str, str], ...],
                 polarity: bool = True) -> str:
    """One-line human rendering of a claim: ``subject · predicate · value (qualifiers)``."""
    text = f"{subject} · {predicate} · {'NOT ' if not polarity else ''}{value}"
    if qualifiers:
        text += " (" + ", ".join(f"{k}={v}" for k, v in qualifiers) + ")"
    return text
