"""Decisions about relations, purely: proposals, review, and the lifecycle that follows evidence.

Command functions return events and mutate nothing (ADR 0081):

- :func:`decide_proposals` turns rule candidates into ``RelationProposed`` (a new edge, or a
  retired one found again) or ``RelationCorroborated`` (new evidence for a proposed or accepted
  edge); a rejected or forgotten edge is never proposed again;
- :func:`decide_review` accepts or rejects an edge (refused: an edge that is retired or forgotten,
  or an accept without live evidence);
- :func:`decide_lifecycle` is what the write path appends in the same transaction as a change of
  evidence: an open edge whose evidence claim was superseded, retracted or expired is retired; an
  edge whose evidence (claim or event) was forgotten is tombstoned, its payloads erased.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from datetime import datetime

from attrs import frozen

from hlmem.domain.errors import DomainRuleViolation, NotFound
from hlmem.domain.events import ClaimExpired, ClaimRetracted, ClaimSuperseded, DomainEvent, ItemForgotten
from hlmem.domain.relation_events import (
    RelationAccepted,
    RelationCorroborated,
    RelationProposed,
    RelationRejected,
    RelationRetired,
)
from hlmem.domain.relations import (
    ACCEPTED,
    FORGOTTEN,
    OPEN,
    PROPOSED,
    REJECTED,
    RELATION_TYPES,
    RETIRED,
    Entity,
    RelationState,
    relation_id,
)


@frozen
class RelationCandidate:
    """An edge a rule found: ``source —relation→ target`` resting on ``evidence`` (claim and event ids)."""

    relation: str
    source: Entity
    target: Entity
    evidence: tuple[str, ...]
    rule: str
    valid_from: datetime

    def __attrs_post_init__(self) -> None:
        if self.relation not in RELATION_TYPES:
            raise ValueError(f"unknown relation type {self.relation!r}")


def candidate_id(candidate: RelationCandidate, namespace: str, key: bytes) -> str:
    """The stream the candidate's edge lives on."""
    return relation_id(namespace, candidate.source.id(key), candidate.relation, candidate.target.id(key), key)


def decide_proposals(candidates: Iterable[RelationCandidate], existing: Mapping[str, RelationState], *,
                     forgotten: Collection[str], namespace: str, key: bytes, new_id: Callable[[str], str],
                     recorded_at: datetime) -> tuple[DomainEvent, ...]:
    """The events that put ``candidates`` in the review queue (``existing``: the states of their
    streams, as read in the same transaction). Candidates of one edge are merged.

    ``forgotten``: the candidates' stream ids the tombstone ledger holds. An edge forgotten before
    a restore to an earlier backup has no stream in the restored log, only its tombstone; it is
    never proposed again either (its new events would replay redacted)."""
    merged: dict[str, tuple[RelationCandidate, tuple[str, ...], tuple[str, ...]]] = {}
    for c in candidates:
        rid = candidate_id(c, namespace, key)
        first, evidence, rules = merged.get(rid, (c, (), ()))
        merged[rid] = (first, tuple(dict.fromkeys((*evidence, *c.evidence))), tuple(dict.fromkeys((*rules, c.rule))))
    events: list[DomainEvent] = []
    for rid in sorted(merged):
        if rid in forgotten:
            continue
        c, evidence, rules = merged[rid]
        state = existing.get(rid)
        base = dict(event_id=new_id("lg"), stream_id=rid, recorded_at=recorded_at, namespace=namespace)
        if state is None or state.status == RETIRED:
            events.append(RelationProposed(
                **base, version=1 if state is None else state.version + 1, relation=c.relation,
                source_id=c.source.id(key), source_kind=c.source.kind, source_name=c.source.name,
                target_id=c.target.id(key), target_kind=c.target.kind, target_name=c.target.name,
                evidence=evidence, rule=",".join(rules), valid_from=c.valid_from))
        elif state.status in OPEN and (fresh := tuple(e for e in evidence if e not in state.evidence)):
            events.append(RelationCorroborated(**base, version=state.version + 1, evidence=fresh,
                                               rule=",".join(r for r in rules if r not in state.rules)))
    return tuple(events)


