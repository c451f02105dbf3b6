"""The offline builder of derived items, purely: grouping by subject and slot family, the wording.

Deterministic: the same current claims give the same items, word for word (docs/derived.md).
Claims are grouped by subject (:func:`~hlmem.domain.state.subject_key`) and *family*
(:func:`family_of`: the slot catalogue's predicates in a few families, ``preferred_*`` among the
preferences, any other predicate its own family). A family holding two or more current claims
gives an **observation summary**; every subject with a current claim gets a **mental model**.
Text is composed from the claims' values with English or Chinese templates, by the language of
the values (:func:`language_of`). :func:`decide_builds` compares drafts with the items already
built and returns the events: built, rebuilt or removed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime

from attrs import frozen

from hlmem.domain.derived import CURRENT, FORGOTTEN, MENTAL_MODEL, OBSERVATION_SUMMARY, PREFIX, DerivedState
from hlmem.domain.events import DerivedBuilt, DerivedRebuilt, DerivedRemoved, DomainEvent
from hlmem.domain.slots import SlotRegistry, normalize_key
from hlmem.domain.state import ClaimState, ClaimStatus, subject_key

#: The builder's name in the events it writes.
RULES = "rules"

#: Families of the catalogue's predicates (anything else is a family of its own).
FAMILIES: Mapping[str, str] = {
    **dict.fromkeys(("preferred_ui_theme", "preferred_language", "likes", "dislikes", "hobby", "uses"),
                    "preferences"),
    **dict.fromkeys(("lives_in", "works_in", "hometown", "neighborhood", "visited"), "places"),
    **dict.fromkeys(("employer", "job_title", "salary", "education"), "work"),
    **dict.fromkeys(("health_condition", "habit", "diet", "allergy", "height", "weight"), "health"),
    **dict.fromkeys(("name", "age", "birthday", "relationship_status", "phone", "email", "shoe_size"), "identity"),
    **dict.fromkeys(("boss", "spouse", "partner", "father", "mother", "advisor", "colleague", "friend", "sibling",
                     "child", "roommate", "classmate", "neighbor", "collaborator", "cousin", "uncle", "aunt",
                     "grandparent", "grandchild", "niece", "nephew", "sister_in_law", "brother_in_law",
                     "mother_in_law", "father_in_law", "subordinate"), "people"),
}
#: (English, Chinese) names of the families.
FAMILY_LABELS: Mapping[str, tuple[str, str]] = {
    "preferences": ("preferences", "偏好"), "places": ("places", "地点"), "work": ("work", "工作"),
    "health": ("health", "健康"), "identity": ("identity", "个人信息"), "people": ("people", "人际关系"),
}
PROFILE_LABEL = ("profile", "画像")
_PREFERENCE_PREFIXES = ("preferred_", "prefers_", "favorite_", "favourite_")


def family_of(predicate: str) -> str:
    """The slot family a predicate belongs to."""
    if predicate in FAMILIES:
        return FAMILIES[predicate]
    if predicate.startswith(_PREFERENCE_PREFIXES):
        return "preferences"
    return predicate


def _is_cjk(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff"


def language_of(claims: Sequence[ClaimState]) -> str:
    """``zh`` when a value holds Chinese characters (or, with no value in letters, the subject), else ``en``.

    The user's own names (``我``, ``用户``) say nothing of the language their facts are in."""
    values = "".join(c.value for c in claims)
    if any(_is_cjk(ch) for ch in values):
        return "zh"
    if any(ch.isalpha() for ch in values):
        return "en"
    return "zh" if any(_is_cjk(ch) for c in claims for ch in c.subject) else "en"


def family_label(family: str, language: str) -> str:
    en, zh = FAMILY_LABELS.get(family, (family.replace("_", " "), family.replace("_", " ")))
    return zh if language == "zh" else en


def predicate_label(claim: ClaimState, registry: SlotRegistry, language: str) -> str:
    """The slot's label in ``language`` (its coordinates after it), the predicate when it has none."""
    labels = registry.labels(claim.predicate)
    zh = [label for label in labels if any(_is_cjk(ch) for ch in label)]
    en = [label for label in labels if label not in zh]
    picked = (zh or en) if language == "zh" else (en or zh)
    label = picked[0] if picked else claim.predicate.replace("_", " ")
    if claim.coordinates:
        label += " (" + ", ".join(f"{k}={v}" for k, v in sorted(claim.coordinates)) + ")"
    return label


def _value(claim: ClaimState, language: str) -> str:
    if claim.polarity:
        return claim.value
    return f"不是{claim.value}" if language == "zh" else f"not {claim.value}"


def _order(claim: ClaimState) -> tuple:
    return (claim.predicate, claim.coordinates, normalize_key(claim.value), claim.claim_id)


@frozen
class Draft:
    """One item the builder would write now."""

    kind: str
    subject: str
    family: str
    label: str
    text: str
    language: str
    sources: tuple[tuple[str, int], ...]

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.kind, subject_key(self.subject), self.family)


def key_of(state: DerivedState) -> tuple[str, str, str]:
    """The group an existing item stands for (kind, subject key, family)."""
    return (state.kind, subject_key(state.subject), state.family)


