"""Recall: query understanding, full-text and vector candidates, the ranking stage, and the two clocks.

The pipeline (docs/recall.md, ADR 0018): read the query's time intent (explicit instants win),
generate candidates, fuse and floor them (:mod:`hlmem.application.ranking`), keep what was
visible at the (valid, known) instant asked about, add the final signals and fold duplicates.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future
from datetime import datetime

from attrs import field, frozen

from hlmem.application.extraction import temporal
from hlmem.application.packet import Packet, PacketItem, build_packet
from hlmem.application.ports import Candidate, Clock, Embedder, RecallStore, Reranker
from hlmem.application.conversation import (boost_speaker, named_speaker, propagate_replies, propagate_successors,
                                            support_sessions)
from hlmem.application.entity_constraint import ENTITY_CONSTRAINT_MODES, constrain
from hlmem.application.ranking import (Features, RankingConfig, Scored, apply_floor, final_scores, fold,
                                       fold_key_of_text, fuse)
from hlmem.application.reranking import DEFAULT_TOP_N, rerank_items
from hlmem.domain.commands import check_namespace
from hlmem.domain.errors import ValidationError
from hlmem.domain.queries import row_at
from hlmem.domain.query_understanding import HIGH_CONFIDENCE, QueryIntent, TimeMode, merge, understand
from hlmem.domain.state import SELF_SUBJECTS
from hlmem.domain.time import require_aware

#: The RRF constant: 60, as in Cormack et al. (2009); large k flattens rank differences.
RRF_K = 60
#: Longest query, in characters.
MAX_QUERY_CHARS = 2_000
#: Most items one recall returns.
MAX_K = 200


@frozen(kw_only=True)
class RecallItem:
    """One recalled claim or event, with why it ranked (its per-source ranks) and its clocks."""

    id: str
    kind: str
    text: str
    score: float
    ranks: dict[str, int] = field(factory=dict)
    evidence: tuple[str, ...] = ()
    subject: str | None = None
    predicate: str | None = None
    value: str | None = None
    qualifiers: tuple[tuple[str, str], ...] = ()
    polarity: bool | None = None
    status: str | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    recorded_from: datetime | None = None
    recorded_to: datetime | None = None
    occurred_at: datetime | None = None
    session_id: str | None = None
    role: str | None = None
    #: Out of normal recall (lifecycle); returned only with ``include_archived``.
    archived: bool = False
    #: Near-duplicates folded into this item (ranking); their evidence is in ``evidence``.
    folded: tuple[str, ...] = ()


@frozen
class RecallResult:
    """Items best first, with the instants they were filtered at, and notes on degraded paths."""

    items: tuple[RecallItem, ...]
    valid_at: datetime
    known_at: datetime
    notes: tuple[str, ...] = ()
    #: What the query was read as (time mode, inferred instants, entities); None when not read.
    intent: QueryIntent | None = None
    #: The context packet for the agent's prompt when a token budget was given (docs/packet.md).
    packet: Packet | None = None


def rrf(rankings: dict[str, Sequence[Candidate]], k: int = RRF_K) -> list[tuple[str, float, dict[str, int]]]:
    """Reciprocal-rank fusion: ``sum(1 / (k + rank))`` over the rankings an item appears in."""
    scores: dict[str, float] = {}
    ranks: dict[str, dict[str, int]] = {}
    for source, candidates in rankings.items():
        for cand in candidates:
            scores[cand.item_id] = scores.get(cand.item_id, 0.0) + 1.0 / (k + cand.rank)
            ranks.setdefault(cand.item_id, {})[source] = cand.rank
    fused = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    return [(item_id, score, ranks[item_id]) for item_id, score in fused]


class RecallService:
    """Answers "what do we remember about …" as of any (valid, known) instant."""

    def __init__(self, storage: RecallStore, clock: Clock, embedder: Embedder | None = None,
                 ranking: RankingConfig | None = None, *, reranker: Reranker | None = None,
                 rerank_top_n: int | None = None, executor: Executor | None = None) -> None:
        """:param executor: where a recall embeds its query and scans vectors while the calling thread
            reads the query and searches full text (None: one after the other, in the calling
            thread). The storage's prepared vector search must then run beside its other calls,
            as the port promises (ADR 0022)."""
        self._storage = storage
        self._executor = executor
        self._clock = clock
        self._embedder = embedder
        self._ranking = ranking or RankingConfig()
        self._reranker = reranker
        self._rerank_top_n = rerank_top_n or DEFAULT_TOP_N

    def recall(self, query: str, *, k: int = 10, namespace: str = "default", valid_at: datetime | None = None,
               known_at: datetime | None = None, kinds: Sequence[str] = ("claim", "event"),
               include_archived: bool = False, understand_query: bool = True,
               entity_constraint: str = "enforce", budget: int | None = None,
               now: datetime | None = None) -> RecallResult:
        """Return up to ``k`` items relevant to ``query`` that held at ``valid_at`` as known at ``known_at``.

        :param valid_at: the world time asked about (default ``now``).
        :param known_at: the knowledge time asked about (default the clock's now: everything memory
            has learnt, even after ``now``; an imported 2023 history recorded in 2026 stays visible).
        :param now: the reference time the question is asked at (default the clock's now): what
            yesterday / last week / in May / 周三 / "as of" are read against (a month or weekday
            without a year is the latest one not after it), and the default ``valid_at``.
        :param include_archived: also search archived claims (by their own words only: they have
            no full-text row or vector). Every claim returned counts as accessed (lifecycle).
        :param understand_query: read the query's time intent (:mod:`hlmem.domain.query_understanding`)
            when ``valid_at``/``known_at`` are not given: 现在/currently ranks the newest first,
            之前/used to ranks values that no longer hold first, 4月时/last year filters at that time.
            The intent is in ``result.intent`` and what was inferred in ``result.notes``.
        :param entity_constraint: ``enforce`` (default): when the query names an entity with high
            confidence (a stored subject, a version), items that do not mention it rank below every
            item that does, so a near-homonym (张卫 for 张伟, v1.3 for v1.2) never takes the top;
            ``observe``: only count such intrusions in ``result.notes``; ``off``.
        :raises ValidationError: for an empty or over-long query, a bad ``k`` or namespace, naive times.
        """
        problems = []
        if not isinstance(query, str) or not query.strip():
            problems.append(ValidationError("query is empty", field="query"))
        elif len(query) > MAX_QUERY_CHARS:
            problems.append(ValidationError(f"query is {len(query)} characters; the limit is {MAX_QUERY_CHARS}",
                                            field="query"))
        if not isinstance(k, int) or not 1 <= k <= MAX_K:
            problems.append(ValidationError(f"k must be between 1 and {MAX_K}", field="k"))
        if budget is not None and (not isinstance(budget, int) or isinstance(budget, bool) or budget < 0):
            problems.append(ValidationError("budget must be a whole number of tokens, 0 or more", field="budget"))
        problems += check_namespace(namespace)
        bad_kinds = set(kinds) - {"claim", "event"}
        if bad_kinds or not kinds:
            problems.append(ValidationError(f"kinds must be claim and/or event, not {sorted(bad_kinds)}", field="kinds"))
        if entity_constraint not in ENTITY_CONSTRAINT_MODES:
            problems.append(ValidationError(f"entity_constraint must be one of {ENTITY_CONSTRAINT_MODES}",
                                            field="entity_constraint"))
        if problems:
            raise problems[0] if len(problems) == 1 else ExceptionGroup("invalid recall", problems)
        clock_now = self._clock.now()
        now = require_aware(now, field="now") if now is not None else clock_now
        explicit_valid = require_aware(valid_at, field="valid_at") if valid_at else None
        explicit_known = require_aware(known_at, field="known_at") if known_at else None
        notes: list[str] = []
        intent = None
        if understand_query:
            intent = merge(understand(query, now=now, times=temporal), valid_at=explicit_valid, known_at=explicit_known)
        valid_at, known_at, search_text = self._instants(intent, query, now, clock_now, explicit_valid, explicit_known,
                                                         notes)
        pool = max(50, k * 5)
        config = self._ranking
        model = self._storage.vector_model()
        search = self._vector_search(namespace, pool, model, notes)  # loads new vectors first
        embedder = self._embedder

        def vector_side() -> list[Candidate] | None:
            if search is None or embedder is None:
                return None
            return search(embedder.embed_queries([query])[0].astype("<f4").tobytes())

        # With an executor the query's embedding and vector scan run there while this thread
        # searches full text: the scan (numba or numpy) and SQLite both work without the GIL, so
        # the two overlap (ADR 0022). The scan starts once this thread first waits on SQLite.
        with _Pending(vector_side, self._executor if search is not None else None) as pending:
            rankings: dict[str, list[Candidate]] = {"text": self._storage.text_candidates(namespace, search_text, pool)}
            if config.context_weight > 0 and "event" in kinds:
                rankings["context"] = self._storage.context_candidates(namespace, search_text, pool)
            vector = pending.result()
        if vector is not None:
            rankings["vector"] = vector
        # "now" and "at T" both ask for the latest state up to an instant: the newest visible memory
        # is the best witness of it (everything visible happened by then). A named period ("in
        # June") instead favours what happened or held within it.
        current = intent is not None and intent.time_mode in (TimeMode.CURRENT, TimeMode.AT)
        vrange = intent.valid_range if intent is not None and explicit_valid is None else None
        window = (vrange.start, vrange.end) if vrange is not None else None
        history = intent is not None and intent.time_mode is TimeMode.HISTORY and explicit_valid is None

        if include_archived and "claim" in kinds:
            rankings["archived"] = self._storage.archived_candidates(namespace, query, pool)
        floor = config.floor_for(model[0] if model is not None and "vector" in rankings else None)
        fused = [s for s in fuse(rankings, config, floor=floor, pool=pool) if s.kind in kinds]
        floored = apply_floor(fused, rankings, floor)
        if fused and not floored:
            notes.append(f"relevance floor: nothing reached similarity {floor}")
        if "event" in kinds and max(config.successor_weight, config.predecessor_weight, config.reply_weight) > 0:
            text = rankings.get("text", [])
            after, replies = self._neighbours(floored, text, namespace, config)
            floored = propagate_replies(floored, text, replies, config)
            floored = propagate_successors(floored, after, config, predecessors={n: i for i, n in after.items()})
        if "event" in kinds and config.speaker_weight > 0 and floored:
            floored = self._speaker(query, floored, namespace, config, notes)
        if "event" in kinds and config.session_weight > 0 and len(floored) > 1:
            ids = [s.item_id for s in floored[:config.session_top] if s.kind == "event"]
            if len(ids) > 1:
                floored = support_sessions(floored, self._storage.sessions_of(ids), config)
        # A few more than k, so that the final signals and folding can reorder among them.
        also = (None, valid_at) if history else window  # claims that held then are visible too
        visible = self._first_visible(floored, min(len(floored), k + max(5, k // 2)), valid_at, known_at, also)
        claims = self._storage.get_claims([s.item_id for s in visible if s.kind == "claim"])
        events = self._storage.get_observations([s.item_id for s in visible if s.kind == "event"])
        features = _features(claims, events, valid_at, known_at)
        ranked = final_scores(visible, features, config, current=current, history=history, window=window)
        if config.fold_duplicates:
            ranked = fold(ranked, features)
        names = self._named(intent, namespace, claims) if intent is not None and entity_constraint != "off" else ()
        if names:
            texts = {**{i: render_claim(c.subject, c.predicate, c.value, c.qualifiers, c.polarity)
                        for i, c in claims.items()}, **{i: e.text for i, e in events.items()}}
            folded_names = {n.casefold() for n in names}
            others = sorted({c.subject for c in claims.values() if c.subject.casefold() not in SELF_SUBJECTS
                             and c.subject.casefold() not in folded_names})
            ranked, intrusions = constrain(ranked, texts, names, others, entity_constraint)
            verb = "left out" if entity_constraint == "enforce" else "seen"
            notes.append(f"entity constraint ({entity_constraint}) on {', '.join(names)}: "
                         f"{intrusions} item(s) about other entities {verb}")
        built = self._items(ranked[:max(k, self._rerank_top_n) if self._reranker else k], claims, events, valid_at,
                            known_at)
        if self._reranker is not None and built:
            outcome = rerank_items(query, built, self._reranker, top_n=self._rerank_top_n)
            built = list(outcome.items)
            if outcome.note:
                notes.append(outcome.note)
        items = tuple(built[:k])
        # After the read: telemetry the lifecycle decays by (buffered by the adapter, never blocking).
        self._storage.record_access([i.id for i in items if i.kind == "claim"], clock_now)
        packet = None
        if budget is not None:
            packet = build_packet([PacketItem.from_recall(i) for i in items], budget_tokens=budget, now=now)
        return RecallResult(items, valid_at, known_at, tuple(notes), intent, packet)

    def _vector_search(self, namespace: str, pool: int, model: tuple[str, int] | None,
                       notes: list[str]) -> Callable[[bytes], list[Candidate]] | None:
        """The store's vector search, prepared (None when there is nothing to search with)."""
        if self._embedder is None or model is None:
            return None
        if model != (self._embedder.model_id, self._embedder.dim):
            # Never compare vectors of two models: fall back to full text and say so.
            notes.append(f"vector search skipped: the store's vectors are {model[0]}, the embedder is "
                         f"{self._embedder.model_id} (run `hlmem reembed` to switch)")
            return None
        return self._storage.vector_search(namespace, pool)

    def _neighbours(self, scored: Sequence[Scored], text: Sequence[Candidate], namespace: str,
                    config: RankingConfig) -> tuple[dict[str, str], dict[str, str]]:
        """The next event of each event in the sessions of the ``successor_top`` best events and of
        the ``reply_top`` best full-text event hits, and, of those hits, the next events another role
        said (replies); forgotten ones are skipped later. One read per distinct session."""
        best = [s.item_id for s in scored if s.kind == "event"][:config.successor_top]
        hits = ([c.item_id for c in sorted(text, key=lambda c: c.rank) if c.kind == "event"][:config.reply_top]
                if config.reply_weight > 0 else [])
        wanted = list(dict.fromkeys(best + hits))
        if not wanted:
            return {}, {}
        observations = self._storage.get_observations(wanted)
        after: dict[str, str] = {}
        for session in {e.session_id for e in observations.values()}:
            ids = self._storage.session_events(namespace, session)
            after.update(zip(ids, ids[1:]))
        nexts = {i: after[i] for i in hits if i in after}
        missing = [n for n in nexts.values() if n not in observations]
        if missing:
            observations = {**observations, **self._storage.get_observations(missing)}
        replies = {i: n for i, n in nexts.items() if i in observations and n in observations
                   and observations[n].role != observations[i].role}
        return after, replies

    def _speaker(self, query: str, scored: list[Scored], namespace: str, config: RankingConfig,
                 notes: list[str]) -> list[Scored]:
        """When the query names one speaker of the namespace, what they said ranks first among the
        ``speaker_top`` best (conversation.boost_speaker)."""
        speaker = named_speaker(query, sorted(self._storage.speakers(namespace)))
        if speaker is None:
            return scored
        top = [s.item_id for s in scored[:config.speaker_top] if s.kind == "event"]
        roles = {i: e.role for i, e in self._storage.get_observations(top).items()}
        notes.append(f"speaker: the query names {speaker}; what {speaker} said ranks first")
        return boost_speaker(scored, roles, speaker, config)

    def _named(self, intent: QueryIntent, namespace: str, claims: dict) -> tuple[str, ...]:
        """Entities the query names with high confidence: versions and identifiers the parser is sure
        of, and names that are stored subjects (among the loaded claims, else asked of the store)."""
        loaded = {c.subject.casefold() for c in claims.values()}
        names = []
        for e in intent.entities:
            if e.kind == "role" or e.key.casefold() in SELF_SUBJECTS:
                continue
            # The store is asked last: a confident entity, or one among the loaded claims, needs no read.
            if e.confidence >= HIGH_CONFIDENCE or e.key.casefold() in loaded or (
                    e.kind in ("person", "subject") and bool(self._storage.subject_claims(namespace, e.key))):
                names.append(e.key)
        return tuple(dict.fromkeys(names))

    @staticmethod
    def _instants(intent: QueryIntent | None, query: str, now: datetime, clock_now: datetime,
                  explicit_valid: datetime | None, explicit_known: datetime | None,
                  notes: list[str]) -> tuple[datetime, datetime, str]:
        """The (valid_at, known_at) to filter at and the text to search: explicit ones win, then inferred,
        then the reference time ``now`` (valid) and the clock (known: what memory has learnt so far)."""
        if intent is None:
            return explicit_valid or now, explicit_known or clock_now, query
        valid_at, known_at = explicit_valid or now, explicit_known or clock_now
        if explicit_valid is None and intent.as_of and intent.valid_at is not None:
            # "as of <date>" asks for the state then, in valid time: what held or happened after it is hidden.
            valid_at = intent.valid_at
            notes.append(f"inferred valid_at={valid_at.isoformat()} from the query (as of)")
        if explicit_valid is None and intent.time_mode is TimeMode.AT and intent.valid_range is not None:
            # A soft filter: "5月15日" may be a value asked about, not a time; what held in the
            # period is visible too and ranks first, nothing is hidden.
            vr = intent.valid_range
            notes.append(f"inferred period [{vr.start and vr.start.isoformat()}, {vr.end and vr.end.isoformat()}) "
                         "from the query: what held in it ranks first")
        if explicit_known is None and intent.known_at is not None:
            known_at = min(intent.known_at, clock_now)
            notes.append(f"inferred known_at={known_at.isoformat()} from the query")
        if intent.time_mode is TimeMode.HISTORY and explicit_valid is None:
            notes.append("inferred history: values that held before now rank first")
        elif intent.time_mode is TimeMode.CURRENT:
            notes.append("inferred current: the newest of equally relevant memories ranks first")
        # 现在/之前/used to say which value, never what about: the full text searches the rest. A
        # date may be what is asked about ("谁生日5月15日？"): then the query is searched as written.
        if intent.time_mode in (TimeMode.CURRENT, TimeMode.HISTORY) and intent.cleaned_query.strip():
            return valid_at, known_at, intent.cleaned_query
        return valid_at, known_at, query

    def _first_visible(self, fused: list[Scored], k: int, valid_at: datetime, known_at: datetime,
                       also: tuple[datetime | None, datetime | None] | None = None) -> list[Scored]:
        """The first ``k`` fused items visible at (valid_at, known_at), in fused order.

        Visibility is asked of the best items first, in growing slices, since most of the
        fused pool is never shown; the result is the same as filtering the whole pool.
        """
        chosen: list[Scored] = []
        start, step = 0, 2 * k
        while len(chosen) < k and start < len(fused):
            part = fused[start:start + step]
            keep = self._storage.visible([f.item_id for f in part], valid_at, known_at)
            if also is not None:
                keep |= self._held_in([f.item_id for f in part if f.kind == "claim" and f.item_id not in keep],
                                      also, known_at)
            chosen += [f for f in part if f.item_id in keep]
            start += step
            step *= 2
        return chosen[:k]

    def _held_in(self, claim_ids: Sequence[str], period: tuple[datetime | None, datetime | None],
                 known_at: datetime) -> set[str]:
        """Claims that, as known at ``known_at``, held at some time in ``[start, end)`` (None: open)."""
        start, end = period
        out = set()
        for cid, c in self._storage.get_claims(claim_ids).items():
            if c.status.value in ("forgotten", "retracted"):
                continue
            rows = [v for v in c.versions
                    if v.recorded_from <= known_at and (v.recorded_to is None or v.recorded_to > known_at)]
            if any((end is None or v.valid_from < end) and (start is None or v.valid_to is None or v.valid_to > start)
                   for v in rows):
                out.add(cid)
        return out

    def _items(self, chosen: Sequence[Scored], claims: dict, events: dict, valid_at: datetime,
               known_at: datetime) -> list[RecallItem]:
        folded_ids = [f for s in chosen if s.kind == "claim" for f in s.folded]
        folded_claims = self._storage.get_claims(folded_ids) if folded_ids else {}
        items = []
        for s in chosen:
            item_id, score, ranks = s.item_id, s.score, dict(s.ranks)
            if item_id in claims:
                c = claims[item_id]
                row = row_at(c, valid_at, known_at) or c.versions[-1]
                items.append(RecallItem(
                    id=item_id, kind="claim", text=render_claim(c.subject, c.predicate, c.value, c.qualifiers, c.polarity),
                    score=score, ranks=ranks, subject=c.subject, predicate=c.predicate, folded=s.folded,
                    evidence=tuple(dict.fromkeys(c.evidence + tuple(
                        e for f in s.folded if f in folded_claims for e in folded_claims[f].evidence))),
                    value=c.value, qualifiers=c.qualifiers, polarity=c.polarity, status=c.status.value, archived=c.archived,
                    valid_from=row.valid_from, valid_to=row.valid_to, recorded_from=row.recorded_from,
                    recorded_to=row.recorded_to,
                ))
            elif item_id in events:
                e = events[item_id]
                items.append(RecallItem(
                    id=item_id, kind="event", text=e.text, score=score, ranks=ranks, evidence=(item_id, *s.folded),
                    folded=s.folded,
                    occurred_at=e.occurred_at, recorded_from=e.recorded_at, session_id=e.session_id, role=e.role,
                ))
        return items


def _features(claims: dict, events: dict, valid_at: datetime, known_at: datetime) -> dict[str, Features]:
    """What the final score reads of each loaded item: its time, importance, feedback and fold key."""
    out: dict[str, Features] = {}
    for cid, c in claims.items():
        held = row_at(c, valid_at, known_at)
        row = held or c.versions[-1]
        # Same subject, predicate, value, coordinates and qualifiers: one fact said twice. Coordinates
        # tell apart facts of one slot family (the version of jieba vs of apsw).
        parts = (c.subject, c.predicate, c.value, *(f"{k}={v}" for k, v in c.coordinates + c.qualifiers))
        key = "claim\x00" + "\x00".join(fold_key_of_text(x) for x in parts)
        out[cid] = Features(when=row.valid_from, importance=c.importance, helpful=c.helpful, unhelpful=c.unhelpful,
                            fold_key=key + ("" if c.polarity else "\x00not"), past=held is None,
                            until=row.valid_to, point=False)
    for eid, e in events.items():
        out[eid] = Features(when=e.occurred_at, helpful=e.helpful, unhelpful=e.unhelpful,
                            fold_key="event\x00" + fold_key_of_text(e.text) if e.text else None)
    return out


def render_claim(subject: str, predicate: str, value: str, qualifiers: tuple[tuple[str, str], ...],
                 polarity: bool = True) -> str:
    """One-line human rendering of a claim: ``subject · predicate · value (qualifiers)``."""
    text = f"{subject} · {predicate} · {'NOT ' if not polarity else ''}{value}"
    if qualifiers:
        text += " (" + ", ".join(f"{k}={v}" for k, v in qualifiers) + ")"
    return text


class _Pending:
    """Work submitted to an executor, or done in the calling thread at :meth:`result` when there is none.

    As a context manager it never lets the work outlive the block: leaving early (an error in the
    block) waits for it and drops its outcome.
    """

    def __init__(self, work: Callable[[], list[Candidate] | None], executor: Executor | None) -> None:
        self._work = work
        self._future: Future | None = executor.submit(work) if executor is not None else None

    def result(self) -> list[Candidate] | None:
        """The work's value; its error is raised here."""
        return self._work() if self._future is None else self._future.result()

    def __enter__(self) -> _Pending:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._future is not None and not self._future.cancel():
            self._future.exception()
