"""Whose fact the question asks for: the asked subject's values before the same kind of value about
someone else (ADR 0089, docs/recall.md "Whose fact").

"what am I allergic to?" found Alice's allergy before the user's: the words match both equally
(same predicate, same question words) and nothing said whose allergy was asked.
:func:`~hlmem.domain.asked_subject.asked_subject` reads whom the question asks about (the user for
I/me/my/我, a named person, a kin phrase such as 我妹 or "my sister's husband"), and this stage
reorders the ranked claims (turns never move: one says more than the one value a claim holds):

- A claim is the **asked subject's** when its subject (as said: :func:`_as_said`) is the person
  asked, a **rival** when it is someone else's (and does not hold the person asked as its value:
  "user · friend · Bob" is about Bob too). :func:`order_by_subject` also takes events by the
  claims citing them; the stage gives it claims only.
- **Same predicate**: within each predicate, the asked subject's claims take the places the group
  earned (words and time decided those), in their own order, before the rivals — those the
  question's own search found (a claim the slot stage joined as "the value asked for" does not
  take another's place: it says nothing of the kind the question asks).
- **Same family**: a rival of a predicate the asked subject has no item of yields in the same way
  to the asked subject's items of its family (``likes`` and ``hobby``: preferences; not the family
  of relations, where another's claim may name the asked person).

Relevance still decides which kinds of fact come and where each group stands; the asked subject
only decides who fills a group's first places. Scores stay those of the places, so the list stays
sorted. The note says ``asked subject: user ('I'); 1 item(s) placed before the same kind of value
about someone else``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from attrs import evolve

from hlmem.application.ranking import Scored
from hlmem.domain.asked_subject import AskedSubject, asked_subject, is_asked, speaks_of_another, subject_chain
from hlmem.domain.derived_build import family_of
from hlmem.domain.relations import USER_NAME
from hlmem.domain.state import ClaimState

if TYPE_CHECKING:
    from hlmem.application.recall.query import RecallQuery
    from hlmem.application.recall.reads import RecallReads

__all__ = ["asked_slot_keys", "order_by_subject", "subject_order"]

#: The sources of the question's own search (a rank from one of them: the question found the item).
FOUND = frozenset({"text", "vector", "context", "archived"})
#: Families whose claims relate two people: another's claim there may be about the person asked.
_RELATION_FAMILIES = frozenset({"people"})


def _profile(claims: Sequence[ClaimState], asked: AskedSubject) -> tuple[bool, frozenset[str]] | None:
    """(the asked subject's?, the predicates that say so) for an item's claims; None: neutral."""
    if not claims:
        return None
    mine = [c for c in claims if is_asked(asked, c.subject)]
    if mine:
        return True, frozenset(c.predicate for c in mine)
    if any(is_asked(asked, c.value) for c in claims):
        return None
    return False, frozenset(c.predicate for c in claims)


def _regroup(order: list[int], group: list[int], mine: set[int]) -> bool:
    """Put ``mine`` first within the places ``group`` holds in ``order`` (indexes into it); True when moved."""
    places = sorted(group)
    members = [order[p] for p in places]
    wanted = [m for m in members if m in mine] + [m for m in members if m not in mine]
    if wanted == members:
        return False
    for place, member in zip(places, wanted):
        order[place] = member
    return True


def order_by_subject(scored: Sequence[Scored], claims_of: Mapping[str, Sequence[ClaimState]],
                     asked: AskedSubject) -> tuple[list[Scored], int]:
    """``scored`` with the asked subject's items before rivals of the same kind (see the module),
    and how many of the asked subject's items moved up. ``claims_of``: each item's claims (a claim's
    own, an event's citing ones)."""
    profiles = {n: p for n, s in enumerate(scored) if (p := _profile(claims_of.get(s.item_id, ()), asked))}
    # Only what the question's own search found takes another's place: a claim the slot stage joined
    # ("the value asked for") is not evidence that the question asks of its kind.
    profiles = {n: p for n, p in profiles.items() if not p[0] or FOUND.intersection(scored[n].ranks)}
    mine = {n for n, (is_mine, _) in profiles.items() if is_mine}
    if not mine or len(mine) == len(profiles):
        return list(scored), 0
    order = list(range(len(scored)))
    by_predicate: dict[str, list[int]] = {}
    for n, (_, predicates) in profiles.items():
        for predicate in predicates:
            by_predicate.setdefault(predicate, []).append(n)
    mine_predicates = {p for n in mine for p in profiles[n][1]}
    for members in by_predicate.values():
        if any(n in mine for n in members) and any(n not in mine for n in members):
            _regroup(order, [order.index(n) for n in members], mine)
    by_family: dict[str, set[int]] = {}
    for n, (is_mine, predicates) in profiles.items():
        families = {family_of(p) for p in predicates} - _RELATION_FAMILIES
        if is_mine or not predicates & mine_predicates:
            for family in families:
                by_family.setdefault(family, set()).add(n)
    for members in by_family.values():
        if any(n in mine for n in members) and any(n not in mine for n in members):
            _regroup(order, [order.index(n) for n in members], mine)
    moved = sum(1 for place, n in enumerate(order) if n in mine and place < n)
    out = [Scored(item_id=scored[n].item_id, kind=scored[n].kind, relevance=scored[n].relevance,
                  score=scored[place].score, ranks={**scored[n].ranks, "subject": 1} if n in mine and place < n
                  else scored[n].ranks, similarity=scored[n].similarity, folded=scored[n].folded)
           for place, n in enumerate(order)]
    return out, moved


#: An event id -> (its text, its speaker's role): the evidence a claim about "the user" rests on.
Said = Callable[[Sequence[str]], Mapping[str, tuple[str, "str | None"]]]
#: Roles that name no participant: a first-person claim said in them is the user's own.
_NO_PARTICIPANT = frozenset({"user", "assistant", "system", "tool", "human", "ai", ""})


def _as_said(claims: Iterable[ClaimState], said: Said | None) -> dict[str, ClaimState]:
    """The claims that state a value, by id, each with the subject it is about: a claim of the user
    said only by one named participant of a group conversation ("Nate: I went to a cooking show"
    → ``user · …``) is that participant's (``Nate``, ``Nate's sister``). Left out: a negated claim
    ("NOT 泰迪" is no value), and a claim given the user that rests only on turns speaking of someone
    by a pronoun and never in the first person ("他…上一年级了":
    :func:`~hlmem.domain.asked_subject.speaks_of_another`), which may be that someone's."""
    kept = {c.claim_id: c for c in claims if c.polarity}
    users = [c for c in kept.values() if c.evidence and subject_chain(c.subject)[0] == USER_NAME]
    if said is None or not users:
        return kept
    turns = said(list(dict.fromkeys(e for c in users for e in c.evidence)))
    for c in users:
        found = [turns[e] for e in c.evidence if e in turns]
        if len(found) < len(c.evidence):
            continue
        hops = subject_chain(c.subject)[1]
        if not hops and all(speaks_of_another(text) for text, _ in found):
            del kept[c.claim_id]
            continue
        roles = {(role or "").strip() for _, role in found}
        role = roles.pop() if len(roles) == 1 else ""
        if role and role.casefold() not in _NO_PARTICIPANT:
            kept[c.claim_id] = evolve(c, subject=role + "".join(f"'s {h}" for h in hops))
    return kept


def subject_order(text: str, scored: Sequence[Scored], claims: Mapping[str, ClaimState], names: Sequence[str],
                  notes: list[str], said: Said | None = None) -> list[Scored] | None:
    """The stage: reads whom ``text`` asks about and orders the ranked claims by it (None: nothing to do).

    Only claims move, and only among the places claims hold: a turn says more than the one value a
    claim holds (Joanna's "Congrats on the cooking show, Nate!" answers a question about Nate), so
    turns stay where words and time put them. Only claims that state a value count, each about
    whom it was said of (:func:`_as_said`); the others stay where they are.

    :param claims: the ranked claims, by id.
    :param names: names the question may use for someone (the query's entities), besides the claims' subjects.
    :param said: the text and speaker of events by id (read when needed: the evidence of the user's claims).
    """
    claims_of = {s.item_id: [claims[s.item_id]] for s in scored if s.kind == "claim" and s.item_id in claims}
    if not claims_of:
        return None
    subjects = {c.subject for cs in claims_of.values() for c in cs}
    asked = asked_subject(text, [*sorted(subjects), *names])
    if asked is None:
        return None
    trusted = _as_said({c for cs in claims_of.values() for c in cs}, said)
    claims_of = {i: kept for i, cs in claims_of.items() if (kept := [trusted[c.claim_id] for c in cs
                                                                      if c.claim_id in trusted])}
    out, moved = order_by_subject(scored, claims_of, asked)
    if not moved:
        return None
    notes.append(f"asked subject: {asked.describe()} ({asked.span!r}); {moved} item(s) placed before the same "
                 "kind of value about someone else")
    return out


def query_names(q: RecallQuery) -> list[str]:
    """Names the query may call someone by, as its reading found them (people, stored subjects)."""
    return [e.key for e in q.intent.entities if e.kind in ("person", "subject")] if q.intent is not None else []


def said_by(reads: RecallReads) -> Said:
    """:data:`Said` through a recall's reads (each observation read once per recall)."""
    return lambda ids: {i: (o.text, o.role) for i, o in reads.observations(ids).items()}


def asked_slot_keys(q: RecallQuery, claims: Iterable[ClaimState],
                    reads: RecallReads) -> tuple[frozenset[str], frozenset[str]]:
    """The slot keys, among ``claims``, of the person ``q`` asks about (empty when it names none),
    and those of the claims that do not count (:func:`_as_said`): the relevance floor's fallback
    keeps the asked subject's slot when one qualifies, never overriding one in doubt (recall/floor.py)."""
    claims = list(claims)
    if q.intent is None or not claims:
        return frozenset(), frozenset()
    asked = asked_subject(q.text, [*sorted({c.subject for c in claims}), *query_names(q)])
    if asked is None:
        return frozenset(), frozenset()
    trusted = _as_said(claims, said_by(reads))
    return (frozenset(c.slot_key for c in claims if c.claim_id in trusted and is_asked(asked, trusted[c.claim_id].subject)),
            frozenset(c.slot_key for c in claims if c.claim_id not in trusted and c.polarity))
