"""Row codec for the review queue: conflict states to and from the ``conflicts`` table."""

from __future__ import annotations

import json
from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

import apsw

from hlmem.domain.events import Scope
from hlmem.domain.state import ConflictState
from hlmem.domain.time import format_timestamp, parse_timestamp


def _ts(value):
    return None if value is None else parse_timestamp(value, field="stored timestamp")


def _encode(state: ConflictState) -> str:
    cand = dict(state.candidate)
    if cand:  # a forgotten conflict's candidate is empty
        cand.update(scope=Scope(cand["scope"]).value, valid_from=format_timestamp(cand["valid_from"]),
                    valid_to=format_timestamp(cand["valid_to"]))
    data = {"existing": list(state.existing), "candidate": cand, "reason": state.reason,
            "decision": state.decision, "actor": state.actor, "claim_id": state.claim_id,
            "resolved_at": format_timestamp(state.resolved_at)}
    return json.dumps(data, ensure_ascii=False, sort_keys=True)


def _decode(row: Sequence[Any]) -> ConflictState:
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


def load_conflicts(con: apsw.Connection, ids: Sequence[str]) -> dict[str, ConflictState]:
    """Conflict states for ``ids`` (missing ids are absent)."""
    ids = list(dict.fromkeys(ids))
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = con.execute(f"SELECT conflict_id, namespace, slot_key, status, version, opened_at, data FROM conflicts "
                       f"WHERE conflict_id IN ({marks})", ids).fetchall()
    return {r[0]: _decode(r) for r in rows}


def list_conflicts(con: apsw.Connection, namespace: str, status: str | None) -> list[ConflictState]:
    """Conflicts of a namespace, oldest first (all statuses when ``status`` is None)."""
    sql = "SELECT conflict_id, namespace, slot_key, status, version, opened_at, data FROM conflicts WHERE namespace = ?"
    args: list[Any] = [namespace]
    if status is not None:
        sql += " AND status = ?"
        args.append(status)
    return [_decode(r) for r in con.execute(sql + " ORDER BY opened_at, conflict_id", args)]


def save_conflict(con: apsw.Connection, state: ConflictState) -> None:
    """Write a conflict's row."""
    con.execute(
        "INSERT OR REPLACE INTO conflicts (conflict_id, namespace, slot_key, status, version, opened_at, data) "
        "VALUES (?,?,?,?,?,?,?)",
        (state.conflict_id, state.namespace, state.slot_key, state.status, state.version,
         format_timestamp(state.opened_at), _encode(state)),
    )
