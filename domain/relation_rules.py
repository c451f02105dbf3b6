"""Candidate relations by deterministic rules, purely: from current claims and from apposition.

Never an LLM (ADR 0081). Two sources, each rule named in the ``rule`` of what it proposes:

- **claims** (``claim.<predicate>``): a person predicate (``user·sibling·Anna``,
  ``Tom·boss·Sarah``) is an edge between two persons; ``employer``, ``lives_in``, ``hometown``,
  ``member_of`` and ``owns`` edges go to an organisation, a place or a thing (a pet when the value
  reads "cat (Miso)" / "猫（咪咪）"); a subject that is the user's unnamed kin ("用户的表哥",
  "user's cousin") is also the user's kin (``claim.kin_subject``).
- **apposition** in what the user said (``text.apposition``): "my coworker Tom", "我表哥张伟",
  "our cat Miso", "我家的猫叫咪咪"; more forms (a relative without a name, two descriptions of one
  person, modifiers, clauses, a pronoun's relative) in :mod:`hlmem.domain.relation_intro`.

A user's claim to a place, an employer or a thing read from turns that all open with someone else
as their subject ("Kevin搬走了，回台北了") proposes no edge (it is likely that person's).

A candidate only rests on a claim that is active, positive and valid now (``valid_to`` open), and
on an event the user said.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from types import MappingProxyType

from hlmem.domain.kin_words import EN_KIN, EN_PETS, ZH_KIN, ZH_PETS, kin_type
from hlmem.domain.person_names import latin_name as _latin, zh_name as _zh_name, zh_owner as _zh_owner
from hlmem.domain.relation_decisions import RelationCandidate
from hlmem.domain.relation_intro import intro_candidates, someone_else_opens
from hlmem.domain.relations import (
    ORGANISATION,
    PERSON,
    PET,
    PLACE,
    RELATION_TYPES,
    THING,
    USER_ENTITY,
    Entity,
)
from hlmem.domain.slots import SlotRegistry, normalize_predicate
from hlmem.domain.state import SELF_KEY, ClaimState, ClaimStatus, subject_key

#: Claim predicates (canonical) that are edges, by edge type.
CLAIM_EDGES: Mapping[str, str] = MappingProxyType({
    **{t: t for t in RELATION_TYPES if RELATION_TYPES[t] == PERSON and t != "manager"},
    "boss": "manager", "manager": "manager",
    "employer": "works_at", "works_at": "works_at", "member_of": "member_of",
    "lives_in": "lives_in", "hometown": "hometown", "owns": "owns",
})

_EN_KIN_WORDS = "|".join(sorted(map(re.escape, EN_KIN), key=len, reverse=True))
_EN_PET_WORDS = "|".join(sorted(map(re.escape, EN_PETS), key=len, reverse=True))
_EN_NAME = r"([A-Z][a-z]+(?:[ -][A-Z][a-z]+)?)"
_EN_ADJ = r"(?:(?:older|younger|little|big|elder|twin|best|new|old|dear|baby|kid)\s+)?"
_EN_APPOSITION = re.compile(
    rf"\b(?:[Mm]y|[Oo]ur)\s+{_EN_ADJ}"
    rf"(?:(?P<kin>{_EN_KIN_WORDS})|(?P<pet>{_EN_PET_WORDS}))\s*,?\s+(?:named\s+|called\s+)?{_EN_NAME}")
_ZH_KIN_WORDS = "|".join(sorted(map(re.escape, ZH_KIN), key=len, reverse=True))
_ZH_PET_WORDS = "|".join(sorted(map(re.escape, ZH_PETS), key=len, reverse=True))
_ZH_APPOSITION = re.compile(rf"(?:我们|我)(?:家)?(?:的)?(?P<kin>{_ZH_KIN_WORDS})(?P<name>[\u4e00-\u9fff]{{2,7}})")
#: "Priya's husband Raj": a named person's kin or social tie, by apposition.
_EN_OWNER = re.compile(
    rf"(?<![\w'’])(?P<owner>[A-Z][a-z]+)(?:'s|’s)\s+{_EN_ADJ}(?P<kin>{_EN_KIN_WORDS})\s*,?\s+"
    rf"(?:named\s+|called\s+)?{_EN_NAME}")
#: "my boss's husband Raj": the user's kin's tie, by apposition.
_EN_CHAIN = re.compile(
    rf"\b(?:[Mm]y|[Oo]ur)\s+{_EN_ADJ}(?P<first>{_EN_KIN_WORDS})(?:'s|’s)\s+{_EN_ADJ}(?P<kin>{_EN_KIN_WORDS})"
    rf"\s*,?\s+(?:named\s+|called\s+)?{_EN_NAME}")
_ZH_CHAIN = re.compile(rf"(?:我们|我)(?:家)?(?:的)?(?P<first>{_ZH_KIN_WORDS})的(?P<kin>{_ZH_KIN_WORDS})"
                       r"(?:叫(?:做)?)?(?P<name>[\u4e00-\u9fff]{2,7})")
_ZH_OWNER = re.compile(rf"(?P<owner>[\u4e00-\u9fff]{{2,3}}|[A-Z][a-z]+)的(?P<kin>{_ZH_KIN_WORDS})"
                       r"(?:叫(?:做)?)?(?P<name>[\u4e00-\u9fff]{2,7}|[A-Z][a-z]+)")
_ZH_CALLED = re.compile(rf"(?:我们|我)(?:家)?(?:的)?(?:(?P<kin>{_ZH_KIN_WORDS})|(?P<pet>{_ZH_PET_WORDS}))"
                        r"(?:的名字)?叫(?:做)?(?P<name>[\u4e00-\u9fff]{1,4}|[A-Za-z][A-Za-z -]{0,30}[A-Za-z])")
#: "老公叫陈浩": a kin word opening a sentence is the speaker's ("我" left out, as people type).
_ZH_LEAD_CALLED = re.compile(rf"(?:^|[，。！？；,.!?;\s])(?P<kin>{_ZH_KIN_WORDS})(?:的名字)?叫(?:做)?"
                             r"(?P<name>[\u4e00-\u9fff]{2,7}|[A-Z][a-z]+)")
#: "cat (Miso)", "猫（咪咪）": what the extractor writes for an owned pet.
_PET_VALUE = re.compile(r"^\s*(?P<species>[^()（）]+?)\s*[(（]\s*(?P<name>[^()（）]+?)\s*[)）]\s*$")
_SELF_KIN = re.compile(r"^(?:the\s+)?(?:user's|my)\s+(?P<word>[a-z -]+)$|^(?:用户|我)的?(?P<zh>[\u4e00-\u9fff]{1,3})$",
                       re.IGNORECASE)
_NOT_A_NAME = re.compile(r"[,.;:!?，。；：！？、\d]")


def _person_name(value: str) -> bool:
    text = value.strip()
    if not text or len(text) > 40 or _NOT_A_NAME.search(text):
        return False
    return len(text.split()) <= 4 if text.isascii() else len(text) <= 8


def subject_entity(subject: str) -> tuple[Entity, str | None]:
    """The entity a claim's subject names, and the kin edge type when it is the user's unnamed kin."""
    if subject_key(subject) == SELF_KEY:
        return USER_ENTITY, None
    found = _SELF_KIN.match(subject.strip())
    if found:
        kin = kin_type(found.group("word") or found.group("zh") or "")
        if kin is not None:
            return Entity(PERSON, subject.strip()), kin
    return Entity(PERSON, subject.strip()), None


def _target(relation: str, value: str) -> Entity | None:
    kind = RELATION_TYPES[relation]
    if relation == "owns":
        pet = _PET_VALUE.match(value)
        if pet and pet.group("species").strip().casefold() in (*EN_PETS, *ZH_PETS):
            return Entity(PET, pet.group("name"))
        return Entity(THING, value.strip()) if value.strip() and len(value) <= 60 else None
    if kind == PERSON:
        if subject_key(value) == SELF_KEY:  # "Tom·manager·me": the user is Tom's manager
            return USER_ENTITY
        return Entity(PERSON, value.strip()) if _person_name(value) else None
    if kind in (ORGANISATION, PLACE) and value.strip() and len(value) <= 80:
        return Entity(kind, value.strip())
    return None


def live_claim(claim: ClaimState) -> bool:
    """Whether a claim can carry an edge: active, positive and valid now (its end open)."""
    return claim.status == ClaimStatus.ACTIVE and claim.polarity and claim.valid_to is None


#: Edges from the user to a place, an employer or a thing: what a mis-attributed claim makes.
_USER_FACTS = frozenset(("works_at", "member_of", "studies_at", "lives_in", "hometown", "owns"))


def claim_candidates(claim: ClaimState, registry: SlotRegistry, said: Sequence[str] = ()) -> list[RelationCandidate]:
    """The edges one claim states (none unless :func:`live_claim`). ``said``: the turns the claim
    was read from; when every one opens with someone else as its subject ("Kevin搬走了，回台北了"),
    a claim about the user to a place, an employer or a thing is likely that person's, and no edge
    is proposed from it (better none than a wrong one)."""
    if not live_claim(claim):
        return []
    evidence = (claim.claim_id, *claim.evidence)
    source, kin = subject_entity(claim.subject)
    out = []
    if kin is not None:
        out.append(RelationCandidate(kin, USER_ENTITY, source, evidence, "claim.kin_subject", claim.valid_from))
    relation = CLAIM_EDGES.get(registry.canonical(claim.predicate)) or CLAIM_EDGES.get(
        normalize_predicate(claim.predicate))
    if relation in _USER_FACTS and source == USER_ENTITY and said and all(
            someone_else_opens(t, claim.value) for t in said):
        return out
    if relation is not None and (target := _target(relation, claim.value)) is not None and target != source:
        out.append(RelationCandidate(relation, source, target, evidence,
                                     f"claim.{registry.canonical(claim.predicate)}", claim.valid_from))
    return out


def _kin_entity(word: str, chinese: bool, speaker: Entity) -> Entity:
    """The speaker's unnamed kin as the extractor names the user's ("用户的老婆", "user's boss")."""
    owner = ("用户" if chinese else "user") if speaker == USER_ENTITY else speaker.name
    return Entity(PERSON, f"{owner}的{word}" if chinese else f"{owner}'s {word.casefold()}")


#: Roles whose "my" is nobody's in the memory: the agent's side of a conversation.
_NOT_A_SPEAKER = frozenset({"assistant", "agent", "tool", "function", "system", "developer", "bot", "ai", "model"})


def speaker_entity(role: str) -> Entity | None:
    """Whose "my" a turn's words are: the user's for role ``user``, a named person's for a role that
    is a name ("Caroline", "张伟": a conversation between people, each turn by its speaker), nobody's
    for the agent's roles."""
    text = (role or "").strip()
    if subject_key(text) == SELF_KEY or text.casefold() == "user":
        return USER_ENTITY
    if text.casefold() in _NOT_A_SPEAKER or not _person_name(text) or not (text[:1].isupper() or not text.isascii()):
        return None
    return Entity(PERSON, text)


