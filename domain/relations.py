"""Relations between people and things, purely: entities, edge types, ids, state and the reducer.

An **entity** is the user, a named person, the user's kin without a name ("用户的表哥",
"user's cousin"), an organisation, a place, a pet or a thing. It is a value, not a stream: its
id is derived from its kind and normalised name under the store's key (:func:`entity_id`), so
the same name of the same kind is one entity wherever it is found, and the id does not reveal the
name (a forgotten name cannot be guessed back from an id).

A **relation** is a typed edge ``source —relation→ target`` on its own stream, whose id is derived
from the namespace, both entity ids and the type (:func:`relation_id`): a second proposal of the
same edge lands on the same stream. Read person edges as "target is source's <relation>"
(``user —sibling→ Anna``: Anna is the user's sibling; ``Tom —manager→ Sarah``: Sarah is Tom's
manager) and the others as "source <relation> target" (``Tom —works_at→ Acme``).

Statuses: ``proposed`` (waiting in the review queue), ``accepted``, ``rejected``, ``retired``
(evidence stopped being current) and ``forgotten`` (a tombstone: names blank). ADR 0081.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping
from datetime import datetime
from types import MappingProxyType

from attrs import evolve, frozen

from hlmem.domain.events import DomainEvent, ItemForgotten
from hlmem.domain.redaction import normalize_content
from hlmem.domain.relation_events import (
    RELATION,
    RelationAccepted,
    RelationCorroborated,
    RelationProposed,
    RelationRejected,
    RelationRetired,
    is_relation_stream,
)

# -- entities -------------------------------------------------------------------------------------

USER, PERSON, ORGANISATION, PLACE, PET, THING = "user", "person", "organisation", "place", "pet", "thing"
ENTITY_KINDS = (USER, PERSON, ORGANISATION, PLACE, PET, THING)
#: The user's own entity: its name is fixed (every name of the user is one subject key).
USER_NAME = "user"

# -- edge types -----------------------------------------------------------------------------------

KINSHIP = ("father", "mother", "parent", "sibling", "child", "spouse", "partner", "cousin", "uncle", "aunt",
           "grandparent", "grandchild", "niece", "nephew", "sister_in_law", "brother_in_law", "mother_in_law",
           "father_in_law", "relative")
SOCIAL = ("friend", "colleague", "manager", "subordinate", "roommate", "classmate", "neighbor", "advisor",
          "collaborator", "knows")
#: Every edge type with the kind of entity its target is (``None``: a person's edge to a person).
RELATION_TYPES: Mapping[str, str] = MappingProxyType({
    **{t: PERSON for t in KINSHIP}, **{t: PERSON for t in SOCIAL},
    "works_at": ORGANISATION, "member_of": ORGANISATION, "studies_at": ORGANISATION,
    "lives_in": PLACE, "hometown": PLACE,
    "owns": THING,  # or PET: the target's own kind says which
})

PROPOSED, ACCEPTED, REJECTED, RETIRED, FORGOTTEN = "proposed", "accepted", "rejected", "retired", "forgotten"
STATUSES = (PROPOSED, ACCEPTED, REJECTED, RETIRED, FORGOTTEN)
#: Statuses whose edge rests on its evidence: changes of that evidence retire it.
OPEN = (PROPOSED, ACCEPTED)


def _keyed(key: bytes, message: str, size: int) -> str:
    if not key:
        raise ValueError("relation ids need the store's key")
    return hmac.new(key, message.encode(), hashlib.sha256).hexdigest()[:size]


def entity_key(kind: str, name: str) -> str:
    """What an entity is told apart by: its kind and its normalised name (NFKC, case-folded)."""
    return f"{kind}\x1f{USER_NAME if kind == USER else normalize_content(name)}"


def entity_id(kind: str, name: str, key: bytes) -> str:
    """The entity's id (``en_…``): a keyed hash of :func:`entity_key`, stable for one store."""
    return "en_" + _keyed(key, "entity\x1f" + entity_key(kind, name), 24)


def relation_id(namespace: str, source_id: str, relation: str, target_id: str, key: bytes) -> str:
    """The relation's stream id (``rl_…``): the same edge in one namespace is one stream."""
    return f"{RELATION}_" + _keyed(key, f"relation\x1f{namespace}\x1f{source_id}\x1f{relation}\x1f{target_id}", 26)


