"""Recall through accepted relations: "where does my sister work?" (ADR 0085, docs/recall.md).

A question that names someone by a relation phrase (:func:`~hlmem.domain.relation_query.relation_phrases`:
"my sister", "Tom's manager", "我老婆的哥哥") is resolved to people through **accepted** edges, one or
two hops (:mod:`hlmem.domain.relation_walk`); then the question is asked again of each person by
name and by kin phrase ("where does Anna work?", "where does user's sister work?"), and those
recalls are fused with the ordinary one (:func:`fuse`): an item both found ranks first, and the
hop adds at most a third of the ``k`` slots, so the ordinary recall keeps the rest of its best.

Nothing changes without relations enabled (the service gets no ``RelationHops``), and nothing
changes when no phrase is found or no accepted edge answers it: not the items, not the notes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from attrs import frozen

from hlmem.application.ports import RelationRecallStore
from hlmem.application.recall.items import RecallItem
from hlmem.domain.errors import ValidationError
from hlmem.domain.relation_query import RelationPhrase, relation_phrases
from hlmem.domain.relation_walk import Reached, prefer, step
from hlmem.domain.relations import ACCEPTED, PERSON, USER_ENTITY, USER_NAME, RelationState, entity_id
from hlmem.domain.state import SELF_KEY, subject_key

__all__ = ["HopPlan", "RelationHops", "fuse", "follow"]

#: Phrases tried per question; people followed per hop; edges per read of an entity's accepted edges.
MAX_PHRASES, MAX_PEOPLE, MAX_EDGES = 4, 3, 500
#: RRF's constant when the ordinary recall and the hop's are fused; the weights of the recalls by
#: the people's names (shared between them) and by the kin phrase (the ordinary recall's is 1): a
#: person the question names through an accepted edge is whom it asks about, and the kin phrase
#: finds much what the ordinary recall finds. The claims the walked edges rest on ("user ·
#: sibling · Anna") say who, not what is asked, and a claim about the user is about someone
#: else than the question: their score is halved.
_RRF_C, NAME_WEIGHT, KIN_WEIGHT, SAID_WEIGHT, TOLD_WEIGHT = 2.0, 2.0, 0.5, 0.5, 0.75


@frozen
class HopPlan:
    """A phrase resolved: whom it reached (best first) and the questions to ask of them."""

    phrase: RelationPhrase
    reached: tuple[Reached, ...]
    #: Each question with its weight in the fusion.
    questions: tuple[tuple[str, float], ...]

    @property
    def said(self) -> frozenset[str]:
        """The claims the walked edges rest on."""
        return frozenset(i for r in self.reached for e in r.path for i in e.claim_ids)

    @property
    def names(self) -> frozenset[str]:
        """Everyone on the walked paths, case-folded (a claim between two of them says who, not what)."""
        return frozenset(n.casefold() for r in self.reached for e in r.path for n in (e.source_name, e.target_name))

    @property
    def told(self) -> frozenset[str]:
        """The turns the walked edges rest on ("My sister Anna is visiting")."""
        return frozenset(i for r in self.reached for e in r.path for i in e.event_ids)


class RelationHops:
    """Resolves a question's relation phrase through a store's accepted edges."""

    def __init__(self, storage: RelationRecallStore) -> None:
        self._storage = storage

    def plan(self, question: str, namespace: str) -> HopPlan | None:
        """The people the question's relation phrase leads to, or None (no phrase, no accepted edge).
        A question without a relation phrase reads nothing."""
        phrases = relation_phrases(question)
        if not phrases:
            return None
        key = self._storage.tombstones.salt()
        for phrase in phrases[:MAX_PHRASES]:
            start = USER_ENTITY.id(key) if phrase.anchor == USER_NAME else entity_id(PERSON, phrase.anchor, key)
            reached = self._walk(phrase, namespace, start)
            if reached:
                return HopPlan(phrase, tuple(reached), _questions(question, phrase, reached))
        return None

    def _walk(self, phrase: RelationPhrase, namespace: str, start: str) -> list[Reached]:
        anchor = "user" if phrase.anchor == USER_NAME else phrase.anchor
        at = [Reached(start, "user" if phrase.anchor == USER_NAME else PERSON, anchor, ())]
        for hop in phrase.hops:
            found = step(self._accepted(namespace, [r.entity_id for r in at]), at, hop.relation)
            if not found:
                return []
            found = prefer(found, hop.word, self._texts([r.path[-1] for r in found]) if len(found) > 1 else {})
            at = found[:MAX_PEOPLE]
        return at

    def _accepted(self, namespace: str, entities: list[str]) -> list[RelationState]:
        """Every accepted edge at ``entities``, a page of ``MAX_EDGES`` at a time (at most 20 pages)."""
        out: list[RelationState] = []
        after = None
        for _page in range(20):
            page = self._storage.relations.relations(namespace, status=ACCEPTED, entities=entities, after=after,
                                                     limit=MAX_EDGES)
            out += page
            if len(page) < MAX_EDGES:
                break
            after = page[-1].relation_id
        return out

    def _texts(self, edges: Sequence[RelationState]) -> dict[str, list[str]]:
        """Each edge's names and its evidence's words (the claims as triples, the turns verbatim)."""
        ids = [i for e in edges for i in e.evidence]
        claims = self._storage.get_claims([i for i in ids if i.startswith("cl_")])
        events = self._storage.get_observations([i for i in ids if i.startswith("ev_")])
        out: dict[str, list[str]] = {}
        for e in edges:
            texts = [e.target_name, e.source_name]
            for i in e.evidence:
                if (c := claims.get(i)) is not None:
                    texts.append(f"{c.subject} {c.predicate} {c.value}")
                elif (o := events.get(i)) is not None and not o.forgotten:
                    texts.append(o.text)
            out[e.relation_id] = texts
        return out


def _questions(question: str, phrase: RelationPhrase, reached: Sequence[Reached]) -> tuple[tuple[str, float], ...]:
    """The question asked of each person reached, by name, then by the kin phrase of the last hop
    ("用户的妹妹", "Priya's husband"), each once and never the question itself, with its weight."""
    asked: dict[str, float] = {}
    for r in reached:
        asked.setdefault(question.replace(phrase.span, r.name, 1), NAME_WEIGHT / len(reached))
    owners = {r.path[-1].source_name if r.path[-1].target_id == r.entity_id else r.path[-1].target_name
              for r in reached}
    for owner in sorted(owners):
        kin = phrase.kin_name(USER_NAME if owner == "user" else owner)
        asked.setdefault(question.replace(phrase.span, kin, 1), KIN_WEIGHT / len(owners))
    return tuple((q, w) for q, w in asked.items() if q.strip() != question.strip())


def note(plan: HopPlan) -> str:
    """The hop in words for ``result.notes``: which edges, their ids and evidence, what was asked."""
    paths = []
    for r in plan.reached:
        edges = "; ".join(f"{e.source_name} —{e.relation}→ {e.target_name} ({e.relation_id}, evidence "
                          f"{', '.join(e.evidence) or 'none'})" for e in r.path)
        paths.append(f"{r.name} through {edges}")
    return (f"relation: {plan.phrase.span!r} is {' | '.join(paths)}; also asked "
            + " | ".join(repr(q) for q, _w in plan.questions) + " (`explain rl_…` shows an edge and its evidence)")


def fuse(ordinary: Sequence[RecallItem], hops: Sequence[tuple[Sequence[RecallItem], float]], k: int,
         said: frozenset[str] = frozenset(), told: frozenset[str] = frozenset(),
         names: frozenset[str] = frozenset()) -> list[RecallItem]:
    """The ordinary items and the hops' (each list with its weight), fused by weighted reciprocal
    rank (an item found by several first; one of ``said``, a claim about the user or one between
    two of ``names``, at half its score: it says who, or is about someone else); items the ordinary
    recall did not have among its ``k`` take at most a third of the slots, so it keeps at least
    two thirds of its best."""
    scores: dict[str, float] = {}
    items: dict[str, RecallItem] = {}
    for found, weight in [(ordinary, 1.0), *hops]:
        for i, item in enumerate(found):
            scores[item.id] = scores.get(item.id, 0.0) + weight / (_RRF_C + i)
            items.setdefault(item.id, item)
    for item_id, item in items.items():  # who it is, or the user's own value: not what is asked of them
        if item_id in said or (item.kind == "claim" and item.subject and (
                subject_key(item.subject) == SELF_KEY
                or (item.subject.casefold() in names and (item.value or "").casefold() in names))):
            scores[item_id] *= SAID_WEIGHT
        elif item_id in told:  # the turn that says who it is may say more ("my roommate Jake is from Denver")
            scores[item_id] *= TOLD_WEIGHT
    own = {i.id for i in ordinary[:k]}
    slots = max(1, k // 3)
    out: list[RecallItem] = []
    for item_id in sorted(scores, key=lambda i: -scores[i]):
        if len(out) == k:
            break
        if item_id in own or slots > 0:
            slots -= item_id not in own
            out.append(items[item_id])
    return out


def follow(hops: RelationHops, question: str, namespace: str, ordinary: Sequence[RecallItem], k: int,
           recall: Callable[[str], Sequence[RecallItem]], notes: list[str]) -> list[RecallItem]:
    """``ordinary`` as it is when the question has no relation phrase an accepted edge answers;
    else fused with what ``recall`` finds for each of the plan's questions, and a note."""
    plan = hops.plan(question, namespace)
    if plan is None or not plan.questions:
        return list(ordinary)
    found = []
    for asked, weight in plan.questions:
        try:
            found.append((recall(asked), weight))
        except ValidationError:  # a name made the question longer than a query may be: that one is skipped
            continue
    notes.append(note(plan))
    return fuse(ordinary, found, k, plan.said, plan.told, plan.names)
