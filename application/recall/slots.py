"""Recall's slot stage: between the values of one slot, time and supersede state decide, not words (ADR 0060).

After the final score, the ranked items that belong to one slot — its claims, and the events that
are their evidence (an event joins the slots of every claim citing it) — form a group. Words
placed the group (its members' positions stay the group's); which member fills which position is
decided by :mod:`hlmem.domain.value_order` for the time the question asks about (:func:`asked_of`):
the current value first for "now", the value just before it for "before", the value that held on
the day named for "3月15日那会儿". Scores are those of the positions, so the list stays sorted.

When no claim of a group is the value asked for (the words found only the old statement, or only
the turn that states the change), the slot's claims that are (at most :data:`MAX_ADDED` per slot)
join the group: the slot's values are returned rather than what merely shares words with the question.

An event whose claims all ended or were retracted by ``valid_at``
(:func:`~hlmem.domain.value_order.is_history`), in a slot whose value then is among the items, is
*history*: it ranks after the current value, is marked, and a current-time context packet leaves it
out (what is shown says what holds instead).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from attrs import field, frozen

from hlmem.application.ranking import Scored
from hlmem.domain.state import ClaimState, ClaimStatus
from hlmem.domain.value_order import ASKED, Asked, Key, Wanted, claim_key, event_key, holds, is_history

if TYPE_CHECKING:
    from hlmem.application.ports import RecallStore
    from hlmem.application.recall.query import RecallQuery
    from hlmem.application.recall.reads import RecallReads

#: At most this many claims of a slot join a group that lacks the value asked for.
MAX_ADDED = 2


@frozen
class SlotOrder:
    """What the slot stage did: the items in their new order, the events that are history at
    ``valid_at``, the claims it added, and how many items changed place between one slot's values
    (a claim lifted to just before its own evidence turn is not counted: no value moved)."""

    scored: list[Scored]
    history: frozenset[str] = frozenset()
    added: tuple[str, ...] = ()
    moved: int = 0
    #: The claims added, by id (the caller builds their items).
    claims: Mapping[str, ClaimState] = field(factory=dict)


def asked_of(*, history: bool, earliest: bool, window: tuple | None, valid_at, known_at) -> Asked:
    """The time a recall asks about, as :class:`~hlmem.domain.value_order.Asked`: history questions
    want the value before (or, 一开始/originally, the first), a named period the value then, and
    every other question (now, tense-neutral, "as of", an explicit ``valid_at``) the value at ``valid_at``."""
    if history:
        return Asked(Wanted.EARLIEST if earliest else Wanted.BEFORE, valid_at, known_at)
    if window is not None:
        return Asked(Wanted.DURING, valid_at, known_at, window)
    return Asked(Wanted.NOW, valid_at, known_at)


def slot_groups(scored: Sequence[Scored], cited: Mapping[str, Sequence[str]],
                claims: Mapping[str, ClaimState]) -> dict[str, tuple[str, ...]]:
    """Each ranked item that belongs to a slot, mapped to its group's slot keys (sorted).

    A claim belongs to its slot; an event to the slots of the live claims citing it. Slots joined
    by one event (a turn stating two facts) are one group."""
    parent: dict[str, str] = {}

    def root(key: str) -> str:
        while parent.setdefault(key, key) != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    own: dict[str, list[str]] = {}
    for s in scored:
        keys = _slots_of(s, cited, claims)
        if keys:
            own[s.item_id] = keys
            for key in keys[1:]:
                parent[root(key)] = root(keys[0])
            root(keys[0])
    members: dict[str, set[str]] = {}
    for key in parent:
        members.setdefault(root(key), set()).add(key)
    return {item: tuple(sorted(members[root(keys[0])])) for item, keys in own.items()}


def _slots_of(s: Scored, cited: Mapping[str, Sequence[str]], claims: Mapping[str, ClaimState]) -> list[str]:
    if s.kind == "claim":
        c = claims.get(s.item_id)
        return [c.slot_key] if c is not None and c.status is not ClaimStatus.FORGOTTEN else []
    live = [claims[i] for i in cited.get(s.item_id, ()) if i in claims]
    return sorted({c.slot_key for c in live if c.status is not ClaimStatus.FORGOTTEN})


def missing_slots(scored: Sequence[Scored], groups: Mapping[str, tuple[str, ...]], keys: Mapping[str, Key]) -> list[str]:
    """The slot keys of the groups in which no claim is the value asked for (their slots' claims are
    worth reading: :func:`order_slots` may add it). An event stating the value is not enough: it may
    state the old one too ("sold the Civic, got a RAV4"); the claim says which holds."""
    asked: dict[tuple[str, ...], bool] = {}
    for s in scored:
        group = groups.get(s.item_id)
        if group is not None:
            key = keys.get(s.item_id)
            asked[group] = asked.get(group, False) or (s.kind == "claim" and key is not None and key[0] == ASKED)
    return sorted({slot for group, found in asked.items() if not found for slot in group})


def item_keys(scored: Sequence[Scored], cited: Mapping[str, Sequence[str]], claims: Mapping[str, ClaimState],
              asked: Asked) -> dict[str, Key]:
    """Each ranked claim's key and each event's (the best of its live claims'), for ``asked``."""
    out: dict[str, Key] = {}
    for s in scored:
        if s.kind == "claim":
            if (c := claims.get(s.item_id)) is not None and c.status is not ClaimStatus.FORGOTTEN:
                out[s.item_id] = claim_key(c, asked)
            continue
        live = [claims[i] for i in cited.get(s.item_id, ()) if i in claims
                and claims[i].status is not ClaimStatus.FORGOTTEN]
        if (key := event_key(claim_key(c, asked) for c in live)) is not None:
            out[s.item_id] = key
    return out


def order_slots(scored: Sequence[Scored], cited: Mapping[str, Sequence[str]], claims: Mapping[str, ClaimState],
                asked: Asked, slot_values: Mapping[str, Sequence[ClaimState]] | None = None, *,
                include_archived: bool = False) -> SlotOrder:
    """Reorder each slot group of ``scored`` by :mod:`~hlmem.domain.value_order` (see the module).

    :param cited: event id → ids of the claims citing it (``ClaimReader.claims_citing_events``).
    :param claims: the ranked claims and the cited ones, by id.
    :param slot_values: slot key → that slot's claims, for the groups :func:`missing_slots` named:
        the value asked for joins its group when no member is it.
    """
    scored = list(scored)
    groups = slot_groups(scored, cited, claims)
    keys = item_keys(scored, cited, claims, asked)
    added: list[str] = []
    if slot_values:
        scored, added = _add_asked(scored, groups, keys, claims, asked, slot_values, include_archived)
        claims = {**claims, **{c.claim_id: c for v in slot_values.values() for c in v}}
        groups = slot_groups(scored, cited, claims)
    history = _history(scored, groups, cited, claims, asked)
    positions: dict[tuple[str, ...], list[int]] = {}
    for n, s in enumerate(scored):
        if s.item_id in groups:
            positions.setdefault(groups[s.item_id], []).append(n)
    out = list(scored)
    moved = 0
    for places in positions.values():
        if len(places) < 2:
            continue
        ranked = sorted(places, key=lambda p: (keys.get(scored[p].item_id, (ASKED + 9, 0.0)), p))
        for place, source in zip(places, ranked):
            if place != source:
                moved += 1
                out[place] = scored[source]
    out, _ = _claims_before_their_evidence(out, claims, keys, cited)  # not counted: no value changed place
    out = [Scored(item_id=s.item_id, kind=s.kind, relevance=s.relevance, score=place.score, ranks=s.ranks,
                  similarity=s.similarity, folded=s.folded) for s, place in zip(out, scored)]
    values = {c.claim_id: c for v in (slot_values or {}).values() for c in v if c.claim_id in added}
    return SlotOrder(out, history, tuple(added), moved, values)


def _claims_before_their_evidence(items: list[Scored], claims: Mapping[str, ClaimState],
                                  keys: Mapping[str, Key],
                                  cited: Mapping[str, Sequence[str]]) -> tuple[list[Scored], int]:
    """Each claim that ranks below an event it cites, with the same key (the same value asked for), is
    moved to just before that event ("sold the Civic, got a RAV4" is followed by "owns · RAV4", which
    says which value holds); nothing else changes place but by the one step. Returns how many moved.

    An event that stated a value since replaced (a superseded claim cites it) lifts the value that
    replaced it first, when it ranks below with the same key: "我住在杭州，在字节跳动做产品经理" then
    "我搬到上海了" asked "我住哪" puts ``lives_in · 上海`` before the old turn, not the turn's other,
    unchanged fact (``job_title · 产品经理``), which the old turn's words about 住 did not ask for."""
    out = list(items)
    lifted = 0
    i = 0
    while i < len(out):
        event = out[i]
        key = keys.get(event.item_id)
        if event.kind == "event" and key is not None:
            replaced = {claims[c].slot_key for c in cited.get(event.item_id, ())
                        if c in claims and claims[c].status is ClaimStatus.SUPERSEDED}
            below = [j for j in range(i + 1, len(out)) if out[j].kind == "claim" and keys.get(out[j].item_id) == key
                     and out[j].item_id in claims]
            j = next((j for j in below if claims[out[j].item_id].slot_key in replaced), None)
            if j is None:
                j = next((j for j in below if event.item_id in claims[out[j].item_id].evidence), None)
            if j is not None:
                out.insert(i, out.pop(j))
                lifted += 1
                i += 1
        i += 1
    return out, lifted


def _history(scored: Sequence[Scored], groups: Mapping[str, tuple[str, ...]], cited: Mapping[str, Sequence[str]],
             claims: Mapping[str, ClaimState], asked: Asked) -> frozenset[str]:
    """The events that are history at ``valid_at``: every value they record ended or was retracted
    (:func:`~hlmem.domain.value_order.is_history`) and their slot's value then is among the items (a
    claim, or an event citing it): something shown says what holds instead. A past plan nothing
    replaced is not history in this sense; it only ranks after what holds."""
    def claims_of(s: Scored) -> list[ClaimState]:
        ids = [s.item_id] if s.kind == "claim" else cited.get(s.item_id, ())
        return [claims[i] for i in ids if i in claims and claims[i].status is not ClaimStatus.FORGOTTEN]

    current = {groups[s.item_id] for s in scored if s.item_id in groups
               and any(holds(c, asked.valid_at, asked.known_at) for c in claims_of(s))}
    return frozenset(s.item_id for s in scored if s.kind == "event" and groups.get(s.item_id) in current
                     and is_history(claims_of(s), asked.valid_at, asked.known_at))


def _add_asked(scored: list[Scored], groups: Mapping[str, tuple[str, ...]], keys: dict[str, Key],
               claims: Mapping[str, ClaimState], asked: Asked, slot_values: Mapping[str, Sequence[ClaimState]],
               include_archived: bool) -> tuple[list[Scored], list[str]]:
    """``scored`` with, after the last member of each group lacking the value asked for, the slot's
    claims that are it (at most :data:`MAX_ADDED` per group; ``keys`` gets theirs)."""
    present = {s.item_id for s in scored}
    last: dict[tuple[str, ...], int] = {}
    for n, s in enumerate(scored):
        if s.item_id in groups:
            last[groups[s.item_id]] = n
    inserts: dict[int, list[Scored]] = {}
    added: list[str] = []
    for group, n in last.items():
        if any(s.kind == "claim" and keys.get(s.item_id, (ASKED + 9,))[0] == ASKED
               for s in scored if groups.get(s.item_id) == group):
            continue
        candidates = [c for slot in group for c in slot_values.get(slot, ())
                      if c.claim_id not in present and c.status is not ClaimStatus.FORGOTTEN
                      and (include_archived or not c.archived)]
        found = sorted(((claim_key(c, asked), c.claim_id) for c in candidates), key=lambda kc: kc)
        chosen = [cid for key, cid in found if key[0] == ASKED][:MAX_ADDED]
        for cid in chosen:
            keys[cid] = claim_key(next(c for c in candidates if c.claim_id == cid), asked)
            present.add(cid)
            added.append(cid)
            inserts.setdefault(n, []).append(Scored(item_id=cid, kind="claim", relevance=scored[n].relevance,
                                                    score=scored[n].score, ranks={"slot": 1}))
    if not inserts:
        return scored, added
    out: list[Scored] = []
    for n, s in enumerate(scored):
        out.append(s)
        out += inserts.get(n, [])
    return out, added


def slot_stage(storage: RecallStore, reads: RecallReads, q: RecallQuery, scored: Sequence[Scored],
               claims: Mapping[str, ClaimState], notes: list[str]) -> SlotOrder | None:
    """The slot stage of a recall: reads the claims citing the ranked events (one read) and, when a
    group lacks the value asked for and claims are asked for, its slots' claims (one read); orders
    the groups; says what it did in ``notes``. None when no ranked item belongs to a slot."""
    events = [s.item_id for s in scored if s.kind == "event"]
    cited = storage.claims_citing_events(events) if events else {}
    if not cited and not claims:
        return None
    claims = {**claims, **reads.claims([c for ids in cited.values() for c in ids])}
    intent = q.intent
    asked = asked_of(history=q.history, earliest=intent is not None and intent.earliest, window=q.window,
                     valid_at=q.valid_at, known_at=q.known_at)
    groups = slot_groups(scored, cited, claims)
    if not groups:
        return None
    missing = missing_slots(scored, groups, item_keys(scored, cited, claims, asked)) if "claim" in q.kinds else []
    values = storage.slots_claims(missing) if missing else None
    order = order_slots(scored, cited, claims, asked, values, include_archived=q.include_archived)
    if order.added:
        notes.append(f"slot values: {len(order.added)} claim(s) added as the value asked for "
                     f"({asked.wanted.value}), which the words alone did not find")
    if order.moved:
        notes.append(f"slot values: ordered by time and supersede state, not words ({asked.wanted.value}); "
                     f"{order.moved} item(s) moved")
    shown = sum(1 for s in order.scored[:q.k] if s.item_id in order.history)
    if shown and asked.wanted is Wanted.NOW:
        notes.append(f"history: {shown} event(s) record only values that no longer hold; "
                     "they rank after the current value")
    return order
