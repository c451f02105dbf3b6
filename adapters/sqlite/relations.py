"""``SQLiteRelations``: the relation projection in the store's file (migration ``0022_relations``).

The store calls :meth:`project` for every event it appends and :meth:`flush` before the append's
transaction ends, like its own projector: the state is loaded, reduced by
:func:`hlmem.domain.relations.reduce_relation` and written back as JSON through the event
converter, with the columns the reads filter on and one ``relation_evidence`` row per evidence
item (ADR 0081).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from hlmem.adapters.serialization import converter
from hlmem.adapters.sqlite.db import Db, translated
from hlmem.domain.events import DomainEvent
from hlmem.domain.relation_events import is_relation_stream
from hlmem.domain.relations import RelationState, reduce_relation

_CHUNK = 500


def _encode(state: RelationState) -> str:
    return json.dumps(converter.unstructure(state), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _decode(text: str) -> RelationState:
    return converter.structure(json.loads(text), RelationState)


class SQLiteRelations:
    """Relations on the store's connection; writes join its transaction."""

    def __init__(self, db: Db) -> None:
        self._db = db
        self._cache: dict[str, RelationState | None] = {}
        self._dirty: set[str] = set()

    def reset(self) -> None:
        """Forget cached states (the store calls it at every transaction's end)."""
        self._cache.clear()
        self._dirty.clear()

    def prefetch(self, events: Sequence[DomainEvent]) -> None:
        """Load, in one read per 500, the states a batch's relation events will change (the store
        calls it before projecting an append)."""
        wanted = [e.stream_id for e in events if e.version != 1 and is_relation_stream(e.stream_id)
                  and e.stream_id not in self._cache]
        if wanted:
            found = self._load(wanted)
            for sid in wanted:
                self._cache[sid] = found.get(sid)

    def project(self, event: DomainEvent) -> None:
        """Apply one event inside the caller's write transaction (others are ignored)."""
        sid = event.stream_id
        if not is_relation_stream(sid):
            return
        if sid not in self._cache:
            self._cache[sid] = None if event.version == 1 else self._load([sid]).get(sid)
        state = reduce_relation(self._cache[sid], event)
        if state is not None:
            self._cache[sid] = state
            self._dirty.add(sid)

    def flush(self) -> None:
        """Write every state changed since the last flush, with its evidence rows."""
        if not self._dirty:
            return
        con = self._db.con
        states = [(sid, self._cache[sid]) for sid in sorted(self._dirty)]
        con.executemany("INSERT OR REPLACE INTO relations (relation_id, namespace, status, source_id, target_id, state) "
                        "VALUES (?,?,?,?,?,?)", [(sid, s.namespace, s.status, s.source_id, s.target_id, _encode(s))
                                                 for sid, s in states])
        ids = [sid for sid, _ in states]
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start:start + _CHUNK]
            con.execute(f"DELETE FROM relation_evidence WHERE relation_id IN ({','.join('?' * len(chunk))})", chunk)
        con.executemany("INSERT OR IGNORE INTO relation_evidence (item_id, relation_id) VALUES (?, ?)",
                        [(item, sid) for sid, s in states for item in s.evidence])
        self._dirty.clear()

    def _load(self, ids: Sequence[str]) -> dict[str, RelationState]:
        out: dict[str, RelationState] = {}
        wanted = [i for i in dict.fromkeys(ids) if is_relation_stream(i)]
        for start in range(0, len(wanted), _CHUNK):
            chunk = wanted[start:start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            for sid, text in self._db.con.execute(
                    f"SELECT relation_id, state FROM relations WHERE relation_id IN ({marks})", chunk):
                out[sid] = _decode(text)
        return out

    def fingerprints(self, ids: Sequence[str]) -> dict[str, object]:
        """The stored rows of each relation, undecoded (replay's first comparison)."""
        with self._db.lock, translated("reading relations"):
            out: dict[str, object] = {}
            wanted = [i for i in dict.fromkeys(ids) if is_relation_stream(i)]
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start:start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                for row in self._db.con.execute(f"SELECT * FROM relations WHERE relation_id IN ({marks})", chunk):
                    out[row[0]] = ("sqlite.relations", row)
            return out

    # -- RelationReader ---------------------------------------------------------------------------

    def get_relations(self, ids: Sequence[str]) -> dict[str, RelationState]:
        with self._db.lock, translated("reading relations"):
            found = self._load(ids)
        return {i: found[i] for i in dict.fromkeys(ids) if i in found}

    def relations(self, namespace: str, *, status: str | None = None, entities: Sequence[str] = (),
                  after: str | None = None, limit: int = 100) -> list[RelationState]:
        where, args = ["namespace = ?"], [namespace]
        where.append("status = ?" if status is not None else "status != 'forgotten'")
        if status is not None:
            args.append(status)
        ends = list(dict.fromkeys(entities))
        if ends:
            marks = ",".join("?" * len(ends))
            where.append(f"(source_id IN ({marks}) OR target_id IN ({marks}))")
            args += ends + ends
        if after is not None:
            where.append("relation_id > ?")
            args.append(after)
        args.append(max(limit, 0))
        with self._db.lock, translated("reading relations"):
            rows = self._db.con.execute(f"SELECT state FROM relations WHERE {' AND '.join(where)} "
                                        "ORDER BY relation_id LIMIT ?", tuple(args)).fetchall()
        return [_decode(r[0]) for r in rows]

    def relations_citing(self, item_ids: Sequence[str]) -> dict[str, RelationState]:
        ids = list(dict.fromkeys(item_ids))
        found: set[str] = set()
        with self._db.lock, translated("reading relations"):
            for start in range(0, len(ids), _CHUNK):
                chunk = ids[start:start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                found.update(r[0] for r in self._db.con.execute(
                    f"SELECT relation_id FROM relation_evidence WHERE item_id IN ({marks})", chunk))
            states = self._load(sorted(found))
        return {rid: states[rid] for rid in sorted(states)}

    def relation_counts(self, namespace: str) -> dict[str, int]:
        with self._db.lock, translated("reading relations"):
            rows = self._db.con.execute("SELECT status, count(*) FROM relations WHERE namespace = ? GROUP BY status "
                                        "ORDER BY status", (namespace,)).fetchall()
        return {status: n for status, n in rows}
