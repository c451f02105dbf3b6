"""Walking accepted edges, purely: from an entity one hop along a kin or social word (ADR 0085).

Edges read "target is source's <type>" (ADR 0081), so "my sister" is an edge ``user —sibling→ X``
leaving the user; it is also an edge arriving at the user when the type goes both ways
(``X —sibling→ user``) or is the inverse one (``X —child→ user``: the user is X's child, X the
user's parent; ``X —subordinate→ Tom``: X is Tom's manager). A hop never returns to where the
walk has been, and only ``accepted`` edges count: proposed, rejected, retired and forgotten ones
are never walked.

When a type is coarser than the word asked ("sister" and "brother" are both ``sibling``),
:func:`prefer` keeps the people whose edge's evidence names the same relative ("my sister Anna"),
and all of them when none does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType

from attrs import frozen

from hlmem.domain.kin_words import ZH_KIN, same_relative
from hlmem.domain.relations import ACCEPTED, KINSHIP, SOCIAL, RelationState

#: Types that read the same from either end.
SYMMETRIC = frozenset(("sibling", "spouse", "partner", "cousin", "relative", "friend", "colleague", "roommate",
                       "classmate", "neighbor", "collaborator", "knows"))
#: A type, and the types an edge arriving at the person has when it says the same thing backwards.
INVERSE: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "manager": ("subordinate",), "subordinate": ("manager",), "advisor": (),
    "child": ("parent", "father", "mother"), "parent": ("child",), "father": ("child",), "mother": ("child",),
    "grandparent": ("grandchild",), "grandchild": ("grandparent",),
    "uncle": ("niece", "nephew"), "aunt": ("niece", "nephew"), "niece": ("uncle", "aunt"), "nephew": ("uncle", "aunt"),
})
#: Types an edge may have for a word of a type: "mom" finds a ``parent`` edge, "husband" a ``partner`` one.
COMPATIBLE: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "mother": ("mother", "parent"), "father": ("father", "parent"), "parent": ("parent", "mother", "father"),
    "spouse": ("spouse", "partner"), "partner": ("partner", "spouse"),
})
PERSON_TYPES = frozenset((*KINSHIP, *SOCIAL))
_COUSINS = tuple(w for w, t in ZH_KIN.items() if t == "cousin")


@frozen
class Reached:
    """A person a walk reached: its id, kind and name, and the accepted edges it went along."""

    entity_id: str
    kind: str
    name: str
    path: tuple[RelationState, ...]


def step(edges: Iterable[RelationState], start: Sequence[Reached], relation: str) -> list[Reached]:
    """Who is ``relation`` of any of ``start`` along the accepted ``edges``: newest edge first, each
    person once, never one the walk has been at."""
    wanted = COMPATIBLE.get(relation, (relation,))
    backwards = INVERSE.get(relation, ())
    at = {r.entity_id: r for r in start}
    been = {e for r in start for edge in r.path for e in (edge.source_id, edge.target_id)} | set(at)
    out: dict[str, Reached] = {}
    for edge in sorted(edges, key=lambda e: (e.valid_from, e.relation_id), reverse=True):
        if edge.status != ACCEPTED:
            continue
        if edge.source_id in at and edge.relation in wanted:
            origin, to = at[edge.source_id], (edge.target_id, edge.target_kind, edge.target_name)
        elif edge.target_id in at and ((edge.relation in wanted and edge.relation in SYMMETRIC)
                                       or edge.relation in backwards):
            origin, to = at[edge.target_id], (edge.source_id, edge.source_kind, edge.source_name)
        else:
            continue
        if to[0] not in been and to[0] not in out:
            out[to[0]] = Reached(to[0], to[1], to[2], (*origin.path, edge))
    return list(out.values())


def mentions(text: str, word: str) -> bool:
    """Whether ``text`` names the same relative as ``word`` ("my sis Anna" for "sister"; 表哥 is
    not 哥); True when the word says no more than its type."""
    group = same_relative(word)
    if not group:
        return True
    if word.isascii():
        return any(re.search(rf"\b{re.escape(w)}\b", text, re.IGNORECASE) for w in group)
    if word not in _COUSINS:
        for cousin in _COUSINS:
            text = text.replace(cousin, "")
    return any(w in text for w in group)


def prefer(found: Sequence[Reached], word: str, texts: Mapping[str, Sequence[str]]) -> list[Reached]:
    """Of ``found``, those whose last edge's ``texts`` (its names and evidence, by edge id) name the
    same relative as ``word``; all of them when none or every one does."""
    if len(found) < 2 or not same_relative(word):
        return list(found)
    fit = [r for r in found if any(mentions(_near(t, r.name), word) for t in texts.get(r.path[-1].relation_id, ()))]
    return fit or list(found)


def _near(text: str, name: str) -> str:
    """The words just before and after ``name`` in ``text`` ("… my sister Anna …"), else all of it."""
    at = text.casefold().find(name.casefold()) if name else -1
    return text if at < 0 else text[max(0, at - 24):at + len(name) + 8]
