"""The conversation around events, as recall stages (ADR 0031; the scoring is
:mod:`hlmem.application.conversation`): replies and neighbouring turns share relevance, a named
speaker's turns rank first, turns of one session support each other, and a list question's items
spread across sessions. Each takes the run in flight and the store it reads."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from hlmem.application.conversation import (boost_speaker, named_speaker, propagate_replies, propagate_successors,
                                            spread_sessions, support_sessions)
from hlmem.application.ports import RecallStore
from hlmem.application.recall.run import Run


def neighbours(run: Run, storage: RecallStore) -> None:
    """Replies and the turns next to the best events take part of their relevance (conversation.py).

    The next event of each event in the sessions of the ``successor_top`` best events and of
    the ``reply_top`` best full-text event hits, and, of those hits, the next events another
    role said (replies); forgotten ones are skipped later. One read for their sessions; the
    observations the later stages need (the speaker's and the shown ones) are read with these.
    """
    q, config = run.query, run.query.config
    if not q.events or max(config.successor_weight, config.predecessor_weight, config.reply_weight) <= 0:
        return
    text = run.rankings.get("text", [])
    scored = run.scored
    events = [s.item_id for s in scored if s.kind == "event"]
    best = events[:config.successor_top]
    hits = ([c.item_id for c in sorted(text, key=lambda c: c.rank) if c.kind == "event"][:config.reply_top]
            if config.reply_weight > 0 else [])
    wanted = list(dict.fromkeys(best + hits))
    if not wanted:
        return
    ahead = [s.item_id for s in scored[:max(config.speaker_top, q.shown)] if s.kind == "event"]
    observations = run.reads.observations(wanted + ahead)
    after: dict[str, str] = {}
    sessions = list(dict.fromkeys(observations[i].session_id for i in wanted if i in observations))
    for ids in storage.sessions_events(q.namespace, sessions).values() if sessions else ():
        after.update(zip(ids, ids[1:]))
    nexts = {i: after[i] for i in hits if i in after}
    before = {n: i for i, n in after.items()}
    # The replies' observations, with the neighbours that may join the best (later stages read them).
    joining = [m for i in best for m in (after.get(i), before.get(i)) if m is not None]
    observations = run.reads.observations([*wanted, *nexts.values(), *joining])
    if config.neighbour_gap_s is not None:  # next to each other in a session, but not one exchange
        gap = config.neighbour_gap_s

        def close(a: str, b: str) -> bool:  # a pair not read here is judged as before (kept)
            if a not in observations or b not in observations:
                return True
            return abs((observations[b].occurred_at - observations[a].occurred_at).total_seconds()) <= gap

        # Judged when asked: the stages ask of a few dozen pairs, the sessions hold hundreds.
        after, before = _Close(after, close), _Close(before, lambda n, i: close(i, n))
        nexts = {i: n for i, n in nexts.items() if close(i, n)}
    replies = {i: n for i, n in nexts.items() if i in observations and n in observations
               and observations[n].role != observations[i].role}
    scored = propagate_replies(scored, text, replies, config)
    run.scored = propagate_successors(scored, after, config, predecessors=before)


def speaker(run: Run, storage: RecallStore) -> None:
    """When the query names one speaker of the namespace, what they said ranks first among the
    ``speaker_top`` best (conversation.boost_speaker)."""
    q, config = run.query, run.query.config
    if not q.events or config.speaker_weight <= 0 or not run.scored:
        return
    speaker = named_speaker(q.text, sorted(storage.speakers(q.namespace)))
    if speaker is None:
        return
    top = [s.item_id for s in run.scored[:config.speaker_top] if s.kind == "event"]
    roles = {i: e.role for i, e in run.reads.observations(top).items()}
    run.notes.append(f"speaker: the query names {speaker}; what {speaker} said ranks first")
    run.scored = boost_speaker(run.scored, roles, speaker, config)


def sessions(run: Run) -> None:
    """Events of one session among the ``session_top`` best support each other (support_sessions)."""
    q, config = run.query, run.query.config
    if not q.events or config.session_weight <= 0 or len(run.scored) <= 1:
        return
    ids = [s.item_id for s in run.scored[:config.session_top] if s.kind == "event"]
    if len(ids) > 1:
        run.scored = support_sessions(run.scored, run.reads.sessions(ids), config)


def spread(run: Run) -> None:
    """A list question's best items spread across sessions (conversation.spread_sessions)."""
    q, config = run.query, run.query.config
    if not q.many or not q.events or config.spread_weight <= 0 or len(run.scored) <= 1:
        return
    ids = [s.item_id for s in run.scored if s.kind == "event"]
    if len(ids) > 1:
        run.scored = spread_sessions(run.scored, run.reads.sessions(ids), config)


class _Close(Mapping[str, str]):
    """The pairs of ``pairs`` that ``close`` keeps, each judged when first asked."""

    def __init__(self, pairs: Mapping[str, str], close: Callable[[str, str], bool]) -> None:
        self._pairs, self._close = pairs, close
        self._judged: dict[str, bool] = {}

    def _keeps(self, key: str) -> bool:
        kept = self._judged.get(key)
        if kept is None:
            kept = self._judged[key] = self._close(key, self._pairs[key])
        return kept

    def __getitem__(self, key: str) -> str:
        if key in self._pairs and self._keeps(key):
            return self._pairs[key]
        raise KeyError(key)

    def get(self, key: str, default: str | None = None) -> str | None:  # type: ignore[override]
        return self._pairs[key] if key in self._pairs and self._keeps(key) else default

    def __iter__(self) -> Iterator[str]:
        return (k for k in self._pairs if self._keeps(k))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __bool__(self) -> bool:
        return any(True for _ in self)
