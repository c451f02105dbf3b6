"""The write pipeline: a window of observations → provenance → extraction → admission → dedup → claims.

Deterministic gates run first and cost nothing; the extractor (rules, or an LLM when configured)
only runs for events provenance admits, so a blocked event costs no tokens. Everything one
window decides — claims, corroborations, rejections with reason codes, conflicts — is appended
in one transaction together with the jobs' completion: a retried window never writes twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from attrs import evolve, frozen

from hlmem.application.indexing import claim_text, passage_vectors, retrying_for_vectors
from hlmem.application.ports import Clock, Embedder, IdGenerator, IndexEntry, Job, JobQueue, WriteStore
from hlmem.application.revival import revival_index, revived_ids
from hlmem.domain.admission import admit_candidate
from hlmem.domain.candidates import CandidateClaim, GateDecision, SourceEvent, Verdict
from hlmem.domain.commands import AssertClaim, RecordObservation, validate_claim
from hlmem.domain.decisions import decide_assert
from hlmem.domain.dedup import DedupOutcome, classify
from hlmem.domain.errors import ValidationError
from hlmem.domain.events import Cardinality, ConflictOpened, ExtractionRecorded
from hlmem.domain.evidence import evidence_problems
from hlmem.domain.queries import current
from hlmem.domain.relation_decisions import RelationCandidate
from hlmem.domain.relation_mentions import RelationMention, check_mention
from hlmem.domain.provenance import ProvenanceMode, admit_event, restrict
from hlmem.domain.slots import SlotRegistry, normalize_key
from hlmem.domain.state import ClaimState, ObservationState, slot_key

if TYPE_CHECKING:
    from hlmem.application.vector_backlog import VectorBacklog

EXTRACT = "extract"


class CommandGuard(Protocol):
    """Re-ingest blocking as the pipeline asks it under the write lock (implemented by
    :class:`hlmem.application.reingest.ReingestGuard`; declared here so the two modules form no cycle)."""

    def fingerprints(self, commands: Sequence[RecordObservation | AssertClaim]) -> list[str]: ...

    def blocked(self, commands: Sequence[RecordObservation | AssertClaim], *,
                fingerprints: Sequence[str] | None = None) -> list[bool]: ...


class DedupAuditor(Protocol):
    """Decides the gray zone of dedup: are two near-identical claims the same? (off by default)"""

    def same_claim(self, new: str, existing: str, *, job_id: str | None = None) -> bool: ...


class Extractor(Protocol):
    """Proposes candidate claims for a window of source events (one model call at most)."""

    @property
    def name(self) -> str: ...

    def extract(self, events: Sequence[SourceEvent], *, job_id: str | None = None) -> list[CandidateClaim]: ...


class RelationReader(Protocol):
    """An extractor whose one call also names the relations the events state (the LLM's, ADR 0093)."""

    def extract_relations(self, events: Sequence[SourceEvent], *,
                          job_id: str | None = None) -> tuple[list[CandidateClaim], list[RelationMention]]: ...


class RelationSink(Protocol):
    """Where checked relation candidates go: the review queue, in the window's transaction
    (:meth:`hlmem.application.relation_guard.RelationGuard.propose_candidates`)."""

    def propose_candidates(self, candidates: Sequence[RelationCandidate], *, namespace: str, at: datetime) -> int: ...


@frozen
class WindowResult:
    """What one window produced."""

    extraction_id: str
    claims: tuple[str, ...]
    rejected: int
    conflicts: tuple[str, ...]
    blocked_events: tuple[str, ...]


def source_of(obs: ObservationState) -> SourceEvent:
    """The view of an observation the gates and extractors may read."""
    return SourceEvent(event_id=obs.event_id, text=obs.text, role=obs.role, session_id=obs.session_id,
                       origin_class=obs.origin_class.value, session_kind=obs.session_kind.value,
                       occurred_at=obs.occurred_at)


def _current(claims: Sequence[ClaimState], now: datetime) -> list[ClaimState]:
    return current(claims, now)


class ExtractionPipeline:
    """Runs windows of extraction jobs through the gates and writes their outcome atomically."""

    def __init__(self, storage: WriteStore, queue: JobQueue, clock: Clock, ids: IdGenerator, registry: SlotRegistry,
                 extractor: Extractor, embedder: Embedder | None = None,
                 provenance_mode: ProvenanceMode = ProvenanceMode.ENFORCE, auditor: DedupAuditor | None = None,
                 *, guard: CommandGuard | None = None, backlog: VectorBacklog | None = None,
                 relations: tuple[RelationReader, RelationSink] | None = None) -> None:
        """:param guard: re-ingest blocking, asked again under the write lock (the extractor asked
            first, :class:`~hlmem.application.reingest.GatedExtractor`); None: not asked again.
        :param backlog: the claims' vectors are owed to the worker, not embedded (ADR 0080).
        :param relations: when relations are enabled and an LLM extracts: the extractor's call also
            names relations (the reader, used instead of ``extractor.extract``), and those the text
            bears out are proposed for review with the window's claims (the sink; ADR 0093)."""
        self._storage = storage
        self._queue = queue
        self._clock = clock
        self._ids = ids
        self._registry = registry
        self._extractor = extractor
        self._embedder = embedder
        self._mode = provenance_mode
        self._auditor = auditor
        self._guard = guard
        self._backlog = backlog
        self._relations = relations
        self._audited: set[tuple[int, str]] = set()

    # -- gates --------------------------------------------------------------------------------------

    def _candidates(self, sources: Sequence[SourceEvent],
                    job_id: str) -> tuple[list[CandidateClaim], dict, list[str], list[RelationMention]]:
        verdicts = {s.event_id: admit_event(s, self._mode) for s in sources}
        admitted = [s for s in sources if verdicts[s.event_id].verdict is not Verdict.REJECT]
        blocked = [s.event_id for s in sources if verdicts[s.event_id].verdict is Verdict.REJECT]
        # A window whose every event provenance blocks costs no extraction (no LLM tokens).
        mentions: list[RelationMention] = []
        if not admitted:
            candidates = []
        elif self._relations is not None:
            candidates, mentions = self._relations[0].extract_relations(admitted, job_id=job_id)
        else:
            candidates = self._extractor.extract(admitted, job_id=job_id)
        restricted = {eid for eid, v in verdicts.items() if v.verdict is Verdict.RESTRICT}
        by_id = {s.event_id: s for s in sources}
        out = []
        for cand in candidates:
            if any(e in restricted for e in cand.evidence) or not cand.evidence:
                anchor = min((by_id[e].occurred_at for e in cand.evidence if e in by_id), default=None)
                cand = restrict(cand, anchor=anchor)
            out.append(cand)
        return out, verdicts, blocked, mentions

    def _command(self, cand: CandidateClaim, sources: Mapping[str, SourceEvent], namespace: str) -> AssertClaim:
        first = min((sources[e].occurred_at for e in cand.evidence if e in sources), default=None)
        source = ("inference:" if cand.inference else "extracted:") + cand.extractor + (f"#{cand.rule}" if cand.rule else "")
        return validate_claim(AssertClaim(
            subject=cand.subject, predicate=cand.predicate, value=cand.value, namespace=namespace,
            qualifiers=cand.qualifiers, coordinates=cand.coordinates, polarity=cand.polarity,
            importance=cand.importance, scope=cand.scope, cardinality=cand.cardinality,
            valid_from=cand.valid_from or first, valid_to=cand.valid_to, evidence=cand.evidence, source=source,
            change=cand.change,
        ), self._registry)

    # -- one window ---------------------------------------------------------------------------------

    def process(self, jobs: Sequence[Job], *, owner: str) -> WindowResult:
        """Extract, gate and write one window of jobs (all of one namespace and session)."""
        namespace = jobs[0].namespace
        event_ids = [str(j.payload["event_id"]) for j in jobs]
        observations = self._storage.get_observations(event_ids)
        sources = [source_of(observations[e]) for e in event_ids if e in observations and not observations[e].forgotten]
        by_id = {s.event_id: s for s in sources}
        candidates, verdicts, blocked, mentions = self._candidates(sources, jobs[0].job_id)
        edges, refused_edges = checked_mentions(mentions, by_id, verdicts)

        rejected: list[tuple[str, tuple[str, ...]]] = list(refused_edges)
        commands: list[tuple[CandidateClaim, AssertClaim]] = []
        for cand in candidates:
            gate = admit_candidate(cand, by_id, mode=self._mode)
            if gate.verdict is Verdict.REJECT:
                rejected.append((f"{cand.subject} · {cand.predicate}", gate.reasons))
                continue
            try:
                commands.append((cand, self._command(cand, by_id, namespace)))
            except (ValidationError, ExceptionGroup):
                rejected.append((f"{cand.subject} · {cand.predicate}", ("admission.invalid_candidate",)))
        texts = [claim_text(c.subject, c.predicate, c.value, c.qualifiers, c.coordinates, c.polarity, self._registry)
                 for _, c in commands]
        vectors = (passage_vectors(self._embedder, self._storage, texts) if self._backlog is None
                   else self._backlog.bind(texts))
        self._audited = self._audit(commands, jobs[0].job_id)
        fingerprints = self._guard.fingerprints([c for _, c in commands]) if self._guard is not None else None

        def write(vectors: dict[str, bytes], last: bool) -> tuple[str, list[str], list[str], int]:
            # Under the write lock: only what needs the store as it is now (ADR 0064).
            with self._storage.transaction():
                now = self._clock.now()
                refused = list(rejected)  # a try that asks for more vectors leaves the outer list as it was
                live = self._with_live_evidence(self._not_forgotten(commands, fingerprints), refused)
                claims, conflicts = self._write(live, vectors, now, embed=last)
                if edges and self._relations is not None:
                    self._relations[1].propose_candidates(self._edges_with_live_evidence(edges, refused),
                                                          namespace=namespace, at=now)
                extraction_id = self._ids.new("ex")
                record = ExtractionRecorded(
                    event_id=self._ids.new("lg"), stream_id=extraction_id, version=1, recorded_at=now,
                    namespace=namespace, source_events=tuple(event_ids), extractor=self._extractor.name,
                    provenance=tuple((eid, v.verdict.value, v.reasons) for eid, v in verdicts.items()),
                    rejected=tuple(refused), claims=tuple(claims), conflicts=tuple(conflicts),
                )
                self._storage.append([record])
                self._queue.complete([j.job_id for j in jobs], owner=owner, now=now)
            return extraction_id, claims, conflicts, len(refused)

        extraction_id, claims, conflicts, n_rejected = retrying_for_vectors(write, vectors, self._embedder,
                                                                             self._storage)
        return WindowResult(extraction_id, tuple(claims), n_rejected, tuple(conflicts), tuple(blocked))

    def _not_forgotten(self, commands, fingerprints: list[str] | None):
        """The commands whose content was not forgotten, asked of the tombstone ledger inside the
        write transaction: the extractor's own check (``GatedExtractor``) ran before a forget that
        may have committed since. Dropped ones are left out as the extractor leaves them out."""
        if self._guard is None or fingerprints is None or not commands:
            return commands
        blocked = self._guard.blocked([c for _, c in commands], fingerprints=fingerprints)
        return [pair for pair, b in zip(commands, blocked, strict=True) if not b]

    def _with_live_evidence(self, commands, rejected: list[tuple[str, tuple[str, ...]]]):
        """The commands whose evidence still exists and is not forgotten, read inside the write
        transaction (a forget may have committed since the window was read); the others are
        rejected with the evidence reason codes (docs/reason-codes.md)."""
        wanted = list(dict.fromkeys(e for _, cmd in commands for e in cmd.evidence))
        cited = self._storage.get_observations(wanted) if wanted else {}
        kept = []
        for cand, cmd in commands:
            problems = evidence_problems(cmd.evidence, cited)
            if problems:
                rejected.append((f"{cand.subject} · {cand.predicate}", tuple(dict.fromkeys(p.reason for p in problems))))
            else:
                kept.append((cand, cmd))
        return kept

    def _edges_with_live_evidence(self, edges: Sequence[RelationCandidate],
                                  rejected: list[tuple[str, tuple[str, ...]]]) -> list[RelationCandidate]:
        """The relation candidates whose events still exist and are not forgotten (as for claims)."""
        cited = self._storage.get_observations(list(dict.fromkeys(e for c in edges for e in c.evidence)))
        kept = []
        for edge in edges:
            problems = evidence_problems(edge.evidence, cited)
            if problems:
                rejected.append((edge_label(edge.source.name, edge.relation, edge.target.name),
                                 tuple(dict.fromkeys(p.reason for p in problems))))
            else:
                kept.append(edge)
        return kept

    def _write(self, commands, vectors, now, *, embed: bool) -> tuple[list[str], list[str]]:
        claims: list[str] = []
        conflicts: list[str] = []
        for cand, cmd in commands:
            key = slot_key(cmd.namespace, cmd.subject, cmd.predicate, cmd.coordinates)
            slot = self._storage.slot_claims(key)
            conflict = self._conflict_reason(cand, cmd, slot, now)
            if conflict:
                conflicts.append(self._open_conflict(cmd, key, slot, conflict, now))
                continue
            cmd = self._dedup(cand, cmd, slot, now)
            decision = decide_assert(cmd, slot, registry=self._registry, new_id=self._ids.new, recorded_at=now)
            index = {}
            for event in decision.events:
                if event.stream_id == decision.claim_id and event.version == 1:
                    text = claim_text(cmd.subject, cmd.predicate, cmd.value, cmd.qualifiers, cmd.coordinates,
                                      cmd.polarity, self._registry)
                    index[event.stream_id] = IndexEntry(text, vectors.get(text))
            if revived := revived_ids(decision.events):
                # Corroboration revived an archived claim: it returns to the index (ADR 0015). Its
                # vector was not embedded before the lock: NeedVectors rolls back and tries again.
                index.update(revival_index([c for c in slot if c.claim_id in revived], self._registry,
                                           self._embedder, self._storage, vectors, embed=embed))
            self._storage.append(decision.events, index)
            if self._backlog is not None:
                self._backlog.owe(decision.events, index, now)
            if decision.outcome == "corroborated" and decision.claim_id:
                self._storage.record_access([decision.claim_id], now)  # a repeated fact is used again
            if decision.claim_id:
                claims.append(decision.claim_id)
        return claims, conflicts

    def _audit(self, commands, job_id: str) -> set[tuple[int, str]]:
        """Ask the auditor about GRAY pairs, before the write transaction (a model call never holds
        the write lock). Returns ``(id(candidate), existing claim id)`` pairs it judged the same."""
        if self._auditor is None:
            return set()
        same: set[tuple[int, str]] = set()
        now = self._clock.now()
        for cand, cmd in commands:
            key = slot_key(cmd.namespace, cmd.subject, cmd.predicate, cmd.coordinates)
            for existing in _current(self._storage.slot_claims(key), now):
                if classify(cand, existing).outcome is DedupOutcome.GRAY and existing.polarity == cmd.polarity:
                    if self._auditor.same_claim(cmd.value, existing.value, job_id=job_id):
                        same.add((id(cand), existing.claim_id))
        return same

    def _dedup(self, cand: CandidateClaim, cmd: AssertClaim, slot: Sequence[ClaimState], now) -> AssertClaim:
        """An EQUAL candidate (or a GRAY one the auditor judged the same) takes the existing claim's
        exact wording, so the decision corroborates; GRAY without an audit keeps both."""
        for existing in _current(slot, now):
            verdict = classify(cand, existing)
            equal = verdict.outcome is DedupOutcome.EQUAL or (id(cand), existing.claim_id) in self._audited
            if equal and existing.polarity == cmd.polarity:
                return evolve(cmd, value=existing.value, qualifiers=existing.qualifiers)
        return cmd

    def _conflict_reason(self, cand: CandidateClaim, cmd: AssertClaim, slot: Sequence[ClaimState], now) -> str:
        """Why the rules cannot settle this candidate alone ("" when they can)."""
        cardinality = self._registry.cardinality(cmd.predicate, cmd.cardinality)
        if cardinality is Cardinality.MULTI:
            return ""
        for existing in _current(slot, now):
            same = normalize_key(existing.value) == normalize_key(cmd.value) and existing.polarity == cmd.polarity
            if same or (not existing.polarity and normalize_key(existing.value) != normalize_key(cmd.value)):
                continue  # "not Acme" then "Globex" in one message: no contradiction
            if cand.inference and not existing.source.startswith("inference:"):
                # Restricted provenance (a web page, another agent) never overrides what the user said.
                return "conflict.inference_vs_user_claim"
            if existing.recorded_at == now and existing.versions[0].valid_from == cmd.valid_from:
                # Two different values for one slot at one instant in one window: ask.
                return "conflict.same_window_contradiction"
        return ""

    def _open_conflict(self, cmd: AssertClaim, key: str, slot, reason: str, now) -> str:
        conflict_id = self._ids.new("cf")
        event = ConflictOpened(
            event_id=self._ids.new("lg"), stream_id=conflict_id, version=1, recorded_at=now, namespace=cmd.namespace,
            slot_key=key, existing=tuple(c.claim_id for c in _current(slot, now)), subject=cmd.subject,
            predicate=cmd.predicate, value=cmd.value, qualifiers=cmd.qualifiers, coordinates=cmd.coordinates,
            polarity=cmd.polarity, importance=cmd.importance, scope=cmd.scope,
            valid_from=cmd.valid_from or now, valid_to=cmd.valid_to, evidence=cmd.evidence, source=cmd.source,
            reason=reason,
        )
        self._storage.append([event])
        return conflict_id


def edge_label(source: str, relation: str, target: str) -> str:
    """How a refused relation is listed in its window's extraction record."""
    return f"relation · {source} —{relation}→ {target}"


def checked_mentions(mentions: Sequence[RelationMention], sources: Mapping[str, SourceEvent],
                     verdicts: Mapping[str, GateDecision]) -> tuple[list[RelationCandidate], list[tuple[str, tuple[str, ...]]]]:
    """The relation mentions the text bears out, as candidates, and the refused ones with their
    reason codes (:func:`hlmem.domain.relation_mentions.check_mention`); a mention read from an
    event provenance only restricts (a web page, a tool) is refused as ``relation.provenance``."""
    edges: list[RelationCandidate] = []
    refused: list[tuple[str, tuple[str, ...]]] = []
    for mention in mentions:
        label = edge_label(mention.source, mention.relation, mention.target)
        event = sources.get(mention.event_id)
        verdict = verdicts.get(mention.event_id)
        if event is None or verdict is None or verdict.verdict is not Verdict.ACCEPT:
            refused.append((label, ("relation.provenance",)))
            continue
        checked = check_mention(mention, event)
        if isinstance(checked, RelationCandidate):
            edges.append(checked)
        else:
            refused.append((label, checked))
    return edges, refused
