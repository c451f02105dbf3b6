"""``PostgresRelations``: the relation projection on PostgreSQL (the RelationReader role, ADR 0081).

Each relation is a state document (the event converter's JSON, as in :mod:`.states`) with the
columns the reads filter on, and ``relation_evidence`` says which relations each claim or event
supports. The append folds the ``rl_`` events of its transaction through :func:`project` with the
shared reducer :func:`hlmem.domain.relations.reduce_relation` (layout 6).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from hlmem.adapters.postgres.db import PgDb, translated
from hlmem.adapters.serialization import converter
from hlmem.domain.events import DomainEvent
from hlmem.domain.relation_events import is_relation_stream
from hlmem.domain.relations import RelationState, reduce_relation

if TYPE_CHECKING:
    import psycopg


def _doc(state: RelationState) -> str:
    return json.dumps(converter.unstructure(state), ensure_ascii=True, sort_keys=True, separators=(",", ":"))


def _decode(text: str) -> RelationState:
    return converter.structure(json.loads(text), RelationState)


def load(con: psycopg.Connection, ids: Sequence[str]) -> dict[str, RelationState]:
    wanted = [i for i in dict.fromkeys(ids) if is_relation_stream(i)]
    if not wanted:
        return {}
    return {sid: _decode(text) for sid, text in
            con.execute("SELECT relation_id, state FROM relations WHERE relation_id = ANY(%s)", (wanted,))}


def project(con: psycopg.Connection, events: Sequence[DomainEvent]) -> None:
    """Fold one append's relation events into their rows, inside its transaction."""
    if not events:
        return
    states: dict[str, RelationState | None] = dict(load(con, [e.stream_id for e in events if e.version != 1]))
    changed: set[str] = set()
    for event in events:
        state = reduce_relation(states.get(event.stream_id), event)
        if state is not None:
            states[event.stream_id] = state
            changed.add(event.stream_id)
    with con.cursor() as cur:
        for sid in sorted(changed):
            state = states[sid]
            assert state is not None
            cur.execute("INSERT INTO relations (relation_id, namespace, status, source_id, target_id, state) "
                        "VALUES (%s,%s,%s,%s,%s,%s) ON CONFLICT (relation_id) DO UPDATE SET status = excluded.status, "
                        "state = excluded.state", (sid, state.namespace, state.status, state.source_id,
                                                   state.target_id, _doc(state)))
            cur.execute("DELETE FROM relation_evidence WHERE relation_id = %s", (sid,))
            if state.evidence:
                cur.executemany("INSERT INTO relation_evidence (item_id, relation_id) VALUES (%s, %s) "
                                "ON CONFLICT DO NOTHING", [(item, sid) for item in state.evidence])


def fingerprints(con: psycopg.Connection, ids: Sequence[str]) -> dict[str, object]:
    """The state documents of these relations (replay's first comparison)."""
    wanted = [i for i in dict.fromkeys(ids) if is_relation_stream(i)]
    if not wanted:
        return {}
    return {row[0]: ("postgres.relations", row[1]) for row in
            con.execute("SELECT relation_id, state FROM relations WHERE relation_id = ANY(%s)", (wanted,))}


class PostgresRelations:
    """Reads of the relation projection on the store's connection (they see its open transaction)."""

    def __init__(self, db: PgDb) -> None:
        self._db = db

    def get_relations(self, ids: Sequence[str]) -> dict[str, RelationState]:
        with self._db.lock, translated("reading relations"):
            found = load(self._db.con, ids)
        return {i: found[i] for i in dict.fromkeys(ids) if i in found}

    def relations(self, namespace: str, *, status: str | None = None, entities: Sequence[str] = (),
                  after: str | None = None, limit: int = 100) -> list[RelationState]:
        where, args = ["namespace = %s"], [namespace]
        where.append("status = %s" if status is not None else "status <> 'forgotten'")
        if status is not None:
            args.append(status)
        ends = list(dict.fromkeys(entities))
        if ends:
            where.append("(source_id = ANY(%s) OR target_id = ANY(%s))")
            args += [ends, ends]
        if after is not None:
            where.append("relation_id > %s")
            args.append(after)
        args.append(max(limit, 0))
        with self._db.lock, translated("reading relations"):
            rows = self._db.con.execute(f"SELECT state FROM relations WHERE {' AND '.join(where)} "
                                        "ORDER BY relation_id LIMIT %s", tuple(args)).fetchall()
        return [_decode(r[0]) for r in rows]

    def relations_citing(self, item_ids: Sequence[str]) -> dict[str, RelationState]:
        ids = list(dict.fromkeys(item_ids))
        if not ids:
            return {}
        with self._db.lock, translated("reading relations"):
            found = [r[0] for r in self._db.con.execute(
                "SELECT DISTINCT relation_id FROM relation_evidence WHERE item_id = ANY(%s)", (ids,))]
            states = load(self._db.con, found)
        return {rid: states[rid] for rid in sorted(states)}

    def relation_counts(self, namespace: str) -> dict[str, int]:
        with self._db.lock, translated("reading relations"):
            rows = self._db.con.execute("SELECT status, count(*) FROM relations WHERE namespace = %s GROUP BY status "
                                        "ORDER BY status", (namespace,)).fetchall()
        return {status: n for status, n in rows}
