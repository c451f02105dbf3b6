"""Relations an LLM read in a window of events, checked against the text before they are proposed.

The configured LLM's extraction call (the one it makes anyway) may also list the relations the
events state, when relations are enabled (ADR 0093). A mention is only a candidate for the review
queue — nothing an LLM says is accepted without review — and only when the text bears it out:

- ``relation.kind_mismatch``: the target's kind does not fit the edge type (``works_at`` goes to
  an organisation, ``lives_in`` to a place, a kin or social edge to a person, ``owns`` to a
  thing or a pet);
- ``relation.self``: both ends are one entity;
- ``relation.quote_not_found``: the quote is not an exact, contiguous copy of the event's words;
- ``relation.name_not_in_text``: a named end (not the user, not the event's own speaker, not the
  user's relative without a name, "user's sister" / "用户的姐姐") does not occur in the event's
  text — a name the model made up or brought from elsewhere;
- ``relation.provenance``: the event is not something a person said directly (a web page, a
  tool, another agent, the assistant), where the rules would not read a relation either.

Pure: :func:`check_mention` returns the candidate or the reasons it is refused.
"""

from __future__ import annotations

import unicodedata
from datetime import datetime

from attrs import frozen

from hlmem.domain.candidates import SourceEvent
from hlmem.domain.events import OriginClass
from hlmem.domain.relation_decisions import RelationCandidate
from hlmem.domain.relation_rules import speaker_entity, subject_entity
from hlmem.domain.relations import (
    ORGANISATION,
    PERSON,
    PET,
    PLACE,
    RELATION_TYPES,
    THING,
    USER_NAME,
    Entity,
)
from hlmem.domain.state import SELF_KEY, subject_key

#: Why a relation the LLM named is refused (docs/reason-codes.md lists exactly these).
REASON_CODES = ("relation.kind_mismatch", "relation.self", "relation.quote_not_found", "relation.name_not_in_text",
                "relation.provenance")
#: Kinds an LLM may give a relation's target (the user is never a target kind: name it "user").
TARGET_KINDS = (PERSON, ORGANISATION, PLACE, PET, THING)
#: Event origins whose words are a person's own (as the rules read: ``turn_speaker``;
#: :class:`hlmem.domain.events.OriginClass` values).
SAID_DIRECTLY = (OriginClass.DIRECT_USER.value, OriginClass.UNKNOWN.value)
#: Roles that are not a person speaking for themself.
_NOT_PEOPLE = frozenset({"assistant", "agent", "system", "tool", "function", "developer"})


@frozen
class RelationMention:
    """One relation as the model wrote it, with the event it read it from (already schema-checked)."""

    event_id: str
    source: str
    relation: str
    target: str
    target_kind: str
    quote: str
    extractor: str


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text or "").casefold()


def _is_user(name: str, speaker: str) -> bool:
    folded = _fold(name).strip()
    return folded in (USER_NAME, _fold(speaker)) or subject_key(name) == SELF_KEY


def _fits(relation: str, kind: str) -> bool:
    wanted = RELATION_TYPES[relation]
    return kind in (THING, PET) if relation == "owns" else kind == wanted


def _entity(name: str, kind: str, event: SourceEvent, speaker: str) -> Entity | None:
    """An end of the edge: the event's speaker when the model named the user (``"user"``, the
    prompt's speaker, 我) or the speaker's own name; else the name as written, of ``kind``."""
    if kind == PERSON and (_is_user(name, speaker) or _fold(name).strip() == _fold(event.role).strip()):
        return speaker_entity(event.role)
    return Entity(kind, name.strip())


def check_mention(mention: RelationMention, event: SourceEvent, *, speaker: str = USER_NAME,
                  valid_from: datetime | None = None) -> RelationCandidate | tuple[str, ...]:
    """The candidate ``mention`` proposes, or the reason codes it is refused for (module docstring).

    :param event: the event the mention cites (its text, role, origin and time).
    :param speaker: the name the extraction prompt gave the speaking user.
    """
    reasons: list[str] = []
    if event.origin_class not in SAID_DIRECTLY or event.role.strip().casefold() in _NOT_PEOPLE:
        reasons.append("relation.provenance")
    if mention.relation not in RELATION_TYPES or not _fits(mention.relation, mention.target_kind):
        reasons.append("relation.kind_mismatch")
    quote = mention.quote.strip()
    if not quote or quote not in event.text:
        reasons.append("relation.quote_not_found")
    text = _fold(event.text)
    role = event.role.strip()
    for name, kind in ((mention.source, PERSON), (mention.target, mention.target_kind)):
        if not name.strip():
            reasons.append("relation.name_not_in_text")
        elif not (kind == PERSON and (_is_user(name, speaker) or subject_entity(name)[1] is not None)) \
                and _fold(name).strip() != _fold(role) and _fold(name).strip() not in text:
            reasons.append("relation.name_not_in_text")
    if reasons:
        return tuple(dict.fromkeys(reasons))
    source = _entity(mention.source, PERSON, event, speaker)
    target = _entity(mention.target, mention.target_kind, event, speaker)
    if source is None or target is None:
        return ("relation.provenance",)  # "my" in a turn that is nobody's own (speaker_entity)
    if source == target or (source.kind == target.kind and _fold(source.name) == _fold(target.name)):
        return ("relation.self",)
    return RelationCandidate(relation=mention.relation, source=source, target=target, evidence=(event.event_id,),
                             rule=mention.extractor, valid_from=valid_from or event.occurred_at)
