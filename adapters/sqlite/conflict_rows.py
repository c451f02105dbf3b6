"""Rows of the review queue: conflict states to and from the ``conflicts`` table.

The ``data`` column is the shared codec's document (adapters/conflict_codec.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import apsw

from hlmem.adapters.conflict_codec import decode_conflict, encode_conflict
from hlmem.domain.state import ConflictState
from hlmem.domain.time import format_timestamp


def load_conflicts(con: apsw.Connection, ids: Sequence[str]) -> dict[str, ConflictState]:
    """Conflict states for ``ids`` (missing ids are absent)."""
    ids = list(dict.fromkeys(ids))
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = con.execute(f"SELECT conflict_id, namespace, slot_key, status, version, opened_at, data FROM conflicts "
                       f"WHERE conflict_id IN ({marks})", ids).fetchall()
    return {r[0]: decode_conflict(r) for r in rows}


def list_conflicts(con: apsw.Connection, namespace: str, status: str | None) -> list[ConflictState]:
    """Conflicts of a namespace, oldest first (all statuses when ``status`` is None)."""
    sql = "SELECT conflict_id, namespace, slot_key, status, version, opened_at, data FROM conflicts WHERE namespace = ?"
    args: list[Any] = [namespace]
    if status is not None:
        sql += " AND status = ?"
        args.append(status)
    return [decode_conflict(r) for r in con.execute(sql + " ORDER BY opened_at, conflict_id", args)]


def save_conflict(con: apsw.Connection, state: ConflictState) -> None:
    """Write a conflict's row."""
    con.execute(
        "INSERT OR REPLACE INTO conflicts (conflict_id, namespace, slot_key, status, version, opened_at, data) "
        "VALUES (?,?,?,?,?,?,?)",
        (state.conflict_id, state.namespace, state.slot_key, state.status, state.version,
         format_timestamp(state.opened_at), encode_conflict(state)),
    )
