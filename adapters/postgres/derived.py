"""Derived items on PostgreSQL (the DerivedReader role, ADR 0046): ``derived_items`` and ``derived_sources``.

Each item's whole state is one document, as in the other projections (:mod:`.states`); the
sources table answers "which items cite these claims", which the staleness guard asks inside
the write transaction. :func:`project` is called by the append for the ``dv_`` events it folds,
with the shared reducer :func:`hlmem.domain.derived.step_derived`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from hlmem.adapters.postgres.db import translated
from hlmem.adapters.serialization import converter
from hlmem.domain.derived import DerivedState, is_derived_id, step_derived
from hlmem.domain.events import DomainEvent
from hlmem.domain.state import subject_key

if TYPE_CHECKING:
    import psycopg

def _doc(state: DerivedState) -> str:
    return json.dumps(converter.unstructure(state), ensure_ascii=True, sort_keys=True, separators=(",", ":"))


def load(con: psycopg.Connection, ids: Sequence[str]) -> dict[str, DerivedState]:
    """States of the derived items among ``ids`` (others are absent), in the order asked."""
    ids = list(dict.fromkeys(ids))
    if not ids:
        return {}
    found = dict(con.execute("SELECT derived_id, state FROM derived_items WHERE derived_id = ANY(%s)", (ids,)))
    return {i: converter.structure(json.loads(found[i]), DerivedState) for i in ids if i in found}


def project(con: psycopg.Connection, events: Sequence[DomainEvent]) -> None:
    """Fold the ``dv_`` events of one append into their rows (load, reduce, write back)."""
    if not events:
        return
    states = load(con, [e.stream_id for e in events if e.version != 1])
    changed: set[str] = set()
    for event in events:
        step_derived(event, states)
        changed.add(event.stream_id)
    rows = [states[i] for i in sorted(changed) if i in states]
    if not rows:
        return
    with con.cursor() as cur:
        cur.executemany(
            "INSERT INTO derived_items (derived_id, namespace, kind, subject_key, status, state) "
            "VALUES (%s,%s,%s,%s,%s,%s) ON CONFLICT (derived_id) DO UPDATE SET namespace = excluded.namespace, "
            "kind = excluded.kind, subject_key = excluded.subject_key, status = excluded.status, "
            "state = excluded.state",
            [(s.derived_id, s.namespace, s.kind, subject_key(s.subject) if s.subject else "", s.status, _doc(s))
             for s in rows])
        cur.execute("DELETE FROM derived_sources WHERE derived_id = ANY(%s)", ([s.derived_id for s in rows],))
        cur.executemany("INSERT INTO derived_sources (derived_id, claim_id) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                        [(s.derived_id, cid) for s in rows for cid, _version in s.sources])


def citing(con: psycopg.Connection, claim_ids: Sequence[str]) -> dict[str, DerivedState]:
    """Every derived item built from any of ``claim_ids``, keyed by id in id order."""
    ids = list(dict.fromkeys(claim_ids))
    if not ids:
        return {}
    found = [r[0] for r in con.execute(
        "SELECT DISTINCT derived_id FROM derived_sources WHERE claim_id = ANY(%s) ORDER BY derived_id", (ids,))]
    return load(con, found)


def items(con: psycopg.Connection, namespace: str, subject: str | None, kind: str | None) -> list[DerivedState]:
    """A namespace's derived items in id order (of one subject and kind if given)."""
    sql, args = "SELECT derived_id FROM derived_items WHERE namespace = %s", [namespace]
    if subject is not None:
        sql, args = sql + " AND subject_key = %s", [*args, subject_key(subject)]
    if kind is not None:
        sql, args = sql + " AND kind = %s", [*args, kind]
    ids = [r[0] for r in con.execute(sql + " ORDER BY derived_id", args)]
    return list(load(con, ids).values())


def fingerprints(con: psycopg.Connection, ids: Sequence[str]) -> dict[str, object]:
    """Each derived item's stored document (equal documents decode to equal states)."""
    ids = list(dict.fromkeys(ids))
    if not ids:
        return {}
    return {r[0]: ("postgres.derived", r[1]) for r in con.execute(
        "SELECT derived_id, state FROM derived_items WHERE derived_id = ANY(%s)", (ids,))}


def counts(con: psycopg.Connection) -> dict[str, int]:
    """``derived_<status>`` counts and ``derived`` in all."""
    out = {f"derived_{status}": n for status, n in
           con.execute("SELECT status, count(*) FROM derived_items GROUP BY status")}
    if out:
        out["derived"] = sum(out.values())
    return out


class DerivedReads:
    """The DerivedReader role for :class:`~hlmem.adapters.postgres.store.PostgresStorage` (its
    ``_lock`` and ``_con``: reads inside a write transaction see that transaction's rows)."""

    _lock: Any
    _con: psycopg.Connection

    def get_derived(self, ids: Sequence[str]) -> dict[str, DerivedState]:
        with self._lock, translated("reading derived items"):
            return load(self._con, [i for i in ids if is_derived_id(i)])

    def derived_citing(self, claim_ids: Sequence[str]) -> dict[str, DerivedState]:
        with self._lock, translated("reading derived items"):
            return citing(self._con, claim_ids)

    def derived_items(self, namespace: str, *, subject: str | None = None,
                      kind: str | None = None) -> list[DerivedState]:
        with self._lock, translated("reading derived items"):
            return items(self._con, namespace, subject, kind)

