"""Relations follow their evidence in the same transaction: the write path's storage, guarded.

Every service that changes claims or records what was said appends through the one storage object
the composition root gives it (:mod:`hlmem.application.derived_guard` is the same idea for derived
items). ``RelationGuard`` wraps it; an ``append`` also appends, inside the same transaction
(ADR 0081):

- what the pure :func:`~hlmem.domain.relation_decisions.decide_lifecycle` returns when the events
  supersede, retract, expire or forget evidence of an edge: ``RelationRetired`` for an open edge;
  for forgotten evidence, the edge's earlier payloads erased through the audited
  ``erase_payloads`` (they carry the entities' names), an ``ItemForgotten`` tombstone and a
  ledger row, so replay, restore and re-import never bring it back. This runs whether relations
  are enabled or not (an edge accepted while they were on still follows its evidence);
- when relations are enabled, the candidates the deterministic rules find in the claims the
  events assert and in what people said (the user's turns; a named speaker's in a conversation
  between people, ADR 0085) (:mod:`hlmem.domain.relation_rules`), as
  ``RelationProposed`` / ``RelationCorroborated`` waiting for review (a claim said again on new
  evidence corroborates its edge). Never an LLM call of its own: what the configured LLM's
  extraction answer names (ADR 0093) comes in through :meth:`RelationGuard.propose_candidates`.

Copies (``append_copies``: replay, restore) pass through untouched: their log already holds
these events, decided when the change was first made.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar, cast

from hlmem.application.ports import ClaimReader, IdGenerator, IndexEntry, RelationStore
from hlmem.domain.derived import forget_id_of
from hlmem.domain.events import ClaimAsserted, ClaimCorroborated, DomainEvent, ObservationRecorded, OriginClass
from hlmem.domain.redaction import Tombstone
from hlmem.domain.relation_decisions import (
    RelationCandidate,
    candidate_id,
    decide_lifecycle,
    decide_proposals,
    relation_triggers,
)
from hlmem.domain.relation_rules import claim_candidates, speaker_entity, text_candidates
from hlmem.domain.relations import Entity
from hlmem.domain.slots import SlotRegistry
from hlmem.domain.state import ClaimState

#: The ledger's kind for a relation's tombstone (no fingerprint: its content was erased).
RELATION_TOMBSTONE = "relation"


#: Events after which a claim may state an edge, or state it on more evidence: a new claim, and a
#: repeated one (corroboration adds its evidence to the claim, and revives it when archived).
_CLAIM_STATES = (ClaimAsserted, ClaimCorroborated)


def _proposes(events: Sequence[DomainEvent]) -> bool:
    return any(isinstance(e, (*_CLAIM_STATES, ObservationRecorded)) for e in events)


def turn_speaker(event: ObservationRecorded) -> Entity | None:
    """Whose "my" a turn's words are (apposition reads only what people said directly): the user's,
    or a named speaker's in a conversation between people ("Caroline: my sister Anna …"), ADR 0085."""
    if event.origin_class not in (OriginClass.DIRECT_USER, OriginClass.UNKNOWN):
        return None
    return speaker_entity(event.role)


def said_turns(storage: ClaimReader, claim: ClaimState) -> list[str]:
    """The text of the turns a claim was read from (those not forgotten)."""
    ids = [i for i in claim.evidence if i.startswith("ev_")]
    return [o.text for o in storage.get_observations(ids).values() if not o.forgotten] if ids else []


class RelationGuard:
    """A storage that keeps relations in step with their evidence on every append (see the module
    docstring); every other call passes through to the wrapped storage."""

    def __init__(self, storage: RelationStore, ids: IdGenerator, registry: SlotRegistry, *,
                 enabled: bool = False) -> None:
        self._storage = storage
        self._ids = ids
        self._registry = registry
        self.relations_enabled = bool(enabled)

    @property
    def inner(self) -> RelationStore:
        return self._storage

    def __getattr__(self, name: str) -> Any:
        return getattr(self._storage, name)

    def append(self, events: Sequence[DomainEvent], index: Mapping[str, IndexEntry] | None = None,
               **kwargs: Any) -> int:
        triggers = relation_triggers(events)
        propose = self.relations_enabled and _proposes(events)
        if not triggers and not propose:
            return self._storage.append(events, index, **kwargs)
        st = self._storage
        with st.transaction():
            position = st.append(events, index, **kwargs)
            at = max(e.recorded_at for e in events)
            if triggers:
                self._follow(triggers, events, at)
            if propose:
                self._propose(events, at)
            return position

    def _follow(self, triggers, events: Sequence[DomainEvent], at) -> None:
        st = self._storage
        citing = st.relations.relations_citing(sorted(triggers))
        if not citing:
            return
        forget_id = forget_id_of(events)
        decision = decide_lifecycle(triggers, citing, new_id=self._ids.new, recorded_at=at, cascade_of=forget_id)
        if not decision.events:
            return
        if decision.erase:
            st.erase_payloads(decision.erase, reason=f"forget {forget_id or ''}: evidence of a relation", at=at)
        st.append(decision.events)
        if decision.forgotten:
            st.tombstones.add([Tombstone("", RELATION_TOMBSTONE, rid, at, forget_id or "")
                               for rid in decision.forgotten])

    def _propose(self, events: Sequence[DomainEvent], at) -> None:
        st = self._storage
        by_namespace: dict[str, list[RelationCandidate]] = {}
        claim_ids = list(dict.fromkeys(e.stream_id for e in events if isinstance(e, _CLAIM_STATES)))
        for claim in st.get_claims(claim_ids).values() if claim_ids else ():
            by_namespace.setdefault(claim.namespace, []).extend(
                claim_candidates(claim, self._registry, said_turns(st, claim)))
        for e in events:
            if isinstance(e, ObservationRecorded) and (speaker := turn_speaker(e)) is not None:
                by_namespace.setdefault(e.namespace, []).extend(
                    text_candidates(e.stream_id, e.text, e.occurred_at, speaker))
        self._decide(by_namespace, at)

    def propose_candidates(self, candidates: Sequence[RelationCandidate], *, namespace: str, at: datetime) -> int:
        """Put candidates found elsewhere (the LLM's extraction answer, ADR 0093) in the review
        queue, inside the caller's transaction; returns how many events that took. Nothing while
        relations are disabled."""
        if not self.relations_enabled or not candidates:
            return 0
        with self._storage.transaction():
            return self._decide({namespace: list(candidates)}, at)

    def _decide(self, by_namespace: Mapping[str, list[RelationCandidate]], at: datetime) -> int:
        if not any(by_namespace.values()):
            return 0
        st = self._storage
        key = st.tombstones.salt()
        appended = 0
        for namespace in sorted(by_namespace):
            candidates = by_namespace[namespace]
            ids = sorted({candidate_id(c, namespace, key) for c in candidates})
            existing = st.relations.get_relations(ids)
            proposed = decide_proposals(candidates, existing, forgotten=st.tombstones.of_streams(ids).keys(),
                                        namespace=namespace, key=key, new_id=self._ids.new, recorded_at=at)
            if proposed:
                st.append(proposed)
                appended += len(proposed)
        return appended


S = TypeVar("S", bound=RelationStore)


def relation_guarded(storage: S, ids: IdGenerator, registry: SlotRegistry, enabled: bool = False) -> S:
    """``storage`` behind a :class:`RelationGuard`: every role passes through, with relations kept
    in step with their evidence (and proposed when ``enabled``) on each append."""
    return cast("S", RelationGuard(storage, ids, registry, enabled=enabled))
