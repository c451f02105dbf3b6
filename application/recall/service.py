"""Recall: a declared sequence of stages over one frozen :class:`RecallQuery` (ADR 0031, docs/recall.md).

:data:`STAGES` is the pipeline (ADR 0018): read the query (:mod:`hlmem.application.recall.query`),
generate candidates, fuse and floor them (:mod:`hlmem.application.ranking`), pass relevance on
within conversations (:mod:`hlmem.application.conversation`), keep what was visible at the
(valid, known) instant asked about, add the final signals, fold duplicates, constrain on named
entities, build the items and rerank them. Each stage reads the store through one per-recall
:class:`~hlmem.application.recall.reads.RecallReads`, which reads each claim and observation once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor
from datetime import datetime


from hlmem.application.packet import FORMAT_VERSION, Packet, PacketItem, build_packet
from hlmem.application.ports import Candidate, Clock, Embedder, PacketLog, ProfileIntent, RecallStore, Reranker
from hlmem.application.entity_constraint import constrain
from hlmem.application.experience_recall import ExperienceRecall, check_intent, merge_items
from hlmem.application.ranking import RankingConfig, Scored, final_scores, fold, fuse
from hlmem.application.recall.conversation_stages import neighbours, sessions, speaker, spread
from hlmem.application.recall.features import features_of, held_in
from hlmem.application.recall.derived_items import lead_with, profile_items, served
from hlmem.application.recall.floor import floored
from hlmem.application.recall.items import RecallItem, RecallResult, build_items, render_claim
from hlmem.application.recall.parts import bridge_heads, interleave, part_notes
from hlmem.application.recall.profile_question import read_profile
from hlmem.application.recall.query import MAX_K, MAX_QUERY_CHARS, RecallQuery, read_query
from hlmem.application.recall.reads import Pending, RecallReads
from hlmem.application.recall.relation_hops import RelationHops, follow
from hlmem.application.recall.run import Run
from hlmem.application.recall.slots import slot_stage
from hlmem.application.recall.subject_order import query_names, said_by, subject_order
from hlmem.application.reranking import DEFAULT_TOP_N, rerank_items
from hlmem.domain.query_parts import question_parts
from hlmem.domain.query_understanding import HIGH_CONFIDENCE, QueryIntent
from hlmem.domain.derived import KINDS as DERIVED_KINDS
from hlmem.domain.state import SELF_SUBJECTS, ClaimState

__all__ = ["MAX_K", "MAX_QUERY_CHARS", "STAGES", "RecallItem", "RecallQuery", "RecallResult", "RecallService",
           "render_claim"]


class RecallService:
    """Answers "what do we remember about …" as of any (valid, known) instant."""

    def __init__(self, storage: RecallStore, clock: Clock, embedder: Embedder | None = None,
                 ranking: RankingConfig | None = None, *, reranker: Reranker | None = None,
                 rerank_top_n: int | None = None, executor: Executor | None = None,
                 experience: ExperienceRecall | None = None, packets: PacketLog | None = None,
                 relations: RelationHops | None = None, profile_intent: ProfileIntent | None = None) -> None:
        """:param executor: where a recall embeds its query and scans vectors while the calling thread
            reads the query and searches full text (None: one after the other, in the calling
            thread). The storage's prepared vector search must then run beside its other calls,
            as the port promises (ADR 0022).
        :param experience: finds active procedures and policies for how-to questions (docs/experience.md).
        :param packets: counts each packet served and the history it stood in for (ADR 0061).
        :param relations: recall through accepted edges ("where does my sister work?"; ADR 0085),
            given only when relations are enabled.
        :param profile_intent: reads whether a question asks for a profile beyond the cue rules
            (ADR 0090); None: the cue rules and the structural reading only."""
        self._storage = storage
        self._executor = executor
        self._clock = clock
        self._embedder = embedder
        self._ranking = ranking or RankingConfig()
        self._reranker = reranker
        self._rerank_top_n = rerank_top_n or DEFAULT_TOP_N
        self._experience = experience
        self._packets = packets
        self._relations = relations
        self._profile_intent = profile_intent

    def recall(self, query: str, *, k: int | None = None, namespace: str = "default", valid_at: datetime | None = None,
               known_at: datetime | None = None, kinds: Sequence[str] = ("claim", "event"),
               include_archived: bool = False, understand_query: bool = True,
               entity_constraint: str = "enforce", budget: int | None = None,
               now: datetime | None = None, session: str | None = None, intent: str | None = None,
               packet_version: int = FORMAT_VERSION) -> RecallResult:
        """Return up to ``k`` items relevant to ``query`` that held at ``valid_at`` as known at ``known_at``.

        :param k: how many items at most; None: 10, or with a ``budget`` one item per 40 tokens of it
            (80 for a v1 packet; 10–200), so that the packet is filled by its budget, not cut short by ``k``.
        :param packet_version: the format of the packet built with a ``budget`` (2, or 1: docs/packet.md);
            the packet counted as served (``packets``) is the one returned.

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
        :param session: keep only this session's events (claims have no session and stay); the
            ``k`` best are taken after this filter.
        :param intent: ``auto`` (None): a how-to question ("how do I …", 怎么/如何…) also returns the
            matching active procedures and policies first; ``procedure``: look for them whatever
            the wording; ``facts``: never (docs/experience.md).
        :raises ValidationError: for an empty or over-long query, a bad ``k`` or namespace, naive times.
        """
        mode = check_intent(intent)
        args = dict(k=k, namespace=namespace, valid_at=valid_at, known_at=known_at, kinds=kinds,
                    include_archived=include_archived, understand_query=understand_query,
                    entity_constraint=entity_constraint, budget=budget, now=now, clock=self._clock,
                    config=self._ranking, packet_version=packet_version)
        q = read_query(query, **args)  # validates the whole query, whatever its parts
        parts = question_parts(query) if understand_query and self._ranking.question_parts else (query.strip(),)
        if parts == (query.strip(),):
            runs = [self._run(q)]
        else:
            runs = [self._run(read_query(part, **args)) for part in parts]
            if len(runs) == 1:  # one question, after a correction: it is what the result reads
                q = runs[0].query
        notes = part_notes(parts, query, (run.notes for run in runs))
        lists = []
        for part, run in zip(parts, runs):
            hops = self._bridge(part, run, args, notes) if understand_query else []
            found = (interleave([run.items, interleave([h.items for h in hops], len(run.items))], len(run.items))
                     if hops else run.items)
            if self._relations is not None and understand_query:  # recall through accepted edges (ADR 0085)
                found = follow(self._relations, part, q.namespace, found, q.k,
                               lambda asked: self._run(read_query(asked, **args)).items, notes)
            lists.append(found)
        if session is not None:
            lists = [[i for i in items if i.kind != "event" or i.session_id == session] for items in lists]
        items = tuple(interleave(lists, q.k))
        if len(runs) > 1 and served(q):  # two asks in one ("小明住哪，还有别的关于他的也说说"): the whole question
            whole = Run(q, RecallReads(self._storage), notes)
            whole.items, whole.model = list(items), runs[0].model
            self._derived(whole)
            items = tuple(whole.items[:q.k])
        if self._experience is not None and mode != "facts":
            items = merge_items(self._experience.items(query, namespace=q.namespace, intent=mode, k=q.k), items, q.k)
        # After the read: telemetry the lifecycle decays by (buffered by the adapter, never blocking).
        self._storage.record_access([i.id for i in items if i.kind == "claim"], q.clock_now)
        packet = None
        if q.budget is not None:
            current = not q.history and q.window is None  # a current-time packet: what no longer holds stays out
            packet = build_packet([PacketItem.from_recall(i) for i in items], budget_tokens=q.budget, now=q.now,
                                  leave_out_history=current, version=packet_version)
            if packet.history:
                notes.append(f"packet: {len(packet.history)} event(s) left out as history "
                             "(every value they record no longer holds)")
            self._served(packet, items, q.clock_now)
        return RecallResult(items, q.valid_at, q.known_at, tuple(notes), q.intent, packet)

    def _served(self, packet: Packet, items: Sequence[RecallItem], at: datetime) -> None:
        """Report a packet served to the packet log, with the events behind what it shows (ADR 0061)."""
        if self._packets is None or not packet.included:
            return
        shown = set(packet.included)
        behind = [e for i in items if i.id in shown and i.kind not in DERIVED_KINDS
                  for e in ((i.id, *i.evidence) if i.kind == "event" else i.evidence)]
        self._packets.record_packet(at, packet.tokens, list(dict.fromkeys(behind)))

    def _bridge(self, question: str, run: Run, args: dict, notes: list[str]) -> list[Run]:
        """For a question about "the one whose …" (:func:`~hlmem.domain.query_parts.referent`), a
        recall per head of the ``bridge_top`` best items that the question does not name, asking
        what the question asks of it: 那个电话是132…的人，他在哪工作？ finds "我表弟的电话是132…",
        then asks "表弟 他在哪工作？" (ADR 0057)."""
        top = run.query.config.bridge_top
        found = bridge_heads(question, (i.text for i in run.items[:top * 2]), top)
        if found is None:
            return []
        condition, asked, heads = found
        notes.append(f"bridge: the question asks of {condition!r}; followed {', '.join(heads)}")
        return [self._run(read_query(f"{head} {asked}", **args)) for head in heads]

    def _run(self, q: RecallQuery) -> Run:
        """Every stage of :data:`STAGES` over one read query."""
        run = Run(q, RecallReads(self._storage), list(q.notes))
        for stage in STAGES:
            stage(self, run)
        return run

    # --- the stages, in the order of STAGES -------------------------------------------------------

    def _candidates(self, run: Run) -> None:
        """Full text, conversational context, vectors and (asked for) archived claims, ``pool`` each."""
        q, config = run.query, run.query.config
        run.model = self._storage.vector_model()
        search = self._vector_search(q.namespace, q.pool, run.model, run.notes)  # loads new vectors first
        embedder = self._embedder

        def vector_side() -> list[Candidate] | None:
            if search is None or embedder is None:
                return None
            return search(embedder.embed_queries([q.text])[0].astype("<f4").tobytes())

        # With an executor the query's embedding and vector scan run there while this thread
        # searches full text: the scan (numba or numpy) and SQLite both work without the GIL, so
        # the two overlap (ADR 0022). The scan starts once this thread first waits on SQLite.
        rankings = run.rankings
        with Pending(vector_side, self._executor if search is not None else None) as pending:
            rankings["text"] = self._storage.text_candidates(q.namespace, q.search_text, q.pool)
            if config.context_weight > 0 and q.events:
                rankings["context"] = self._storage.context_candidates(q.namespace, q.search_text, q.pool)
            vector = pending.result()
        if vector is not None:
            rankings["vector"] = vector
        if q.include_archived and "claim" in q.kinds:
            rankings["archived"] = self._storage.archived_candidates(q.namespace, q.text, q.pool)

    def _fuse(self, run: Run) -> None:
        """Fuse the rankings into one relevance and drop what is below the model's similarity floor
        (but the slot values a question about someone's facts or a time still gets: recall/floor.py)."""
        q, config, rankings = run.query, run.query.config, run.rankings
        model = run.model[0] if run.model is not None and "vector" in rankings else None
        floor = config.floor_for(model)
        fused = [s for s in fuse(rankings, config, floor=floor, pool=q.pool) if s.kind in q.kinds]
        run.scored, run.below = floored(self._storage, run.reads, q, fused, rankings, floor, model, run.notes)

    def _neighbours(self, run: Run) -> None:
        neighbours(run, self._storage)

    def _speaker(self, run: Run) -> None:
        speaker(run, self._storage)

    def _sessions(self, run: Run) -> None:
        sessions(run)

    def _visible(self, run: Run) -> None:
        """The first ``shown`` items visible at (valid_at, known_at), in order, with their claims and events."""
        q = run.query
        run.scored = self._first_visible(run.scored, min(len(run.scored), q.shown), q.valid_at, q.known_at,
                                         q.also_visible, run.reads)
        if not run.scored and run.below:  # what passed the floor happened after valid_at, say
            run.notes.append(f"relevance floor: what reached it is not visible at {q.valid_at.isoformat()}")
        run.claims = run.reads.claims([s.item_id for s in run.scored if s.kind == "claim"])
        run.events = run.reads.observations([s.item_id for s in run.scored if s.kind == "event"])

    def _score(self, run: Run) -> None:
        """Final signals (recency, importance, usefulness, history, the period asked about), then folding."""
        q = run.query
        run.features = features_of(run.claims, run.events, q.valid_at, q.known_at)
        ranked = final_scores(run.scored, run.features, q.config, current=q.current, history=q.history,
                              window=q.window)
        run.scored = fold(ranked, run.features) if q.config.fold_duplicates else ranked

    def _slots(self, run: Run) -> None:
        """Between the values of one slot, time and supersede state decide (recall/slots.py, ADR 0060)."""
        order = slot_stage(self._storage, run.reads, run.query, run.scored, run.claims, run.notes)
        if order is not None:
            run.scored, run.history = order.scored, order.history
            run.claims.update(order.claims)

    def _subject(self, run: Run) -> None:
        """The asked subject's values before the same kind of value about someone else (subject_order.py, ADR 0089)."""
        q = run.query
        if q.intent is None or not q.config.asked_subject:
            return
        order = subject_order(q.text, run.scored, run.claims, query_names(q), run.notes, said_by(run.reads))
        if order is not None:
            run.scored = order

    def _spread(self, run: Run) -> None:
        spread(run)

    def _constrain(self, run: Run) -> None:
        """Items about an entity the query names with confidence rank first (entity_constraint.py)."""
        q, claims = run.query, run.claims
        if q.intent is None or q.entity_constraint == "off":
            return
        names = self._named(q.intent, q.namespace, claims)
        if not names:
            return
        texts = {**{i: render_claim(c.subject, c.predicate, c.value, c.qualifiers, c.polarity)
                    for i, c in claims.items()}, **{i: e.text for i, e in run.events.items()}}
        folded_names = {n.casefold() for n in names}
        others = sorted({c.subject for c in claims.values() if c.subject.casefold() not in SELF_SUBJECTS
                         and c.subject.casefold() not in folded_names})
        run.scored, intrusions = constrain(run.scored, texts, names, others, q.entity_constraint)
        verb = "left out" if q.entity_constraint == "enforce" else "seen"
        run.notes.append(f"entity constraint ({q.entity_constraint}) on {', '.join(names)}: "
                         f"{intrusions} item(s) about other entities {verb}")

    def _build(self, run: Run) -> None:
        """The items shown (and, with a reranker, the ones it may reorder)."""
        q = run.query
        chosen = run.scored[:max(q.k, self._rerank_top_n) if self._reranker else q.k]
        run.items = build_items(chosen, run.claims, run.events, q.valid_at, q.known_at, history=run.history)

    def _derived(self, run: Run) -> None:
        """A profile question's mental model and summary first, with their sources (derived_items.py)."""
        embedder, q = self._embedder, run.query
        same = embedder is not None and run.model == (embedder.model_id, embedder.dim)
        vector = (lambda: embedder.embed_queries([q.text])[0].astype("<f4").tobytes()) if same else None
        ask = read_profile(q.text, self._storage, q.namespace, self._profile_intent, run.notes) if served(q) else None
        found = profile_items(self._storage, q, vector, ask, notes=run.notes,
                              score=max((i.score for i in run.items), default=1.0))
        run.items = lead_with(found, run.items)

    def _rerank(self, run: Run) -> None:
        """The reranker's order of the best items; on its failure, ours, with a note."""
        if self._reranker is None or not run.items:
            return
        outcome = rerank_items(run.query.text, run.items, self._reranker, top_n=self._rerank_top_n)
        run.items = list(outcome.items)
        if outcome.note:
            run.notes.append(outcome.note)

    # --- the reads the stages share ---------------------------------------------------------------

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

    def _named(self, intent: QueryIntent, namespace: str, claims: Mapping[str, ClaimState]) -> tuple[str, ...]:
        """Entities the query names with high confidence: versions and identifiers the parser is sure
        of, and names that are stored subjects (among the loaded claims, else asked of the store, in
        one read)."""
        loaded = {c.subject.casefold() for c in claims.values()}
        kept = [e for e in intent.entities if e.kind != "role" and e.key.casefold() not in SELF_SUBJECTS]
        # The store is asked last: a confident entity, or one among the loaded claims, needs no read.
        unsure = [e.key for e in kept if e.confidence < HIGH_CONFIDENCE and e.key.casefold() not in loaded
                  and e.kind in ("person", "subject")]
        stored = self._storage.stored_subjects(namespace, list(dict.fromkeys(unsure))) if unsure else set()
        names = [e.key for e in kept if e.confidence >= HIGH_CONFIDENCE or e.key.casefold() in loaded
                 or (e.kind in ("person", "subject") and e.key in stored)]
        return tuple(dict.fromkeys(names))

    def _first_visible(self, fused: list[Scored], k: int, valid_at: datetime, known_at: datetime,
                       also: tuple[datetime | None, datetime | None] | None = None,
                       reads: RecallReads | None = None) -> list[Scored]:
        """The first ``k`` fused items visible at (valid_at, known_at), in fused order.

        Visibility is asked of the best items first, in growing slices, since most of the
        fused pool is never shown; the result is the same as filtering the whole pool. With
        ``also``, a claim not visible then is kept when it held in that period; the slice's claims
        are read once for that and for the stages after.
        """
        reads = reads or RecallReads(self._storage)
        chosen: list[Scored] = []
        start, step = 0, 2 * k
        while len(chosen) < k and start < len(fused):
            part = fused[start:start + step]
            keep = self._storage.visible([f.item_id for f in part], valid_at, known_at)
            if also is not None:
                claims = reads.claims([f.item_id for f in part if f.kind == "claim"])
                keep |= held_in({i: c for i, c in claims.items() if i not in keep}, also, known_at)
            chosen += [f for f in part if f.item_id in keep]
            start += step
            step *= 2
        return chosen[:k]


#: The stages of a recall, in order: each takes the run and leaves its part in it (ADR 0031).
STAGES: tuple[Callable[[RecallService, Run], None], ...] = (
    RecallService._candidates, RecallService._fuse, RecallService._neighbours, RecallService._speaker,
    RecallService._sessions, RecallService._visible, RecallService._score, RecallService._slots,
    RecallService._subject, RecallService._spread,
    RecallService._constrain, RecallService._build, RecallService._rerank, RecallService._derived,
)
