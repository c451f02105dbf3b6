"""The projection queries of :class:`~hlmem.adapters.postgres.store.PostgresStorage` (ClaimReader): a mix-in.

Claims, observations and conflicts are read from their projection tables' state documents
(:mod:`.projection`, :mod:`.states`); derived items are :class:`.derived.DerivedReads`'. A slot read
inside a write transaction takes the slot's advisory lock (ADR 0048).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from hlmem.adapters.postgres import derived
from hlmem.adapters.postgres.db import PgDb, translated
from hlmem.adapters.postgres.projection import load_claims, load_conflicts, load_observations
from hlmem.adapters.sql_counts import projection_counts
from hlmem.domain.slots import normalize_predicate
from hlmem.domain.state import ClaimState, ConflictState, ObservationState, subject_key

if TYPE_CHECKING:
    import psycopg

#: The two-int advisory lock space of slots (the first int); the second is the slot key's hash.
SLOT_LOCKS = 1848


class PostgresClaims:
    """Claims, observations and conflicts read from their projection tables."""

    # Set by PostgresStorage.__init__.
    _con: psycopg.Connection
    _lock: threading.RLock
    db: PgDb

    def get_claims(self, ids: Sequence[str]) -> dict[str, ClaimState]:
        with self._lock, translated("reading claims"):
            return load_claims(self._con, ids)

    def get_observations(self, ids: Sequence[str]) -> dict[str, ObservationState]:
        with self._lock, translated("reading events"):
            return load_observations(self._con, ids)

    def _lock_slots(self, slot_keys: Sequence[str]) -> None:
        # Inside a write transaction, a slot read is the start of a decision about that slot: the
        # next writer of the same slot waits until this transaction ends (no global lock).
        if self.db.depth:
            for key in sorted(set(slot_keys)):
                self._con.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (SLOT_LOCKS, key))

    def slot_claims(self, slot_key: str) -> list[ClaimState]:
        with self._lock, translated("reading a slot"):
            self._lock_slots([slot_key])
            ids = [r[0] for r in self._con.execute("SELECT claim_id FROM claims WHERE slot_key = %s ORDER BY claim_id",
                                                   (slot_key,))]
            return list(load_claims(self._con, ids).values())

    def slots_claims(self, slot_keys: Sequence[str]) -> dict[str, list[ClaimState]]:
        keys = list(dict.fromkeys(slot_keys))
        out: dict[str, list[ClaimState]] = {k: [] for k in keys}
        with self._lock, translated("reading slots"):
            self._lock_slots(keys)
            ids = [r[0] for r in self._con.execute(
                "SELECT claim_id FROM claims WHERE slot_key = ANY(%s) ORDER BY claim_id", (keys,))]
            for claim in load_claims(self._con, ids).values():
                out.setdefault(claim.slot_key, []).append(claim)
        return out

    def subject_claims(self, namespace: str, subject: str, predicate: str | None = None) -> list[ClaimState]:
        sql = "SELECT claim_id FROM claims WHERE namespace = %s AND subject_key = %s"
        params: tuple = (namespace, subject_key(subject))
        if predicate is not None:
            sql += " AND predicate = %s"
            params += (normalize_predicate(predicate),)
        with self._lock, translated("reading claims"):
            ids = [r[0] for r in self._con.execute(sql + " ORDER BY claim_id", params)]
            return list(load_claims(self._con, ids).values())

    def stored_subjects(self, namespace: str, subjects: Sequence[str]) -> set[str]:
        keys = {s: subject_key(s) for s in dict.fromkeys(subjects)}
        if not keys:
            return set()
        with self._lock, translated("reading claims"):
            present = {r[0] for r in self._con.execute(
                "SELECT DISTINCT subject_key FROM claims WHERE namespace = %s AND subject_key = ANY(%s)",
                (namespace, sorted(set(keys.values()))))}
        return {s for s, key in keys.items() if key in present}

    def claim_ids(self, namespace: str, *, after: str | None = None, limit: int = 200) -> list[str]:
        with self._lock, translated("listing claims"):
            return [r[0] for r in self._con.execute(
                "SELECT claim_id FROM claims WHERE claim_id > %s AND namespace = %s ORDER BY claim_id LIMIT %s",
                (after or "", namespace, max(limit, 0)))]

    def claims_citing(self, event_id: str) -> list[str]:
        with self._lock, translated("reading evidence"):
            return [r[0] for r in self._con.execute(
                "SELECT claim_id FROM claim_evidence WHERE event_id = %s ORDER BY claim_id", (event_id,))]

    def claims_citing_events(self, event_ids: Sequence[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        wanted = list(dict.fromkeys(event_ids))
        if not wanted:
            return out
        with self._lock, translated("reading evidence"):
            for event_id, claim_id in self._con.execute(
                    "SELECT event_id, claim_id FROM claim_evidence WHERE event_id = ANY(%s) ORDER BY event_id, claim_id",
                    (wanted,)):
                out.setdefault(event_id, []).append(claim_id)
        return out

    def get_conflicts(self, ids: Sequence[str]) -> dict[str, ConflictState]:
        with self._lock, translated("reading conflicts"):
            return load_conflicts(self._con, ids)

    def conflicts(self, namespace: str, status: str | None = "open") -> list[ConflictState]:
        sql, params = "SELECT conflict_id FROM conflicts WHERE namespace = %s", (namespace,)
        if status is not None:
            sql, params = sql + " AND status = %s", (namespace, status)
        with self._lock, translated("reading conflicts"):
            ids = [r[0] for r in self._con.execute(sql, params)]
            found = load_conflicts(self._con, ids)
        return sorted(found.values(), key=lambda c: (c.opened_at, c.conflict_id))

    def counts(self) -> dict[str, int]:
        with self._lock, translated("counting"):
            out = {"events": self._con.execute("SELECT coalesce(max(position), 0) FROM events").fetchone()[0],
                   **projection_counts(self._con)}
            out.update(derived.counts(self._con))
            return out
