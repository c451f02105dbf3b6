"""When the relevance floor leaves nothing: the slot values the question's words or meaning reach (ADR 0060).

The floor (:func:`hlmem.application.ranking.apply_floor`) keeps a store from answering a question it
holds nothing about. It was calibrated on conversational turns; a question about someone's facts
asked in other words ("what did we use for tasks before?", "我屏幕现在是黑的还是白的来着") can fall
under it although the store holds the slot it asks about. So when the floor empties a question that
reads as one about a person's facts or about a time (:func:`asks_for_values`), the values of the
one slot the question names are kept, and the result says so; recall's slot stage then orders that
slot's values by time. A question names a slot by a word (a full-text hit on a claim: its
predicate's labels or its value), or by its meaning: its nearest memory is a slot value and that
slot's values (claims, events a claim cites) reach the model's slot floor (``RankingConfig.slot_floors``).
Everything else stays out. The price, measured on the current-truth dev set (docs/benchmarks/current-truth.md):
questions of another topic asked of a store get that store's nearest slot more often (ADR 0060).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from hlmem.application.ports import Candidate
from hlmem.application.ranking import Scored, apply_floor
from hlmem.application.recall.subject_order import asked_slot_keys
from hlmem.domain.query_understanding import HIGH_CONFIDENCE, QueryIntent, TimeMode
from hlmem.domain.state import ClaimState, ClaimStatus

if TYPE_CHECKING:
    from hlmem.application.ports import RecallStore
    from hlmem.application.recall.query import RecallQuery
    from hlmem.application.recall.reads import RecallReads


def asks_for_values(intent: QueryIntent | None) -> bool:
    """Whether a question reads as one about someone's facts (first person, a relative, a name known
    with confidence) or about a time (now, before, a date): the questions whose slot values may pass
    a failed floor. "what is the capital of France?" is neither."""
    if intent is None:
        return False
    named = any(e.kind == "role" or e.confidence >= HIGH_CONFIDENCE for e in intent.entities)  # 我妈, a stored subject
    return intent.about_user or named or intent.time_mode is not TimeMode.UNSPECIFIED


def word_hits(rankings: Mapping[str, Sequence[Candidate]]) -> set[str]:
    """The ids found by their words (every source but vectors)."""
    return {c.item_id for source, cands in rankings.items() if source != "vector" for c in cands}


def slot_values_kept(fused: Sequence[Scored], rankings: Mapping[str, Sequence[Candidate]],
                     slots: Mapping[str, frozenset[str]], slot_floor: float | None,
                     prefer: frozenset[str] = frozenset(), doubtful: frozenset[str] = frozenset()) -> list[Scored]:
    """The values of one slot that a failed floor may still return, in fused order.

    A claim qualifies when a word of the question found it (a claim's words are its subject, its
    predicate with the slot's labels in both languages and its value: a word there names the slot).
    A claim, or an event some claim cites, qualifies when it is at least ``slot_floor`` similar to
    the question (None: never) and the memory most similar to the question is a slot value too
    (the question's nearest memory is a fact, not small talk). Only the slot of the best
    qualifying item is kept: one slot's values, not a scatter of near misses; the best of those that
    are values of a slot in ``prefer`` (the asked subject's: "我姐姐在哪上班" keeps the sister's
    employer, not the user's; ADR 0089), when one qualifies; when the slot kept is another's, the
    asked subject's slot of the same predicate instead, when ``fused`` holds a value of it — unless
    the slot it would keep is in ``doubtful`` (the user's, resting only on turns about "him"/"她").

    :param slots: item id → the slot keys it is a value of (a claim: its own; an event: those of
        the claims citing it), for the slot values among ``fused``.
    """
    words = word_hits(rankings)
    nearest = max((s for s in fused if s.similarity is not None), key=lambda s: s.similarity, default=None)
    by_meaning = slot_floor is not None and nearest is not None and bool(slots.get(nearest.item_id))
    qualified = [s for s in fused if slots.get(s.item_id) and (
        (s.kind == "claim" and s.item_id in words)
        or (by_meaning and s.similarity is not None and s.similarity >= slot_floor))]
    if not qualified:
        return []
    first = qualified[0]
    if prefer and not slots[first.item_id] & doubtful:
        first = next((s for s in qualified if slots[s.item_id] & prefer), first)
    best = slots[first.item_id]
    if prefer and not best & prefer and not best & doubtful:  # the asked subject's slot of the same predicate
        same = {k for k in prefer if _predicate(k) in {_predicate(b) for b in best}}
        theirs = [s for s in fused if slots.get(s.item_id, frozenset()) & same]
        if theirs:
            return theirs
    return [s for s in qualified if slots[s.item_id] & best]


def _predicate(slot_key: str) -> str:
    """The predicate part of a slot key (:func:`hlmem.domain.state.slot_key`)."""
    parts = slot_key.split("\x1f")
    return parts[2] if len(parts) > 2 else slot_key


def _slots(storage: RecallStore, reads: RecallReads, fused: Sequence[Scored],
           claims_out: dict[str, ClaimState] | None = None) -> dict[str, frozenset[str]]:
    """Item id → the slot keys it is a value of, for the slot values among ``fused`` (one evidence
    read); the claims read go into ``claims_out`` when given."""
    events = [s.item_id for s in fused if s.kind == "event"]
    cited = storage.claims_citing_events(events) if events else {}
    claims = {i: c for i, c in reads.claims([s.item_id for s in fused if s.kind == "claim"]
                                            + [c for ids in cited.values() for c in ids]).items()
              if c.status is not ClaimStatus.FORGOTTEN}
    if claims_out is not None:
        claims_out.update(claims)
    slots = {i: frozenset({c.slot_key}) for i, c in claims.items()}
    slots.update({e: frozenset(claims[c].slot_key for c in ids if c in claims) for e, ids in cited.items()})
    return slots


def floor_fallback(storage: RecallStore, reads: RecallReads, q: RecallQuery, fused: Sequence[Scored],
                   rankings: Mapping[str, Sequence[Candidate]], model: str | None) -> list[Scored]:
    """What a question about someone's facts or a time keeps when the floor left nothing: the values
    of the one slot its words or meaning reach (:func:`slot_values_kept`). One evidence read."""
    if not asks_for_values(q.intent):
        return []
    claims: dict[str, ClaimState] = {}
    slots = _slots(storage, reads, fused, claims)
    prefer, doubtful = asked_slot_keys(q, claims.values(), reads) if q.config.asked_subject else (frozenset(),) * 2
    return slot_values_kept(fused, rankings, slots, q.config.slot_floor_for(model), prefer, doubtful)


def near_values(storage: RecallStore, reads: RecallReads, q: RecallQuery, below: Sequence[Scored],
                model: str | None) -> list[Scored]:
    """When the floor passed (the question is about what the store holds) but dropped some vector-only
    candidates: those that are slot values at least the slot floor similar, for a question about
    someone's facts or a time. The value a question asks for is often said in words the question
    does not use ("knees have told me my football days are done" for "what sport was I playing?")."""
    slot_floor = q.config.slot_floor_for(model)
    near = [s for s in below if slot_floor is not None and s.similarity is not None and s.similarity >= slot_floor]
    if not near or not asks_for_values(q.intent):
        return []
    slots = _slots(storage, reads, near)
    return [s for s in near if slots.get(s.item_id)]


def fallback_note(why: str, kept: Sequence[Scored]) -> str:
    """The note of a floor that left nothing (or nothing visible), and of what its fallback kept."""
    return f"relevance floor: {why}" + (
        f"; kept {len(kept)} value(s) of the slot the question's words name or its meaning comes closest to "
        "(ADR 0060)" if kept else "")


def floored(storage: RecallStore, reads: RecallReads, q: RecallQuery, fused: Sequence[Scored],
            rankings: Mapping[str, Sequence[Candidate]], floor: float | None, model: str | None,
            notes: list[str]) -> tuple[list[Scored], list[Scored]]:
    """The floor with its two exceptions for questions about someone's facts or a time: ``(kept,
    dropped)``, fused order. When the floor leaves nothing, :func:`floor_fallback`; when it passed
    but dropped some, the slot values among them just under it (:func:`near_values`). Notes say which."""
    scored = apply_floor(fused, rankings, floor)
    kept = {s.item_id for s in scored}
    below = [s for s in fused if s.item_id not in kept]
    if fused and not scored:
        rescued = floor_fallback(storage, reads, q, below, rankings, model)
        notes.append(fallback_note(f"nothing reached similarity {floor}", rescued))
        return rescued, []
    near = {s.item_id for s in near_values(storage, reads, q, below, model)} if below else set()
    if near:
        notes.append(f"relevance floor: {len(near)} slot value(s) just under similarity {floor} kept "
                     "(a question about someone's facts or a time; ADR 0060)")
        return [s for s in fused if s.item_id in kept or s.item_id in near], [s for s in below if s.item_id not in near]
    return scored, below
