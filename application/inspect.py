"""History and explain: why memory believes something, with evidence, supersede chain and both clocks."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from attrs import frozen

from hlmem.application.ports import ClaimReader, RelationReader, TombstoneLedger
from hlmem.application.relations import RelationView, evidence_items
from hlmem.domain.derived import FORGOTTEN as DERIVED_FORGOTTEN
from hlmem.domain.errors import NotFound, ValidationError
from hlmem.domain.queries import history as order_history
from hlmem.domain.relations import FORGOTTEN
from hlmem.domain.slots import SlotRegistry, normalize_key
from hlmem.domain.state import ClaimState, ClaimStatus, ObservationState

if TYPE_CHECKING:
    from hlmem.application.derived import DerivedService, DerivedView


@frozen
class Explanation:
    """A claim, event, relation or derived item explained: itself, its evidence verbatim, its chain and the claims it backs.

    A forgotten claim or event is explained by ``kind="forgotten"``, its ``item_id`` and
    ``forgotten_at`` only: nothing of what it said.
    """

    kind: str
    item_id: str = ""
    forgotten_at: datetime | None = None
    claim: ClaimState | None = None
    observation: ObservationState | None = None
    evidence: tuple[ObservationState, ...] = ()
    missing_evidence: tuple[str, ...] = ()
    chain: tuple[ClaimState, ...] = ()
    cited_by: tuple[ClaimState, ...] = ()
    #: A relation (``rl_…``, kind ``relation``) with its evidence as it stands now (ADR 0085:
    #: what a recall's hop went along).
    relation: RelationView | None = None
    #: A derived item (``dv_…``, recall's profile answers): itself with its source claims as they stand now.
    derived: DerivedView | None = None


class InspectService:
    """Read-only views for people and agents: history of a slot, explain an id."""

    def __init__(self, storage: ClaimReader, registry: SlotRegistry, ledger: TombstoneLedger | None = None,
                 relations: RelationReader | None = None, *, derived: DerivedService | None = None) -> None:
        """:param relations: the store's relations, to explain an edge (``rl_…``); None: no edges.
        :param derived: explains derived items (``dv_…``) with their sources (ADR 0084)."""
        self._storage = storage
        self._registry = registry
        self._ledger = ledger
        self._relations = relations
        self._derived = derived

    def _forgotten(self, item_id: str, fallback: datetime | None = None) -> Explanation:
        found = self._ledger.of_streams([item_id]).get(item_id) if self._ledger is not None else None
        return Explanation(kind="forgotten", item_id=item_id, forgotten_at=found.forgotten_at if found else fallback)

    def history(self, subject: str, predicate: str, *, namespace: str = "default",
                coordinates: tuple[tuple[str, str], ...] | None = None) -> list[ClaimState]:
        """Every claim of the subject's predicate (all coordinates unless given), oldest first."""
        if not subject.strip() or not predicate.strip():
            raise ValidationError("history needs a subject and a predicate", field="subject")
        claims = self._storage.subject_claims(namespace, subject, self._registry.canonical(predicate))
        if coordinates is not None:
            wanted = tuple(sorted((k, normalize_key(v)) for k, v in coordinates))
            claims = [c for c in claims if tuple((k, normalize_key(v)) for k, v in c.coordinates) == wanted]
        return order_history(claims)

    def chain(self, claim: ClaimState) -> list[ClaimState]:
        """The supersede chain through ``claim``, oldest first, loaded link by link."""
        seen = {claim.claim_id: claim}
        order = [claim]
        cursor = claim
        while cursor.supersedes:
            older = self._storage.get_claims([c for c in cursor.supersedes if c not in seen])
            if not older:
                break
            prev = max(older.values(), key=lambda c: (c.versions[0].valid_from, c.recorded_at))
            seen[prev.claim_id] = prev
            order.insert(0, prev)
            cursor = prev
        cursor = claim
        while cursor.superseded_by and cursor.superseded_by not in seen:
            nxt = self._storage.get_claims([cursor.superseded_by]).get(cursor.superseded_by)
            if nxt is None:
                break
            seen[nxt.claim_id] = nxt
            order.append(nxt)
            cursor = nxt
        return order

    def get(self, item_id: str) -> ClaimState | ObservationState:
        """The claim (``cl_…``) or event (``ev_…``) with this id, as stored now.

        :raises NotFound: no such id, or it was forgotten (the message says so, and nothing of what it said).
        """
        item_id = (item_id or "").strip()
        found: ClaimState | ObservationState | None
        if item_id.startswith("cl_"):
            found = self._storage.get_claims([item_id]).get(item_id)
            gone = found is not None and found.status is ClaimStatus.FORGOTTEN
        elif item_id.startswith("ev_"):
            found = self._storage.get_observations([item_id]).get(item_id)
            gone = found is not None and found.forgotten
        else:
            raise NotFound(f"{item_id!r} is neither a claim id (cl_…) nor an event id (ev_…)")
        if gone or (found is None and self._forgotten(item_id).forgotten_at is not None):
            raise NotFound(f"{item_id} was forgotten: its content is gone")
        if found is None:
            raise NotFound(f"no {'claim' if item_id.startswith('cl_') else 'event'} {item_id}")
        return found

    def explain(self, item_id: str) -> Explanation:
        """Explain a claim (``cl_…``), an event (``ev_…``), a relation (``rl_…``: the edge a recall's
        hop went along, with its evidence) or a derived item (``dv_…``, with its sources); a
        forgotten one only by when it was forgotten.

        :raises NotFound: when no such id exists.
        """
        item_id = (item_id or "").strip()
        if item_id.startswith("cl_"):
            claim = self._storage.get_claims([item_id]).get(item_id)
            if claim is None:
                raise NotFound(f"no claim {item_id}")
            if claim.status is ClaimStatus.FORGOTTEN:
                return self._forgotten(item_id, claim.versions[-1].recorded_to if claim.versions else None)
            found = self._storage.get_observations(list(claim.evidence))
            return Explanation(
                kind="claim", claim=claim, item_id=item_id,
                evidence=tuple(found[e] for e in claim.evidence if e in found and not found[e].forgotten),
                missing_evidence=tuple(e for e in claim.evidence if e not in found),
                # Forgotten links keep the chain walkable but are not shown.
                chain=tuple(c for c in self.chain(claim) if c.status is not ClaimStatus.FORGOTTEN),
            )
        if item_id.startswith("ev_"):
            obs = self._storage.get_observations([item_id]).get(item_id)
            if obs is None:
                raise NotFound(f"no event {item_id}")
            if obs.forgotten:
                return self._forgotten(item_id)
            citing = self._storage.get_claims(self._storage.claims_citing(item_id))
            return Explanation(kind="event", observation=obs, item_id=item_id, cited_by=tuple(
                c for c in citing.values() if c.status is not ClaimStatus.FORGOTTEN))
        if item_id.startswith("rl_") and self._relations is not None:
            state = self._relations.get_relations([item_id]).get(item_id)
            if state is None:
                raise NotFound(f"no relation {item_id}")
            if state.status == FORGOTTEN:
                return self._forgotten(item_id, state.reviewed_at)
            return Explanation(kind="relation", item_id=item_id,
                               relation=RelationView(state, evidence_items(self._storage, state.evidence)))
        if item_id.startswith("dv_") and self._derived is not None:
            view = self._derived.show(item_id)
            if view.item.status == DERIVED_FORGOTTEN:
                return self._forgotten(item_id)
            return Explanation(kind="derived", item_id=item_id, derived=view)
        raise NotFound(f"{item_id!r} is neither a claim id (cl_…), an event id (ev_…), a relation id (rl_…) "
                       "nor a derived item (dv_…)")