def decide_review(state: RelationState | None, relation_id_: str, *, accept: bool, actor: str, reason: str,
                  live: bool, new_id: Callable[[str], str], recorded_at: datetime) -> tuple[DomainEvent, ...]:
    """Accept or reject one edge; ``live``: whether its evidence is live now (checked by the caller
    in the same transaction). Repeating the decision an edge already has changes nothing."""
    if state is None:
        raise NotFound(f"no relation {relation_id_}")
    if state.status == FORGOTTEN:
        raise DomainRuleViolation(f"relation {relation_id_} was forgotten")
    if state.status == RETIRED:
        raise DomainRuleViolation(f"relation {relation_id_} is retired: its evidence is no longer current")
    if state.status == (ACCEPTED if accept else REJECTED):
        return ()
    if accept and not live:
        raise DomainRuleViolation(f"relation {relation_id_} has no live evidence to accept it on")
    assert state.status in (PROPOSED, ACCEPTED, REJECTED)
    cls = RelationAccepted if accept else RelationRejected
    return (cls(event_id=new_id("lg"), stream_id=relation_id_, version=state.version + 1, recorded_at=recorded_at,
                namespace=state.namespace, actor=actor, reason=reason),)


# -- the lifecycle that follows evidence -----------------------------------------------------------

_REASONS = {ClaimSuperseded: "superseded", ClaimRetracted: "retracted", ClaimExpired: "expired"}


@frozen
class Trigger:
    """How one evidence item changed in a batch: ``reason`` and, for a claim, the end of its validity."""

    reason: str
    valid_to: datetime | None = None


def relation_triggers(events: Sequence[DomainEvent]) -> dict[str, Trigger]:
    """Claims and events whose change in ``events`` touches an edge resting on them (a forget
    outweighs any other change of the same item in one batch)."""
    out: dict[str, Trigger] = {}
    for event in events:
        sid = event.stream_id
        if isinstance(event, ItemForgotten) and sid[:3] in ("cl_", "ev_"):
            out[sid] = Trigger(FORGOTTEN)
        elif (reason := _REASONS.get(type(event))) and sid.startswith("cl_") and sid not in out:
            end = event.valid_to if isinstance(event, (ClaimSuperseded, ClaimExpired)) else event.recorded_at
            out[sid] = Trigger(reason, end)
    return out


@frozen
class LifecycleDecision:
    """What the write path appends with the evidence change: ``events``; ``erase``: relation streams
    whose payloads must be redacted (their names came from forgotten content); ``forgotten``: the
    same streams, tombstoned by ``events`` (the ledger records them)."""

    events: tuple[DomainEvent, ...] = ()
    erase: tuple[str, ...] = ()

    @property
    def forgotten(self) -> tuple[str, ...]:
        return self.erase


def decide_lifecycle(triggers: Mapping[str, Trigger], citing: Mapping[str, RelationState], *,
                     new_id: Callable[[str], str], recorded_at: datetime,
                     cascade_of: str | None = None) -> LifecycleDecision:
    """Retire open edges whose evidence claims stopped being current; tombstone every edge (any
    status but forgotten) whose evidence was forgotten."""
    events: list[DomainEvent] = []
    erase: list[str] = []
    for rid in sorted(citing):
        state = citing[rid]
        if state.status == FORGOTTEN:
            continue
        hit = [i for i in state.evidence if i in triggers]
        if not hit:
            continue
        base = dict(event_id=new_id("lg"), stream_id=rid, version=state.version + 1, recorded_at=recorded_at,
                    namespace=state.namespace)
        if any(triggers[i].reason == FORGOTTEN for i in hit):
            events.append(ItemForgotten(**base, reason="its evidence was forgotten", actor="system",
                                        cascade_of=cascade_of))
            erase.append(rid)
        elif state.status in OPEN:
            ends = [t.valid_to for i in hit if (t := triggers[i]).valid_to is not None]
            events.append(RelationRetired(**base, reason=",".join(sorted({triggers[i].reason for i in hit})),
                                          triggers=tuple(hit), valid_to=min(ends) if ends else recorded_at))
    return LifecycleDecision(tuple(events), tuple(erase))