@frozen
class Entity:
    """One end of an edge: ``kind`` (:data:`ENTITY_KINDS`) and ``name`` as first found."""

    kind: str
    name: str

    def id(self, key: bytes) -> str:
        return entity_id(self.kind, self.name, key)


USER_ENTITY = Entity(USER, USER_NAME)


# -- state and reducer ----------------------------------------------------------------------------

@frozen
class RelationState:
    """A relation as projected (both clocks: ``valid_from``/``valid_to`` and ``proposed_at``,
    ``reviewed_at``; ``evidence``: claim and event ids, in the order they were found)."""

    relation_id: str
    namespace: str
    relation: str
    source_id: str
    source_kind: str
    source_name: str
    target_id: str
    target_kind: str
    target_name: str
    evidence: tuple[str, ...]
    rules: tuple[str, ...]
    status: str
    valid_from: datetime
    proposed_at: datetime
    version: int
    valid_to: datetime | None = None
    reviewed_at: datetime | None = None
    reviewed_by: str = ""
    review_reason: str = ""
    retired_reason: str = ""

    @property
    def claim_ids(self) -> tuple[str, ...]:
        return tuple(i for i in self.evidence if i.startswith("cl_"))

    @property
    def event_ids(self) -> tuple[str, ...]:
        return tuple(i for i in self.evidence if i.startswith("ev_"))


def _merge(old: tuple[str, ...], new: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys((*old, *new)))


def reduce_relation(state: RelationState | None, event: DomainEvent) -> RelationState | None:
    """The relation's state after ``event``; never raises on an event the log accepted."""
    if isinstance(event, RelationProposed):
        if state is not None and state.status == FORGOTTEN:
            return evolve(state, version=event.version)
        return RelationState(
            relation_id=event.stream_id, namespace=event.namespace, relation=event.relation,
            source_id=event.source_id, source_kind=event.source_kind, source_name=event.source_name,
            target_id=event.target_id, target_kind=event.target_kind, target_name=event.target_name,
            evidence=event.evidence, rules=(event.rule,) if event.rule else (), status=PROPOSED,
            valid_from=event.valid_from, proposed_at=event.recorded_at, version=event.version)
    if state is None:
        return None
    if isinstance(event, RelationCorroborated) and state.status != FORGOTTEN:
        return evolve(state, evidence=_merge(state.evidence, event.evidence),
                      rules=_merge(state.rules, (event.rule,) if event.rule else ()), version=event.version)
    if isinstance(event, (RelationAccepted, RelationRejected)) and state.status != FORGOTTEN:
        return evolve(state, status=ACCEPTED if isinstance(event, RelationAccepted) else REJECTED,
                      reviewed_at=event.recorded_at, reviewed_by=event.actor, review_reason=event.reason,
                      version=event.version)
    if isinstance(event, RelationRetired) and state.status != FORGOTTEN:
        return evolve(state, status=RETIRED, retired_reason=event.reason,
                      valid_to=event.valid_to or event.recorded_at, version=event.version)
    if isinstance(event, ItemForgotten):
        # A tombstone: what redact_relation blanks is blank here too.
        return evolve(state, source_name="", target_name="", evidence=(), rules=(), status=FORGOTTEN,
                      review_reason="", version=event.version)
    return evolve(state, version=event.version)


def project_relations(events: Iterable[DomainEvent]) -> dict[str, RelationState]:
    """Fold a log's relation events into their states (what every store's projection must equal)."""
    out: dict[str, RelationState] = {}
    for event in events:
        if is_relation_stream(event.stream_id):
            state = reduce_relation(out.get(event.stream_id), event)
            if state is not None:
                out[event.stream_id] = state
    return out


def matches_entity(state: RelationState, entity: str) -> bool:
    """Whether ``entity`` (an ``en_…`` id, or a name compared normalised) is either end of the edge."""
    if entity.startswith("en_"):
        return entity in (state.source_id, state.target_id)
    wanted = normalize_content(entity)
    names = {normalize_content(state.source_name), normalize_content(state.target_name)}
    if wanted in {"user", "用户", "我", "me"}:
        return USER in (state.source_kind, state.target_kind)
    return wanted in names
