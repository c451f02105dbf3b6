"""Write services: record observations and assert explicit claims (decide, embed, append)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from attrs import frozen

from hlmem.application.indexing import claim_text, event_index_text, passage_vectors, retrying_for_vectors
from hlmem.application.ports import Clock, Embedder, IdGenerator, IndexEntry, WriteStore
from hlmem.application.revival import revival_index, revived_ids
from hlmem.domain.commands import AssertClaim, RecordObservation, validate_claim, validate_observation
from hlmem.domain.decisions import Decision, decide_assert, decide_feedback, decide_observation, decide_retract
from hlmem.domain.events import DomainEvent
from hlmem.domain.evidence import check_evidence
from hlmem.domain.reducers import step
from hlmem.domain.slots import SlotRegistry
from hlmem.domain.state import slot_key
from hlmem.domain.time import require_aware

if TYPE_CHECKING:
    from hlmem.application.reingest import ReingestGuard
    from hlmem.application.vector_backlog import VectorBacklog

Command = RecordObservation | AssertClaim


@frozen
class WriteResult:
    """What a write did: the id it concerns, the outcome and the log position it reached."""

    id: str
    outcome: str
    position: int
    events: tuple[str, ...] = ()


class WriteService:
    """Turns commands into events through the domain's decisions and appends them atomically.

    Embedding happens before the write transaction (a model call must not hold the write lock);
    the decision and the append happen inside it, so concurrent writers to one slot serialise
    (ADR 0024, 0064).

    :param guard: refuses forgotten content in :meth:`remember` (re-ingest blocking, ADR 0014);
        batches (import, benchmarks) are screened by their callers.
    """

    def __init__(self, storage: WriteStore, clock: Clock, ids: IdGenerator, registry: SlotRegistry,
                 embedder: Embedder | None = None, *, guard: ReingestGuard | None = None,
                 backlog: VectorBacklog | None = None) -> None:
        """:param backlog: when given (``vectors = "worker"``, ADR 0080), a write embeds nothing: its
            items are indexed for full text at once and their vectors are owed to the worker."""
        self._storage = storage
        self._clock = clock
        self._ids = ids
        self._registry = registry
        self._embedder = embedder
        self._guard = guard
        self._backlog = backlog

    def _index_for(self, events: Sequence[DomainEvent], vectors: dict[str, bytes | None]) -> dict[str, IndexEntry]:
        out = {}
        for event in events:
            text = event_index_text(event, self._registry)
            if text is not None:
                out[event.stream_id] = IndexEntry(text, vectors.get(text))
        return out

    def record(self, cmd: RecordObservation, *, recorded_at: datetime | None = None) -> WriteResult:
        """Record a raw observation verbatim; it is recallable as soon as this returns."""
        return self.write_batch([(cmd, recorded_at)])[0]

    def remember(self, cmd: AssertClaim, *, recorded_at: datetime | None = None) -> WriteResult:
        """Assert one explicit claim (no LLM); supersede, corroborate or create as the rules say.

        :raises ForgottenContent: the claim's content was forgotten and re-ingest blocking is on.
        """
        return self.write_batch([(cmd, recorded_at)], guard=self._guard)[0]

    def write_batch(self, items: Sequence[tuple[Command, datetime | None]],
                    on_recorded: Callable[[RecordObservation, WriteResult, datetime], None] | None = None, *,
                    guard: ReingestGuard | None = None) -> list[WriteResult]:
        """Apply observations and claims in order, in one transaction (all or nothing).

        Every command is validated before anything is embedded or written; ``recorded_at`` per
        item (for imports of history) defaults to the clock. ``on_recorded`` runs inside the
        transaction after each observation (the pipeline enqueues its extraction job there, so
        the event and its job commit together).

        Only the decisions and the SQL run under the write lock (ADR 0064): validation, embedding,
        the search index's preparation and the content fingerprints come first; what needs the
        store as it is now (the slots, the cited evidence, the tombstone ledger) is read inside.

        :param guard: refuse forgotten content (re-ingest blocking): checked before anything is
            embedded, and again under the lock, so a forget that committed meanwhile counts.
        :raises ForgottenContent: ``guard`` found forgotten content; nothing of the batch is written.
        :raises UnusableEvidence: a claim cites an event that was forgotten or does not exist
            (nor is recorded earlier in the batch); nothing of the batch is written.
        """
        valid: list[tuple[Command, datetime | None]] = []
        for cmd, at in items:
            at = None if at is None else require_aware(at, field="recorded_at")
            if isinstance(cmd, RecordObservation):
                valid.append((validate_observation(cmd), at))
            else:
                valid.append((validate_claim(cmd, self._registry), at))
        cmds = [cmd for cmd, _ in valid]
        fingerprints = guard.refuse(cmds) if guard is not None else None  # before embedding forgotten text
        texts = [self._text_of(cmd) for cmd in cmds]
        vectors = (passage_vectors(self._embedder, self._storage, texts) if self._backlog is None
                   else self._backlog.bind(texts))

        def write(vectors: dict[str, bytes], last: bool) -> tuple[list[Decision], list[WriteResult]]:
            with self._storage.transaction():
                if guard is not None:
                    guard.refuse(cmds, fingerprints=fingerprints)  # one ledger query
                return self._decide_and_append(valid, vectors, on_recorded, embed=last)

        decisions, results = retrying_for_vectors(write, vectors, self._embedder, self._storage)
        # A repeated fact is used again: corroboration counts as an access (lifecycle telemetry).
        for d in decisions:
            if d.outcome == "corroborated" and d.claim_id:
                self._storage.record_access([d.claim_id], d.events[0].recorded_at)
        return results

    def _decide_and_append(self, valid: Sequence[tuple[Command, datetime | None]], vectors: dict[str, bytes],
                           on_recorded: Callable[[RecordObservation, WriteResult, datetime], None] | None, *,
                           embed: bool) -> tuple[list[Decision], list[WriteResult]]:
        """Inside the write transaction: decide every command against the batch's slots, kept
        current by the pure reducer, then append everything at once (one round of writes)."""
        keys = {id(cmd): slot_key(cmd.namespace, cmd.subject, cmd.predicate, cmd.coordinates)
                for cmd, _ in valid if isinstance(cmd, AssertClaim)}
        slots = self._storage.slots_claims(list(dict.fromkeys(keys.values())))
        uses = Counter(keys.values())
        known = {c.claim_id: c for cl in slots.values() for c in cl}
        members = {k: [c.claim_id for c in cl] for k, cl in slots.items()}
        # Evidence is checked inside the transaction: a forget committed meanwhile counts.
        wanted = list(dict.fromkeys(e for cmd, _ in valid if isinstance(cmd, AssertClaim) for e in cmd.evidence))
        cited = self._storage.get_observations(wanted) if wanted else {}
        recorded: set[str] = set()
        decisions: list[Decision] = []
        pending: list[tuple[RecordObservation, int, datetime]] = []
        for cmd, at in valid:
            now = at or self._clock.now()
            if isinstance(cmd, RecordObservation):
                decision = decide_observation(cmd, new_id=self._ids.new, recorded_at=now)
                pending.append((cmd, len(decisions), now))
                recorded.add(decision.claim_id or "")
            else:
                if cmd.evidence:  # nothing cited, nothing to check (and no message to build)
                    check_evidence(cmd.evidence, cited, recorded,
                                   what=f"the claim {cmd.subject} · {cmd.predicate} · {cmd.value}")
                key = keys[id(cmd)]
                slot = [known[i] for i in members[key]]
                decision = decide_assert(cmd, slot, registry=self._registry, new_id=self._ids.new,
                                         recorded_at=now)
                # Fold the decision into the batch's working copy with the domain's own step,
                # when a later command of this batch will decide on the same slot.
                uses[key] -= 1
                if uses[key]:
                    for event in decision.events:
                        step(event, known, {}, {}, [])
                if decision.claim_id and decision.claim_id not in members[key]:
                    members[key].append(decision.claim_id)
            decisions.append(decision)
        events = [e for d in decisions for e in d.events]
        index = self._index_for(events, vectors)
        if revived := revived_ids(events):
            # Corroboration revived archived claims: they return to the index (ADR 0015). Their
            # vectors were not embedded before the lock: NeedVectors rolls back and tries again.
            index.update(revival_index([known[c] for c in revived], self._registry, self._embedder,
                                       self._storage, vectors, embed=embed))
        position = self._storage.append(events, index)
        if self._backlog is not None:
            self._backlog.owe(events, index, self._clock.now())
        results = [WriteResult(d.claim_id or "", d.outcome, position, tuple(e.event_id for e in d.events))
                   for d in decisions]
        if on_recorded is not None:  # after every step that may ask for a retry: runs once per command
            for cmd, i, now in pending:
                on_recorded(cmd, results[i], now)
        return decisions, results

    def _text_of(self, cmd: Command) -> str:
        if isinstance(cmd, RecordObservation):
            return cmd.text
        return claim_text(cmd.subject, cmd.predicate, cmd.value, cmd.qualifiers, cmd.coordinates, cmd.polarity,
                          self._registry)

    def retract(self, claim_id: str, reason: str = "") -> WriteResult:
        """Stop believing a claim from now on (it stays in history)."""
        with self._storage.transaction():
            claim = self._storage.get_claims([claim_id]).get(claim_id)
            decision = decide_retract(claim, claim_id, reason, new_id=self._ids.new, recorded_at=self._clock.now())
            return self._append(decision, {})

    def feedback(self, item_id: str, verdict: str, *, actor: str = "user", reason: str = "") -> WriteResult:
        """Record that a recalled claim or event was ``helpful`` or ``unhelpful`` (an event)."""
        with self._storage.transaction():
            if item_id.startswith("ev_"):
                item = self._storage.get_observations([item_id]).get(item_id)
            else:
                item = self._storage.get_claims([item_id]).get(item_id)
            decision = decide_feedback(item, item_id, verdict, actor=actor, reason=reason, new_id=self._ids.new,
                                       recorded_at=self._clock.now())
            position = self._storage.append(decision.events)
            return WriteResult(item_id, decision.outcome, position, tuple(e.event_id for e in decision.events))

    def _append(self, decision: Decision, vectors: dict[str, bytes | None]) -> WriteResult:
        position = self._storage.append(decision.events, self._index_for(decision.events, vectors))
        return WriteResult(decision.claim_id or "", decision.outcome, position,
                           tuple(e.event_id for e in decision.events))
