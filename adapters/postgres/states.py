"""State documents: claim, observation and conflict states to and from the JSON the projections keep.

A projection row holds its whole state as one document (plus the columns queries filter on), so
PostgreSQL keeps exactly what the shared reducers produced; equal documents decode to equal states.
Claims and observations go through the event converter (``adapters/serialization.py``: enums by
value, timestamps as text); conflicts through the codec both SQL stores share
(``adapters/conflict_codec.py``), so both encode a conflict alike.
"""

from __future__ import annotations

import json

from hlmem.adapters.conflict_codec import decode_conflict, encode_conflict
from hlmem.adapters.serialization import converter
from hlmem.domain.state import ClaimState, ConflictState, ObservationState
from hlmem.domain.time import format_timestamp

__all__ = ["claim_doc", "conflict_doc", "load_claim", "load_conflict", "load_observation", "observation_doc"]


def _dumps(data: object) -> str:
    # ensure_ascii keeps NUL and lone surrogates out of PostgreSQL text (both refused there).
    return json.dumps(data, ensure_ascii=True, sort_keys=True, separators=(",", ":"))


def claim_doc(claim: ClaimState) -> str:
    return _dumps(converter.unstructure(claim))


def load_claim(doc: str) -> ClaimState:
    return converter.structure(json.loads(doc), ClaimState)


def observation_doc(obs: ObservationState) -> str:
    return _dumps(converter.unstructure(obs))


def load_observation(doc: str) -> ObservationState:
    return converter.structure(json.loads(doc), ObservationState)


def conflict_doc(conflict: ConflictState) -> str:
    return _dumps({"conflict_id": conflict.conflict_id, "namespace": conflict.namespace,
                   "slot_key": conflict.slot_key, "status": conflict.status, "version": conflict.version,
                   "opened_at": format_timestamp(conflict.opened_at), "data": encode_conflict(conflict)})


def load_conflict(doc: str) -> ConflictState:
    d = json.loads(doc)
    return decode_conflict((d["conflict_id"], d["namespace"], d["slot_key"], d["status"], d["version"],
                            d["opened_at"], d["data"]))
