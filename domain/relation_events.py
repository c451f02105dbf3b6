"""Events of relations between people and things (docs/relations.md, ADR 0081).

A relation is a typed edge between two entities (``source —relation→ target``) on its own stream
(``rl_…``, an id derived from the namespace, both entities and the type, so two proposals of one
edge are one stream). Its events:

- :class:`RelationProposed`: a deterministic rule found the edge in current claims or in what the
  user said; it waits in the review queue (also a retired edge proposed again);
- :class:`RelationCorroborated`: more evidence for an edge already proposed or accepted;
- :class:`RelationAccepted` / :class:`RelationRejected`: a review decision;
- :class:`RelationRetired`: an evidence claim was superseded, retracted or expired (valid until
  ``valid_to``);
- :class:`~hlmem.domain.events.ItemForgotten`: evidence was forgotten; the edge's names are erased.

:func:`redact_relation` is what forgetting keeps of each payload: structure (ids, times,
statuses), never the entities' names.
"""

from __future__ import annotations

from datetime import datetime

from attrs import evolve, frozen

from hlmem.domain.events import DomainEvent

#: The stream prefix of relations.
RELATION = "rl"


@frozen(kw_only=True)
class RelationProposed(DomainEvent):
    """A candidate edge ``source —relation→ target``, drawn by ``rule`` from ``evidence``
    (claim and event ids), valid from ``valid_from``; it waits for review."""

    relation: str
    source_id: str
    source_kind: str
    source_name: str
    target_id: str
    target_kind: str
    target_name: str
    evidence: tuple[str, ...]
    rule: str
    valid_from: datetime


@frozen(kw_only=True)
class RelationCorroborated(DomainEvent):
    """Another rule or turn found the same edge: ``evidence`` joins the edge's."""

    evidence: tuple[str, ...]
    rule: str = ""


@frozen(kw_only=True)
class RelationAccepted(DomainEvent):
    """A reviewer accepted the edge: recall may use it (a later round)."""

    actor: str = "user"
    reason: str = ""


@frozen(kw_only=True)
class RelationRejected(DomainEvent):
    """A reviewer rejected the edge: it is never proposed again (rules find it again and again)."""

    actor: str = "user"
    reason: str = ""


@frozen(kw_only=True)
class RelationRetired(DomainEvent):
    """Evidence of the edge stopped being current (``reason``: superseded, retracted, expired,
    comma-joined when several): the edge held until ``valid_to``. ``triggers`` are those claims."""

    reason: str
    triggers: tuple[str, ...] = ()
    valid_to: datetime | None = None
    actor: str = "system"


RELATION_EVENT_TYPES: tuple[type[DomainEvent], ...] = (
    RelationProposed, RelationCorroborated, RelationAccepted, RelationRejected, RelationRetired,
)


def is_relation_stream(stream_id: str) -> bool:
    """Whether a stream id names a relation."""
    return stream_id.startswith(RELATION + "_")


def redact_relation(event: DomainEvent) -> DomainEvent:
    """The event with its content blank: the entities' names, the evidence links and free text."""
    if isinstance(event, RelationProposed):
        return evolve(event, source_name="", target_name="", evidence=(), rule="")
    if isinstance(event, RelationCorroborated):
        return evolve(event, evidence=(), rule="")
    if isinstance(event, (RelationAccepted, RelationRejected)):
        return evolve(event, reason="")
    if isinstance(event, RelationRetired):
        return evolve(event, triggers=())
    return event
