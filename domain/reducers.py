"""Pure reducers: ``apply(view, event) -> view`` and the fold ``project(events)``.

Reducers never raise on an event already accepted into the log, never read a clock and do no
I/O; rejections happen earlier, in :mod:`hlmem.domain.decisions`. Adapters that keep their
projection in tables load the states an event touches into a partial :class:`MemoryView`,
apply the same reducer, and write back what changed, so every adapter shares this one truth.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import singledispatch
from types import MappingProxyType

from attrs import evolve

from hlmem.domain.events import (
    ClaimArchived,
    ClaimAsserted,
    ClaimCorroborated,
    ClaimExpired,
    ClaimRetracted,
    ClaimRevived,
    ClaimSuperseded,
    ConflictOpened,
    ConflictResolved,
    DerivedBecameStale,
    DerivedBuilt,
    DerivedRemoved,
    DomainEvent,
    EvidenceForgotten,
    FeedbackRecorded,
    ItemForgotten,
    ObservationRecorded,
)
from hlmem.domain.state import (
    ClaimState,
    ClaimStatus,
    ClaimVersion,
    ConflictState,
    MemoryView,
    ObservationState,
    SupersedeEdge,
)


def touched_streams(event: DomainEvent) -> frozenset[str]:
    """Ids of the states ``apply`` may read or change for ``event`` (for partial views)."""
    if isinstance(event, ClaimSuperseded):
        return frozenset({event.stream_id, event.superseded_by})
    if isinstance(event, ClaimAsserted) and event.superseded_by:
        return frozenset({event.stream_id, event.superseded_by})
    return frozenset({event.stream_id})


def index_change(event: DomainEvent) -> tuple[str, str] | None:
    """How ``event`` changes the search index: ``("add", id)``, ``("drop", id)`` or None.

    New observations and claims enter it (with the entry the writer supplies), revived claims
    return to it; forgotten streams and archived claims leave it (their text and vectors go).
    A derived item (ADR 0084) is searchable while it is current: each build or rebuild *replaces*
    its row (:func:`replaces_item`), and going stale, being removed or forgotten drops it.
    """
    if isinstance(event, (ObservationRecorded, ClaimAsserted)) and event.version == 1:
        return ("add", event.stream_id)
    if isinstance(event, (ClaimRevived, DerivedBuilt)):  # DerivedRebuilt is a DerivedBuilt
        return ("add", event.stream_id)
    if isinstance(event, (ItemForgotten, ClaimArchived, DerivedBecameStale, DerivedRemoved)):
        return ("drop", event.stream_id)
    return None


def replaces_item(event: DomainEvent) -> bool:
    """Whether the item ``event`` adds to the search index may hold a row already, which the new one
    replaces (a derived item's rebuild: its earlier text and vector go in the same transaction)."""
    return isinstance(event, DerivedBuilt)


#: The kind of a derived item's search-index row (its namespace is :func:`~hlmem.domain.derived.index_namespace`).
DERIVED = "derived"


def item_kind(item_id: str) -> str:
    """The kind of a searchable item by its id: ``event`` (``ev_``), ``derived`` (``dv_``) or ``claim``."""
    if item_id.startswith("ev_"):
        return "event"
    if item_id.startswith("dv_"):
        return DERIVED
    return "claim"


def project(events: Iterable[DomainEvent], initial: MemoryView | None = None) -> MemoryView:
    """Fold events, in log order, into a view."""
    claims = dict(initial.claims) if initial else {}
    observations = dict(initial.observations) if initial else {}
    edges = list(initial.edges) if initial else []
    versions = dict(initial.stream_versions) if initial else {}
    conflicts = dict(initial.conflicts) if initial else {}
    # Mutable working copies keep the fold linear; the result is frozen like any view.
    for event in events:
        step(event, claims, observations, conflicts, edges)
        versions[event.stream_id] = event.version
    return MemoryView(
        MappingProxyType(claims), MappingProxyType(observations), tuple(edges), MappingProxyType(versions),
        MappingProxyType(conflicts),
    )


def step(event: DomainEvent, claims: dict[str, ClaimState], observations: dict[str, ObservationState],
         conflicts: dict[str, ConflictState], edges: list[SupersedeEdge]) -> None:
    """One step of the fold, on the caller's *working copies* (never on a view's mappings).

    ``project`` is this step over fresh copies; adapters that keep states in tables call it on
    the states an event touches (see :func:`touched_streams`), so every adapter shares it.
    """
    if isinstance(event, (ConflictOpened, ConflictResolved)) or (
            isinstance(event, ItemForgotten) and event.stream_id in conflicts):
        _apply_conflict(event, conflicts)
    else:
        _apply_into(event, claims, observations, edges)


def _apply_conflict(event: DomainEvent, conflicts: dict) -> None:
    if isinstance(event, ConflictOpened):
        candidate = {
            "subject": event.subject, "predicate": event.predicate, "value": event.value,
            "qualifiers": event.qualifiers, "coordinates": event.coordinates, "polarity": event.polarity,
            "importance": event.importance, "scope": event.scope, "valid_from": event.valid_from,
            "valid_to": event.valid_to, "evidence": event.evidence, "source": event.source,
        }
        conflicts[event.stream_id] = ConflictState(
            conflict_id=event.stream_id, namespace=event.namespace, slot_key=event.slot_key,
            existing=event.existing, candidate=MappingProxyType(candidate), reason=event.reason,
            opened_at=event.recorded_at, version=event.version,
        )
    elif isinstance(event, ItemForgotten):
        # A tombstone: whatever the candidate said is gone; the slot key names the subject.
        conflicts[event.stream_id] = evolve(
            conflicts[event.stream_id], slot_key="", candidate=MappingProxyType({}), status="forgotten",
            version=event.version,
        )
    elif isinstance(event, ConflictResolved) and event.stream_id in conflicts:
        conflicts[event.stream_id] = evolve(
            conflicts[event.stream_id], status="resolved", decision=event.decision, actor=event.actor,
            claim_id=event.claim_id, resolved_at=event.recorded_at, version=event.version,
        )


def apply(view: MemoryView, event: DomainEvent) -> MemoryView:
    """Apply one event to a view and return the new view."""
    return project((event,), view)


def _apply_into(event: DomainEvent, claims: dict, observations: dict, edges: list) -> None:
    if isinstance(event, ObservationRecorded):
        observations[event.stream_id] = observation_from(event)
    elif isinstance(event, ItemForgotten) and event.stream_id in observations:
        observations[event.stream_id] = evolve(
            observations[event.stream_id], text="", forgotten=True, version=event.version
        )
    elif isinstance(event, FeedbackRecorded) and event.stream_id in observations:
        observations[event.stream_id] = _with_feedback(observations[event.stream_id], event)
    elif isinstance(event, ClaimAsserted):
        claims[event.stream_id] = claim_from(event)
        if event.superseded_by:
            edges.append(SupersedeEdge(event.stream_id, event.superseded_by, event.recorded_at))
            newer = claims.get(event.superseded_by)
            if newer is not None:
                claims[newer.claim_id] = _add_supersedes(newer, event.stream_id)
    elif event.stream_id in claims:
        claims[event.stream_id] = apply_claim(claims[event.stream_id], event)
        if isinstance(event, ClaimSuperseded):
            edges.append(SupersedeEdge(event.stream_id, event.superseded_by, event.recorded_at))
            newer = claims.get(event.superseded_by)
            if newer is not None:
                claims[newer.claim_id] = _add_supersedes(newer, event.stream_id)


def _add_supersedes(claim: ClaimState, older: str) -> ClaimState:
    if older in claim.supersedes:
        return claim
    return evolve(claim, supersedes=(*claim.supersedes, older))


def observation_from(event: ObservationRecorded) -> ObservationState:
    """The state an observation starts in."""
    return ObservationState(
        event_id=event.stream_id,
        namespace=event.namespace,
        text=event.text,
        role=event.role,
        session_id=event.session_id,
        origin_class=event.origin_class,
        session_kind=event.session_kind,
        occurred_at=event.occurred_at,
        recorded_at=event.recorded_at,
        version=event.version,
    )


def claim_from(event: ClaimAsserted) -> ClaimState:
    """The state a claim starts in."""
    return ClaimState(
        claim_id=event.stream_id,
        namespace=event.namespace,
        subject=event.subject,
        predicate=event.predicate,
        value=event.value,
        qualifiers=event.qualifiers,
        coordinates=event.coordinates,
        polarity=event.polarity,
        importance=event.importance,
        scope=event.scope,
        cardinality=event.cardinality,
        source=event.source,
        recorded_at=event.recorded_at,
        version=event.version,
        evidence=tuple(dict.fromkeys(event.evidence)),
        versions=(ClaimVersion(event.valid_from, event.valid_to, event.recorded_at),),
        status=ClaimStatus.SUPERSEDED if event.superseded_by else ClaimStatus.ACTIVE,
        superseded_by=event.superseded_by,
    )


def apply_claim(claim: ClaimState, event: DomainEvent) -> ClaimState:
    """Apply a claim-stream event to that claim's state."""
    return _on_claim(event, claim)


@singledispatch
def _on_claim(event: DomainEvent, claim: ClaimState) -> ClaimState:
    # An event type this reducer does not handle only moves the version: replay never fails.
    return evolve(claim, version=event.version)


def _close(claim: ClaimState, recorded_at) -> tuple[ClaimVersion, ...]:
    """Close the open row in recorded time (never before it opened, even with a skewed clock)."""
    if not claim.versions or claim.versions[-1].recorded_to is not None:
        return claim.versions
    last = claim.versions[-1]
    closed = evolve(last, recorded_to=max(recorded_at, last.recorded_from))
    return (*claim.versions[:-1], closed)


@_on_claim.register
def _corroborated(event: ClaimCorroborated, claim: ClaimState) -> ClaimState:
    evidence = tuple(dict.fromkeys((*claim.evidence, *event.evidence)))
    return evolve(claim, evidence=evidence, version=event.version)


@_on_claim.register
def _superseded(event: ClaimSuperseded, claim: ClaimState) -> ClaimState:
    if claim.status in (ClaimStatus.RETRACTED, ClaimStatus.FORGOTTEN) or claim.current_version is None:
        return evolve(claim, version=event.version)
    last = claim.versions[-1]
    recorded = max(event.recorded_at, last.recorded_from)
    reopened = ClaimVersion(last.valid_from, max(event.valid_to, last.valid_from), recorded)
    return evolve(
        claim,
        versions=(*_close(claim, recorded), reopened),
        status=ClaimStatus.SUPERSEDED,
        superseded_by=event.superseded_by,
        version=event.version,
    )


@_on_claim.register
def _retracted(event: ClaimRetracted, claim: ClaimState) -> ClaimState:
    return evolve(
        claim, versions=_close(claim, event.recorded_at), status=ClaimStatus.RETRACTED, version=event.version
    )


@_on_claim.register
def _forgotten(event: ItemForgotten, claim: ClaimState) -> ClaimState:
    # A tombstone keeps only structure (times, supersede links, ids); every field that
    # :func:`hlmem.domain.redaction.redact` blanks is blank here too, so a replay of the
    # redacted log ends in exactly this state.
    return evolve(
        claim,
        subject="",
        predicate="",
        value="",
        qualifiers=(),
        coordinates=(),
        evidence=(),
        versions=_close(claim, event.recorded_at),
        status=ClaimStatus.FORGOTTEN,
        archived=False,
        version=event.version,
    )


@_on_claim.register
def _evidence_forgotten(event: EvidenceForgotten, claim: ClaimState) -> ClaimState:
    gone = set(event.evidence)
    return evolve(claim, evidence=tuple(e for e in claim.evidence if e not in gone), version=event.version)


@_on_claim.register
def _expired(event: ClaimExpired, claim: ClaimState) -> ClaimState:
    if claim.status is not ClaimStatus.ACTIVE or claim.current_version is None:
        return evolve(claim, version=event.version)
    last = claim.versions[-1]
    recorded = max(event.recorded_at, last.recorded_from)
    end = event.valid_to if last.valid_to is None else min(event.valid_to, last.valid_to)
    reopened = ClaimVersion(last.valid_from, max(end, last.valid_from), recorded)
    return evolve(claim, versions=(*_close(claim, recorded), reopened), status=ClaimStatus.EXPIRED,
                  version=event.version)


def _with_feedback(state, event: FeedbackRecorded):
    if event.verdict == "helpful":
        return evolve(state, helpful=state.helpful + 1, version=event.version)
    if event.verdict == "unhelpful":
        return evolve(state, unhelpful=state.unhelpful + 1, version=event.version)
    return evolve(state, version=event.version)


@_on_claim.register
def _feedback(event: FeedbackRecorded, claim: ClaimState) -> ClaimState:
    return _with_feedback(claim, event)


@_on_claim.register
def _archived(event: ClaimArchived, claim: ClaimState) -> ClaimState:
    return evolve(claim, archived=claim.status is not ClaimStatus.FORGOTTEN, version=event.version)


@_on_claim.register
def _revived(event: ClaimRevived, claim: ClaimState) -> ClaimState:
    return evolve(claim, archived=False, version=event.version)
