"""What a write answers, and ``get``: a recorded turn, a claim write, a correction, one item by id."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hlmem.adapters.wire.claims import claim_dict, observation_dict
from hlmem.domain.state import ClaimState

if TYPE_CHECKING:
    from hlmem.adapters.corrections_api import Correction
    from hlmem.application.ingest import AddResult
    from hlmem.application.writes import WriteResult
    from hlmem.domain.state import ObservationState


def write_dict(result: WriteResult) -> dict[str, Any]:
    """A claim write as JSON, as ``remember --json`` prints it."""
    return {"id": result.id, "outcome": result.outcome, "position": result.position}


def save_dict(result: AddResult) -> dict[str, Any]:
    """A recorded turn as JSON, as ``add --json`` prints it."""
    return {"id": result.id, "outcome": result.outcome, "position": result.position,
            "claims": [claim_dict(c) for c in result.claims]}


def correction_dict(done: Correction) -> dict[str, Any]:
    """A correction as JSON: the new claim's write, then what it corrected."""
    return {**write_dict(done.write), "corrected": done.corrected, "retracted": done.retracted}


def item_dict(item: ClaimState | ObservationState) -> dict[str, Any]:
    """A claim or an event as JSON, under its kind (the shapes of ``explain --json``)."""
    if isinstance(item, ClaimState):
        return {"kind": "claim", "claim": claim_dict(item)}
    return {"kind": "event", "event": observation_dict(item)}
