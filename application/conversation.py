"""The conversation stages of recall: what a matching turn passes on to the turns around it, to
what its speaker said, and to its session (docs/recall.md, steps 5a–5d; ADRs 0018, 0020, 0021).

Each stage takes the fused, floored items best first and returns them best first; the weights
are :class:`~hlmem.application.ranking.RankingConfig` fields.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence

from hlmem.application.ports import Candidate
from hlmem.application.entity_constraint import mentions_folded
from hlmem.application.ranking import RankingConfig, Scored, order_key, text_levels


def propagate_replies(scored: Sequence[Scored], text: Sequence[Candidate], replies: Mapping[str, str],
                      config: RankingConfig) -> list[Scored]:
    """Add to each reply ``reply_weight`` × the full-text level of the turn it answers; best first.

    ``replies`` maps an event id to the next event of its session when another speaker (role)
    said it. Only the first ``reply_top`` full-text hits that are still candidates (above the
    relevance floor) pass their level on; a reply not yet a candidate joins. A reply is read in
    the context of the turn before it ("Which flavour?" → "Chocolate and vanilla"): this is that
    context as a second, weaker full-text ranking, computed at read time.
    """
    if config.reply_weight <= 0 or not replies or not text:
        return list(scored)
    by_id = {s.item_id: s for s in scored}
    levels = text_levels(text)
    for c in sorted(text, key=lambda c: c.rank)[:config.reply_top]:
        nxt = replies.get(c.item_id)
        if nxt is None or c.item_id not in by_id:
            continue
        lift = config.reply_weight * levels[c.item_id]
        current = by_id.get(nxt)
        if current is None:
            by_id[nxt] = Scored(item_id=nxt, kind="event", relevance=lift, score=lift, ranks={"reply": c.rank})
        else:
            by_id[nxt] = current.lifted(current.relevance + lift, current.score + lift,
                                        {**current.ranks, "reply": c.rank})
    out = list(by_id.values())
    out.sort(key=order_key)
    return out


def propagate_successors(scored: Sequence[Scored], successors: Mapping[str, str], config: RankingConfig, *,
                         predecessors: Mapping[str, str] | None = None) -> list[Scored]:
    """Give the next turn of each of the ``successor_top`` best events ``successor_weight`` × its
    predecessor's relevance when that is more than its own (a successor not yet a candidate joins);
    then, with ``predecessors``, the turn before each of the ``successor_top`` best events (after
    that first pass) ``predecessor_weight`` × its relevance, likewise; best first. ``successors``
    maps an event id to the id of the event after it in its session, ``predecessors`` to the one before."""
    out = _lift(scored, successors, config.successor_weight, config.successor_top, "successor")
    if predecessors:
        out = _lift(out, predecessors, config.predecessor_weight, config.successor_top, "predecessor")
    return out


def boost_speaker(scored: Sequence[Scored], roles: Mapping[str, str], speaker: str,
                  config: RankingConfig) -> list[Scored]:
    """Add ``speaker_weight`` to the events among the ``speaker_top`` best whose role (``roles``:
    event id → role) is ``speaker``; best first. Items below ``speaker_top`` keep their places."""
    top = config.speaker_top
    head = [s.lifted(s.relevance + config.speaker_weight, s.score + config.speaker_weight, {**s.ranks, "speaker": 1})
            if roles.get(s.item_id) == speaker else s for s in scored[:top]]
    head.sort(key=order_key)
    return head + list(scored[top:])


def support_sessions(scored: Sequence[Scored], sessions: Mapping[str, str], config: RankingConfig) -> list[Scored]:
    """Add to each event among the ``session_top`` best ``session_weight`` × the summed score of the
    other events of its session there, over the best session's sum (``sessions``: event id →
    session); best first. Items below ``session_top`` keep their places."""
    top = config.session_top
    head = list(scored[:top])
    totals: dict[str, float] = {}
    for s in head:
        if (session := sessions.get(s.item_id)) is not None:
            totals[session] = totals.get(session, 0.0) + s.score
    best = max(totals.values(), default=0.0)
    if best <= 0:
        return list(scored)
    out = []
    for s in head:
        session = sessions.get(s.item_id)
        bonus = config.session_weight * (totals[session] - s.score) / best if session is not None else 0.0
        out.append(s.lifted(s.relevance + bonus, s.score + bonus, {**s.ranks, "session": 1}) if bonus > 0 else s)
    out.sort(key=order_key)
    return out + list(scored[top:])


def spread_sessions(scored: Sequence[Scored], sessions: Mapping[str, str], config: RankingConfig) -> list[Scored]:
    """``scored`` taken greedily, each event's score less ``spread_weight`` × the best score × the
    events of its session already taken (``sessions``: event id → session); the order changes, the
    scores do not. Recall passes the visible items shown, a few more than ``k``."""
    head = list(scored)
    if config.spread_weight <= 0 or len(head) < 2:
        return head
    step = config.spread_weight * max(head[0].score, 0.0)
    taken: dict[str, int] = {}
    out: list[Scored] = []
    while head:
        def effective(s: Scored) -> float:
            session = sessions.get(s.item_id)
            return s.score - (step * taken.get(session, 0) if session is not None else 0.0)
        best = max(range(len(head)), key=lambda i: (effective(head[i]), -i))
        pick = head.pop(best)
        if (session := sessions.get(pick.item_id)) is not None:
            taken[session] = taken.get(session, 0) + 1
        out.append(pick)
    return out


def named_speaker(query: str, speakers: Sequence[str]) -> str | None:
    """The one speaker (event role) ``query`` names (:func:`mentions`), or None for none or several."""
    folded = unicodedata.normalize("NFKC", query).casefold()
    named = [s for s in speakers if s and mentions_folded(folded, s)]
    return named[0] if len(named) == 1 else None


def _lift(scored: Sequence[Scored], neighbour: Mapping[str, str], weight: float, top: int, label: str) -> list[Scored]:
    """``neighbour[i]`` of each of the ``top`` best events gets at least ``weight`` × the relevance of ``i``."""
    if weight <= 0 or not neighbour:
        return list(scored)
    by_id = {s.item_id: s for s in scored}
    for s in [s for s in scored if s.kind == "event"][:top]:
        nxt = neighbour.get(s.item_id)
        if nxt is None:
            continue
        lifted = weight * s.relevance
        current = by_id.get(nxt)
        if current is None:
            by_id[nxt] = Scored(item_id=nxt, kind="event", relevance=lifted, score=lifted,
                                ranks={label: order_key(s)[1]})
        elif lifted > current.relevance:
            by_id[nxt] = current.lifted(lifted, lifted, {**current.ranks, label: order_key(s)[1]})
    out = list(by_id.values())
    out.sort(key=order_key)
    return out
