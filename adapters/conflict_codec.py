"""The conflict codec both SQL stores share: a :class:`ConflictState` to and from its JSON document.

SQL-independent: SQLite keeps :func:`encode_conflict`'s text in ``conflicts.data``
(adapters/sqlite/conflict_rows.py), PostgreSQL inside its conflict document
(adapters/postgres/states.py), so both stores encode a conflict alike.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

from hlmem.domain.events import Scope
from hlmem.domain.state import ConflictState
from hlmem.domain.time import format_timestamp, parse_timestamp

__all__ = ["decode_conflict", "encode_conflict"]


def _ts(value):
    return None if value is None else parse_timestamp(value, field="stored timestamp")


def encode_conflict(state: ConflictState) -> str:
    """The ``data`` document of a conflict: everything but its id, namespace, slot, status, version, opening."""
    cand = dict(state.candidate)
    if cand:  # a forgotten conflict's candidate is empty
        cand.update(scope=Scope(cand["scope"]).value, valid_from=format_timestamp(cand["valid_from"]),
                    valid_to=format_timestamp(cand["valid_to"]))
    data = {"existing": list(state.existing), "candidate": cand, "reason": state.reason,
            "decision": state.decision, "actor": state.actor, "claim_id": state.claim_id,
            "resolved_at": format_timestamp(state.resolved_at)}
    return json.dumps(data, ensure_ascii=False, sort_keys=True)


def decode_conflict(row: Sequence[Any]) -> ConflictState:
    """A conflict from ``(conflict_id, namespace, slot_key, status, version, opened_at, data)``."""
    conflict_id, namespace, slot_key, status, version, opened_at, raw = row
    data = json.loads(raw)
    cand = data["candidate"]
    candidate = {} if not cand else {
        "subject": cand["subject"], "predicate": cand["predicate"], "value": cand["value"],
        "qualifiers": tuple(tuple(p) for p in cand["qualifiers"]),
        "coordinates": tuple(tuple(p) for p in cand["coordinates"]), "polarity": cand["polarity"],
        "importance": cand["importance"], "scope": Scope(cand["scope"]), "valid_from": _ts(cand["valid_from"]),
        "valid_to": _ts(cand["valid_to"]), "evidence": tuple(cand["evidence"]), "source": cand["source"],
    }
    return ConflictState(
        conflict_id=conflict_id, namespace=namespace, slot_key=slot_key, existing=tuple(data["existing"]),
        candidate=MappingProxyType(candidate), reason=data["reason"], opened_at=_ts(opened_at), version=version,
        status=status, decision=data["decision"], actor=data["actor"], claim_id=data["claim_id"],
        resolved_at=_ts(data["resolved_at"]),
    )
