"""Claims, events and their bitemporal rows as JSON, and what ``explain`` answers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hlmem.domain.state import ClaimState, ClaimVersion, ObservationState
from hlmem.domain.time import format_timestamp as ts

if TYPE_CHECKING:  # types only: ``hlmem --help`` need not import the inspect service
    from hlmem.application.inspect import Explanation


def version_dict(row: ClaimVersion) -> dict[str, Any]:
    """A bitemporal row as JSON."""
    return {"valid_from": ts(row.valid_from), "valid_to": ts(row.valid_to),
            "recorded_from": ts(row.recorded_from), "recorded_to": ts(row.recorded_to)}


def claim_dict(claim: ClaimState) -> dict[str, Any]:
    """A claim as JSON: its fields, status, current clocks and every bitemporal row."""
    last = claim.versions[-1]
    return {
        "id": claim.claim_id, "kind": "claim", "namespace": claim.namespace, "subject": claim.subject,
        "predicate": claim.predicate, "value": claim.value, "qualifiers": dict(claim.qualifiers),
        "coordinates": dict(claim.coordinates), "polarity": claim.polarity, "importance": claim.importance,
        "scope": claim.scope.value, "cardinality": claim.cardinality.value, "status": claim.status.value,
        "archived": claim.archived,
        "valid_from": ts(last.valid_from), "valid_to": ts(last.valid_to),
        "recorded_from": ts(last.recorded_from), "recorded_to": ts(last.recorded_to),
        "superseded_by": claim.superseded_by, "supersedes": list(claim.supersedes),
        "evidence": list(claim.evidence), "versions": [version_dict(v) for v in claim.versions],
    }


def observation_dict(obs: ObservationState) -> dict[str, Any]:
    """An event as JSON (verbatim text)."""
    return {
        "id": obs.event_id, "kind": "event", "namespace": obs.namespace, "text": obs.text, "role": obs.role,
        "session": obs.session_id, "origin": obs.origin_class.value, "session_kind": obs.session_kind.value,
        "occurred_at": ts(obs.occurred_at), "recorded_at": ts(obs.recorded_at), "forgotten": obs.forgotten,
    }


def explanation_dict(exp: Explanation) -> dict[str, Any]:
    """Explain as JSON (a forgotten id: only its id and when it was forgotten)."""
    if exp.kind == "forgotten":
        return {"kind": "forgotten", "id": exp.item_id, "forgotten_at": ts(exp.forgotten_at)}
    if exp.kind == "relation" and exp.relation is not None:
        from hlmem.adapters.wire.relations import view_dict

        return {"kind": "relation", "relation": view_dict(exp.relation)}
    if exp.kind == "claim" and exp.claim is not None:
        return {"kind": "claim", "claim": claim_dict(exp.claim),
                "evidence": [observation_dict(o) for o in exp.evidence],
                "missing_evidence": list(exp.missing_evidence),
                "chain": [claim_dict(c) for c in exp.chain]}
    if exp.kind == "derived" and exp.derived is not None:
        from hlmem.adapters.wire.derived import view_dict

        return {"kind": "derived", "derived": view_dict(exp.derived)}
    assert exp.observation is not None
    return {"kind": "event", "event": observation_dict(exp.observation),
            "cited_by": [claim_dict(c) for c in exp.cited_by]}