def current_claims(claims: Sequence[ClaimState]) -> list[ClaimState]:
    """The claims a derived item may rest on: active, believed now."""
    return [c for c in claims if c.status is ClaimStatus.ACTIVE and c.current_version is not None and c.subject]


def summary_text(subject: str, family: str, claims: Sequence[ClaimState], registry: SlotRegistry,
                 language: str) -> str:
    """One sentence for a family's claims: a value they share, or each slot's values."""
    fam = family_label(family, language)
    labels = list(dict.fromkeys(predicate_label(c, registry, language) for c in claims))
    values = {normalize_key(_value(c, language)) for c in claims}
    if len(values) == 1 and len(labels) >= 2:
        value = _value(claims[0], language)
        if language == "zh":
            return f"{subject}的{len(labels)}项{fam}都是{value}（{'、'.join(labels)}）。"
        verb = "prefers" if family == "preferences" else "has"
        return f"{subject} {verb} {value} across {len(labels)} {fam} ({', '.join(labels)})."
    parts: dict[str, list[str]] = {}
    for c in claims:
        parts.setdefault(predicate_label(c, registry, language), []).append(_value(c, language))
    if language == "zh":
        return f"{subject}的{fam}：" + "；".join(f"{k}为{'、'.join(v)}" for k, v in parts.items()) + "。"
    return f"{subject} — {fam}: " + "; ".join(f"{k}: {', '.join(v)}" for k, v in parts.items()) + "."


def draft_items(claims: Sequence[ClaimState], registry: SlotRegistry) -> list[Draft]:
    """The observation summaries and mental models of these claims (any subjects; one namespace)."""
    by_subject: dict[str, list[ClaimState]] = {}
    for c in sorted(current_claims(claims), key=lambda c: (subject_key(c.subject), c.claim_id)):
        by_subject.setdefault(subject_key(c.subject), []).append(c)
    drafts: list[Draft] = []
    for group in by_subject.values():
        subject = group[0].subject
        families: dict[str, list[ClaimState]] = {}
        for c in sorted(group, key=_order):
            families.setdefault(family_of(c.predicate), []).append(c)
        lines: list[str] = []
        for family in sorted(families):
            members = families[family]
            language = language_of(members)
            text = summary_text(subject, family, members, registry, language)
            lines.append(text)
            if len(members) >= 2:
                drafts.append(Draft(OBSERVATION_SUMMARY, subject, family, family_label(family, language), text,
                                    language, tuple((c.claim_id, c.version) for c in sorted(members, key=lambda c:
                                                                                           c.claim_id))))
        language = language_of(group)
        if language == "zh":
            head = f"{subject}的画像（{len(group)}条当前事实）："
        else:
            head = f"Profile of {subject} ({len(group)} current claim{'s' if len(group) != 1 else ''}):"
        drafts.append(Draft(MENTAL_MODEL, subject, "", PROFILE_LABEL[1] if language == "zh" else PROFILE_LABEL[0],
                            "\n".join([head, *(f"- {line}" for line in lines)]), language,
                            tuple((c.claim_id, c.version) for c in group)))
    return drafts


def decide_builds(drafts: Sequence[Draft], existing: Sequence[DerivedState], *, namespace: str,
                  new_id: Callable[[str], str], recorded_at: datetime, watermark: int,
                  builder: str = RULES) -> list[DomainEvent]:
    """Events that make the derived items of these groups match ``drafts``.

    A draft with no item of its group is built (a new ``dv_`` stream); an item that is stale,
    removed, or differs from its draft is rebuilt; an unchanged current item is left alone; a
    live item whose group has no draft any more is removed. Forgotten items never come back
    (a rebuild makes a new stream).
    """
    known: dict[tuple[str, str, str], DerivedState] = {}
    extra: list[DerivedState] = []
    for state in sorted(existing, key=lambda s: s.derived_id):
        if state.status == FORGOTTEN:
            continue
        if key_of(state) in known:
            extra.append(state)
        else:
            known[key_of(state)] = state
    events: list[DomainEvent] = []
    drafted = set()
    for draft in drafts:
        drafted.add(draft.key)
        body = dict(kind=draft.kind, subject=draft.subject, family=draft.family, label=draft.label, text=draft.text,
                    language=draft.language, sources=draft.sources, watermark=watermark, builder=builder,
                    namespace=namespace, recorded_at=recorded_at)
        state = known.get(draft.key)
        if state is None:
            events.append(DerivedBuilt(event_id=new_id("lg"), stream_id=new_id(PREFIX), version=1, **body))
        elif not (state.status == CURRENT and state.text == draft.text and state.sources == draft.sources
                  and state.label == draft.label):
            events.append(DerivedRebuilt(event_id=new_id("lg"), stream_id=state.derived_id,
                                         version=state.version + 1, **body))
    for state in [*known.values(), *extra]:
        if state.live and (key_of(state) not in drafted or state in extra):
            events.append(DerivedRemoved(event_id=new_id("lg"), stream_id=state.derived_id,
                                         version=state.version + 1, recorded_at=recorded_at, namespace=namespace,
                                         reason="too few current claims"))
    return events