def text_candidates(event_id: str, text: str, occurred_at: datetime,
                    speaker: Entity = USER_ENTITY) -> list[RelationCandidate]:
    """The edges a user's own turn states by apposition ("my coworker Tom", "我表哥张伟",
    "our cat Miso", "我家的猫叫咪咪"), of a named person ("Priya's husband Raj", "张伟的老婆小雨")
    and of the user's kin ("my boss's husband Raj", "我老婆的哥哥李强": the user's kin unnamed,
    as the extractor names it, and its tie). "My" is the ``speaker``'s: the user's by default, a
    named person's in a conversation between people (:func:`speaker_entity`)."""
    out: list[RelationCandidate] = []

    def add(relation: str | None, target: Entity, source: Entity = speaker) -> None:
        if relation is not None and target != source:
            out.append(RelationCandidate(relation, source, target, (event_id,), "text.apposition", occurred_at))

    for m in _EN_APPOSITION.finditer(text):
        name = m.group(3)
        if m.group("pet"):
            add("owns", Entity(PET, name))
        elif name.split()[0] not in ("I", "The", "And", "But"):
            add(EN_KIN[m.group("kin").casefold()], Entity(PERSON, name))
    for m in _ZH_CALLED.finditer(text):
        name = m.group("name").strip()
        if m.group("pet"):
            add("owns", Entity(PET, name))
        elif len(name) >= 2:
            add(ZH_KIN[m.group("kin")], Entity(PERSON, name))
    for m in _ZH_APPOSITION.finditer(text):
        if name := _zh_name(m.group("name")):
            add(ZH_KIN[m.group("kin")], Entity(PERSON, name))
    for m in _ZH_LEAD_CALLED.finditer(text):
        if name := _zh_name(m.group("name")) or _latin(m.group("name")):
            add(ZH_KIN[m.group("kin")], Entity(PERSON, name))
    for m in _EN_OWNER.finditer(text):
        if m.group("owner") not in ("I", "The", "And", "But", "It", "That", "What", "Who", "He", "She"):
            add(EN_KIN[m.group("kin").casefold()], Entity(PERSON, m.group(3)), Entity(PERSON, m.group("owner")))
    for m in _ZH_OWNER.finditer(text):
        owner, name = _zh_owner(m.group("owner")), _zh_name(m.group("name")) or _latin(m.group("name"))
        if owner and name and owner != name:
            add(ZH_KIN[m.group("kin")], Entity(PERSON, name), Entity(PERSON, owner))
    for m, chinese in [*((m, False) for m in _EN_CHAIN.finditer(text)), *((m, True) for m in _ZH_CHAIN.finditer(text))]:
        name = _zh_name(m.group("name")) if chinese else m.group(3)
        if not name or name.split()[0] in ("I", "The", "And", "But"):
            continue
        first = _kin_entity(m.group("first"), chinese, speaker)
        add(kin_type(m.group("first")), first)
        add(kin_type(m.group("kin")), Entity(PERSON, name), first)
    intro_candidates(text, speaker, add, out)
    return list(dict.fromkeys(out))
