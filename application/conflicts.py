"""The review queue: list open conflicts and resolve them (keep-new, keep-old, coexist)."""

from __future__ import annotations

from attrs import frozen

from hlmem.application.indexing import claim_text, passage_vectors
from hlmem.application.ports import Clock, ConflictStore, Embedder, IdGenerator, IndexEntry
from hlmem.domain.commands import AssertClaim, validate_claim
from hlmem.domain.decisions import decide_assert
from hlmem.domain.errors import ConcurrencyConflict, NotFound, ValidationError
from hlmem.domain.events import Cardinality, ConflictResolved, DomainEvent
from hlmem.domain.evidence import check_evidence
from hlmem.domain.queries import current
from hlmem.domain.slots import SlotRegistry
from hlmem.domain.state import ConflictState

DECISIONS = ("keep-new", "keep-old", "coexist")


@frozen
class Resolution:
    """What resolving did: the decision and the claim it wrote (keep-new, coexist)."""

    conflict_id: str
    decision: str
    claim_id: str | None


class ConflictService:
    """Resolves conflicts with optimistic concurrency: a decision made on a stale view is refused."""

    def __init__(self, storage: ConflictStore, clock: Clock, ids: IdGenerator, registry: SlotRegistry,
                 embedder: Embedder | None = None) -> None:
        self._storage = storage
        self._clock = clock
        self._ids = ids
        self._registry = registry
        self._embedder = embedder

    def _vector(self, conflict: ConflictState) -> tuple[str, bytes | None]:
        c = conflict.candidate
        text = claim_text(c["subject"], c["predicate"], c["value"], c["qualifiers"], c["coordinates"], c["polarity"],
                          self._registry)
        return text, passage_vectors(self._embedder, self._storage, [text]).get(text)

    def list(self, namespace: str = "default", status: str | None = "open") -> list[ConflictState]:
        """Conflicts, oldest first."""
        return self._storage.conflicts(namespace, status)

    def resolve(self, conflict_id: str, decision: str, *, actor: str = "user",
                expected_version: int | None = None) -> Resolution:
        """Decide a conflict.

        :param expected_version: the conflict version the decision was made on (1 while open).
        :raises ConcurrencyConflict: when the conflict was decided meanwhile, or the slot's current
            claims changed since it opened (the decision was made on a stale view).
        :raises UnusableEvidence: keep-new or coexist, and the candidate's evidence was forgotten
            or is gone (a forget normally takes such a conflict with it).
        """
        if decision not in DECISIONS:
            raise ValidationError(f"decision must be one of {', '.join(DECISIONS)}", field="decision")
        found = self._storage.get_conflicts([conflict_id]).get(conflict_id)
        # Embedded before the write transaction: a model call never holds the write lock.
        text, vector = self._vector(found) if found is not None and decision != "keep-old" else ("", None)
        with self._storage.transaction():
            conflict = self._storage.get_conflicts([conflict_id]).get(conflict_id)
            if conflict is None:
                raise NotFound(f"no conflict {conflict_id}")
            if conflict.status != "open" or (expected_version is not None and conflict.version != expected_version):
                raise ConcurrencyConflict(f"conflict {conflict_id} was already decided ({conflict.decision})")
            now = self._clock.now()
            slot = self._storage.slot_claims(conflict.slot_key)
            if tuple(c.claim_id for c in current(slot, now)) != conflict.existing:
                raise ConcurrencyConflict(
                    f"the slot of conflict {conflict_id} changed since it opened; list conflicts again and re-decide")
            events: list[DomainEvent] = []
            index: dict[str, IndexEntry] = {}
            claim_id = None
            if decision != "keep-old":
                cmd = self._command(conflict, multi=decision == "coexist")
                check_evidence(cmd.evidence, self._storage.get_observations(list(cmd.evidence)),
                               what=f"the candidate of conflict {conflict_id}")
                made = decide_assert(cmd, slot, registry=self._registry, new_id=self._ids.new, recorded_at=now)
                events += made.events
                claim_id = made.claim_id
                if claim_id:
                    index[claim_id] = IndexEntry(text, vector)
            events.append(ConflictResolved(
                event_id=self._ids.new("lg"), stream_id=conflict_id, version=conflict.version + 1, recorded_at=now,
                namespace=conflict.namespace, decision=decision, actor=actor, claim_id=claim_id,
            ))
            self._storage.append(events, index)
        return Resolution(conflict_id, decision, claim_id)

    def _command(self, conflict: ConflictState, *, multi: bool) -> AssertClaim:
        c = conflict.candidate
        return validate_claim(AssertClaim(
            subject=c["subject"], predicate=c["predicate"], value=c["value"], namespace=conflict.namespace,
            qualifiers=c["qualifiers"], coordinates=c["coordinates"], polarity=c["polarity"],
            importance=c["importance"], scope=c["scope"], valid_from=c["valid_from"], valid_to=c["valid_to"],
            evidence=c["evidence"], source=c["source"], cardinality=Cardinality.MULTI if multi else None,
        ), self._registry)
