"""Relations between people and things: the review queue and its reads (docs/relations.md, ADR 0081).

``RelationService`` is the one application service the four front ends (``Memory.relations``, the
CLI's ``hlmem relations``, REST ``/v1/relations``, MCP's relation tools) call:

- ``page``/``list``: a namespace's edges, by status (``proposed``: the review queue) and entity;
- ``get``: one edge with its evidence as it stands now;
- ``accept``/``reject``: a review decision, decided against the edge's state and the liveness of
  its evidence inside one write transaction;
- ``scan``: propose from every current claim of a namespace (a store that had relations off, or
  claims written before they were on) — the same deterministic rules the write path runs.

Proposals on the write path and the lifecycle that follows evidence are
:mod:`hlmem.application.relation_guard`'s.
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import frozen

from hlmem.application.ports import ClaimReader, Clock, HasRelations, IdGenerator, RelationStore
from hlmem.domain.errors import NotFound, ValidationError
from hlmem.domain.relation_decisions import candidate_id, decide_proposals, decide_review
from hlmem.application.relation_guard import said_turns
from hlmem.domain.relation_events import RelationProposed, is_relation_stream
from hlmem.domain.relation_rules import claim_candidates
from hlmem.domain.relations import ENTITY_KINDS, STATUSES, USER, RelationState, entity_id
from hlmem.domain.slots import SlotRegistry
from hlmem.domain.state import SELF_KEY, ClaimStatus, subject_key

#: Most edges one page holds.
MAX_LIMIT = 1000


@frozen
class EvidenceItem:
    """One evidence item of an edge as it stands now: ``status`` of a claim (``active``,
    ``superseded``…), ``recorded``/``forgotten`` of an event, ``unknown`` when no store holds it."""

    id: str
    status: str
    text: str


@frozen
class RelationView:
    """An edge with its evidence as it stands now (``live``: every item still current)."""

    relation: RelationState
    evidence: tuple[EvidenceItem, ...]

    @property
    def live(self) -> bool:
        return bool(self.evidence) and all(e.status in ("active", "recorded") for e in self.evidence)


@frozen
class RelationPage:
    """A page of edges ordered by id; ``next_cursor`` (the last id) is None on the last page."""

    items: tuple[RelationState, ...]
    next_cursor: str | None


@frozen
class ScanReport:
    """What a scan read and proposed: claims read, events appended (proposals and corroborations)."""

    claims: int
    proposed: tuple[str, ...]
    corroborated: tuple[str, ...]


def evidence_items(storage: ClaimReader, ids: Sequence[str]) -> tuple[EvidenceItem, ...]:
    """Each evidence item of an edge as it stands now (a forgotten one without its text)."""
    claims = storage.get_claims([i for i in ids if i.startswith("cl_")])
    events = storage.get_observations([i for i in ids if i.startswith("ev_")])
    out = []
    for i in ids:
        if (c := claims.get(i)) is not None:
            gone = c.status == ClaimStatus.FORGOTTEN
            out.append(EvidenceItem(i, c.status.value, "" if gone else f"{c.subject} · {c.predicate} · {c.value}"))
        elif (o := events.get(i)) is not None:
            out.append(EvidenceItem(i, "forgotten" if o.forgotten else "recorded", "" if o.forgotten else o.text))
        else:
            out.append(EvidenceItem(i, "unknown", ""))
    return tuple(out)


def _check_namespace(namespace: str) -> None:
    if not isinstance(namespace, str) or not namespace.strip():
        raise ValidationError("namespace must be a non-empty string", field="namespace")


def _check_id(relation_id: str) -> None:
    if not isinstance(relation_id, str) or not is_relation_stream(relation_id):
        raise ValidationError(f"a relation id starts with rl_, not {relation_id!r}", field="relation_id")


class RelationService:
    """Lists, reviews and scans relations over one store (see the module docstring)."""

    def __init__(self, storage: RelationStore, clock: Clock, ids: IdGenerator, registry: SlotRegistry) -> None:
        self._storage = storage
        self._clock = clock
        self._ids = ids
        self._registry = registry

    # -- reads ----------------------------------------------------------------------------------------

    def entity_ids(self, entity: str) -> list[str]:
        """The ids an entity name may have (one per kind), or the id itself; the user's names are the user."""
        text = entity.strip() if isinstance(entity, str) else ""
        if not text:
            raise ValidationError("an entity is a name or an en_ id", field="entity")
        if text.startswith("en_"):
            return [text]
        key = self._storage.tombstones.salt()
        if subject_key(text) == SELF_KEY:
            return [entity_id(USER, text, key)]
        return [entity_id(kind, text, key) for kind in ENTITY_KINDS if kind != USER]

    def page(self, namespace: str = "default", *, status: str | None = None, entity: str | None = None,
             limit: int = 50, after: str | None = None) -> RelationPage:
        """Up to ``limit`` edges with ids after ``after`` (every status but forgotten unless one is
        asked for; ``entity``: a name or an ``en_`` id at either end), and the next page's cursor."""
        _check_namespace(namespace)
        if status is not None and status not in STATUSES:
            raise ValidationError(f"status is one of {', '.join(STATUSES)}, not {status!r}", field="status")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
            raise ValidationError(f"limit must be 1..{MAX_LIMIT}, not {limit!r}", field="limit")
        ends = self.entity_ids(entity) if entity is not None else ()
        found = self._storage.relations.relations(namespace, status=status, entities=ends, after=after,
                                                  limit=limit + 1)
        more = len(found) > limit
        return RelationPage(tuple(found[:limit]), found[limit - 1].relation_id if more else None)

    def list(self, namespace: str = "default", *, status: str | None = None, entity: str | None = None,
             limit: int = 50, after: str | None = None) -> list[RelationState]:
        return [*self.page(namespace, status=status, entity=entity, limit=limit, after=after).items]

    def get(self, relation_id: str) -> RelationView:
        """One edge with its evidence as it stands now; ``NotFound`` for an id no edge has."""
        _check_id(relation_id)
        state = self._storage.relations.get_relations([relation_id]).get(relation_id)
        if state is None:
            raise NotFound(f"no relation {relation_id}")
        return RelationView(state, self._evidence(state.evidence))

    def counts(self, namespace: str = "default") -> dict[str, int]:
        _check_namespace(namespace)
        return self._storage.relations.relation_counts(namespace)

    def _evidence(self, ids: Sequence[str]) -> tuple[EvidenceItem, ...]:
        return evidence_items(self._storage, ids)

    # -- review ---------------------------------------------------------------------------------------

    def accept(self, relation_id: str, *, actor: str = "user", reason: str = "") -> RelationView:
        """Accept an edge (refused: unknown, retired, forgotten, or evidence no longer live)."""
        return self._review(relation_id, accept=True, actor=actor, reason=reason)

    def reject(self, relation_id: str, *, actor: str = "user", reason: str = "") -> RelationView:
        """Reject an edge: it leaves the queue and the rules never propose it again."""
        return self._review(relation_id, accept=False, actor=actor, reason=reason)

    def _review(self, relation_id: str, *, accept: bool, actor: str, reason: str) -> RelationView:
        _check_id(relation_id)
        if not isinstance(actor, str) or not actor.strip() or not isinstance(reason, str):
            raise ValidationError("actor is a non-empty string and reason a string", field="actor")
        st = self._storage
        with st.transaction():
            state = st.relations.get_relations([relation_id]).get(relation_id)
            live = state is not None and RelationView(state, self._evidence(state.evidence)).live
            events = decide_review(state, relation_id, accept=accept, actor=actor.strip(), reason=reason.strip(),
                                   live=live, new_id=self._ids.new, recorded_at=self._clock.now())
            if events:
                st.append(events)
        return self.get(relation_id)

    # -- scan -----------------------------------------------------------------------------------------

    def scan(self, namespace: str = "default", *, batch: int = 500) -> ScanReport:
        """Propose edges from every current claim of ``namespace`` (idempotent: what is already
        proposed gains nothing; rejected and forgotten edges stay so)."""
        _check_namespace(namespace)
        st = self._storage
        read, proposed, corroborated = 0, [], []
        after = None
        while True:
            ids = st.claim_ids(namespace, after=after, limit=batch)
            if not ids:
                break
            after = ids[-1]
            with st.transaction():
                claims = st.get_claims(ids)
                read += len(claims)
                candidates = [c for claim in claims.values()
                              for c in claim_candidates(claim, self._registry, said_turns(st, claim))]
                if not candidates:
                    continue
                key = st.tombstones.salt()
                ids = sorted({candidate_id(c, namespace, key) for c in candidates})
                existing = st.relations.get_relations(ids)
                events = decide_proposals(candidates, existing, forgotten=st.tombstones.of_streams(ids).keys(),
                                          namespace=namespace, key=key, new_id=self._ids.new,
                                          recorded_at=self._clock.now())
                if events:
                    st.append(events)
                for e in events:
                    (proposed if isinstance(e, RelationProposed) else corroborated).append(e.stream_id)
        return ScanReport(read, tuple(proposed), tuple(corroborated))


def relation_differences(live: HasRelations, rebuilt: HasRelations, stream_ids: Sequence[str]) -> list[str]:
    """Replay's comparison of the relation projection: one line per edge whose state differs, and
    per edge an evidence item's look-up finds on one side only."""
    diffs = []
    ids = [s for s in stream_ids if is_relation_stream(s)]
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        left, right = live.relations.get_relations(chunk), rebuilt.relations.get_relations(chunk)
        for sid in chunk:
            if left.get(sid) != right.get(sid):
                diffs.append(f"relation {sid}: live {left.get(sid)!r} != rebuilt {right.get(sid)!r}")
        items = sorted({i for s in left.values() for i in s.evidence})
        if items:
            a, b = live.relations.relations_citing(items), rebuilt.relations.relations_citing(items)
            if sorted(a) != sorted(b):
                diffs.append(f"relations citing evidence: live {sorted(a)} != rebuilt {sorted(b)}")
    return diffs
