"""The projection queries of :class:`~hlmem.adapters.sqlite.store.SQLiteStorage` (ClaimReader,
DerivedReader): a mix-in over :mod:`.rows`, :mod:`.conflict_rows` and :mod:`.derived_rows`."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import apsw

from hlmem.adapters.sql_counts import projection_counts
from hlmem.adapters.sqlite import conflict_rows, derived_rows, event_log, rows
from hlmem.adapters.sqlite.db import translated as _translated
from hlmem.adapters.sqlite.projector import Projector
from hlmem.domain.derived import DerivedState, is_derived_id
from hlmem.domain.slots import normalize_predicate
from hlmem.domain.state import ClaimState, ConflictState, ObservationState, subject_key


class SQLiteClaims:
    """Claims, observations, conflicts and derived items read from their projection tables; a read
    inside a write transaction (``_depth``) seeds the projector with the claims it loads."""

    # Set by SQLiteStorage.__init__ (``_depth`` is its property).
    _con: apsw.Connection
    _lock: threading.RLock
    _projector: Projector
    _depth: int

    def get_claims(self, ids: Sequence[str]) -> dict[str, ClaimState]:
        with self._lock, _translated("reading claims"):
            loaded = rows.load_claims(self._con, ids)
            if self._depth:
                # Read inside the write transaction: the projector may reuse these states (as
                # slots_claims does), so a decide-then-append does not load each claim twice.
                self._projector.seed(loaded.values())
            return loaded

    def get_observations(self, ids: Sequence[str]) -> dict[str, ObservationState]:
        with self._lock, _translated("reading events"):
            return rows.load_observations(self._con, ids)

    def slot_claims(self, slot_key: str) -> list[ClaimState]:
        with self._lock, _translated("reading a slot"):
            ids = [r[0] for r in self._con.execute("SELECT claim_id FROM claims WHERE slot_key = ?", (slot_key,))]
            return list(rows.load_claims(self._con, ids).values())

    def slots_claims(self, slot_keys: Sequence[str]) -> dict[str, list[ClaimState]]:
        with self._lock, _translated("reading slots"):
            keys = list(dict.fromkeys(slot_keys))
            out: dict[str, list[ClaimState]] = {k: [] for k in keys}
            ids: list[str] = []
            for start in range(0, len(keys), 500):
                chunk = keys[start:start + 500]
                marks = ",".join("?" * len(chunk))
                ids += [r[0] for r in self._con.execute(
                    f"SELECT claim_id FROM claims WHERE slot_key IN ({marks})", chunk)]
            loaded = rows.load_claims(self._con, ids)
            if self._depth:
                # Read inside the write transaction: the projector may reuse these states.
                self._projector.seed(loaded.values())
            for claim in loaded.values():
                out.setdefault(claim.slot_key, []).append(claim)
            return out

    def subject_claims(self, namespace: str, subject: str, predicate: str | None = None) -> list[ClaimState]:
        with self._lock, _translated("reading claims"):
            if predicate is None:
                cur = self._con.execute(
                    "SELECT claim_id FROM claims WHERE namespace = ? AND subject_key = ?",
                    (namespace, subject_key(subject)),
                )
            else:
                cur = self._con.execute(
                    "SELECT claim_id FROM claims WHERE namespace = ? AND subject_key = ? AND predicate = ?",
                    (namespace, subject_key(subject), normalize_predicate(predicate)),
                )
            return list(rows.load_claims(self._con, [r[0] for r in cur]).values())

    def stored_subjects(self, namespace: str, subjects: Sequence[str]) -> set[str]:
        keys = {s: subject_key(s) for s in dict.fromkeys(subjects)}
        if not keys:
            return set()
        wanted = list(set(keys.values()))
        with self._lock, _translated("reading claims"):
            present = {r[0] for r in self._con.execute(
                f"SELECT DISTINCT subject_key FROM claims WHERE namespace = ? AND subject_key IN "
                f"({','.join('?' * len(wanted))})", (namespace, *wanted))}
        return {s for s, key in keys.items() if key in present}

    def claim_ids(self, namespace: str, *, after: str | None = None, limit: int = 200) -> list[str]:
        with self._lock, _translated("listing claims"):  # walks the primary key in order
            return [r[0] for r in self._con.execute(
                "SELECT claim_id FROM claims WHERE claim_id > ? AND namespace = ? ORDER BY claim_id LIMIT ?",
                (after or "", namespace, limit))]

    def claims_citing(self, event_id: str) -> list[str]:
        with self._lock, _translated("reading evidence"):
            return [r[0] for r in self._con.execute(
                "SELECT claim_id FROM claim_evidence WHERE event_id = ? ORDER BY claim_id", (event_id,))]

    def claims_citing_events(self, event_ids: Sequence[str]) -> dict[str, list[str]]:
        wanted = list(dict.fromkeys(event_ids))
        out: dict[str, list[str]] = {}
        with self._lock, _translated("reading evidence"):
            for start in range(0, len(wanted), 500):
                chunk = wanted[start:start + 500]
                for event_id, claim_id in self._con.execute(
                        f"SELECT event_id, claim_id FROM claim_evidence WHERE event_id IN ({','.join('?' * len(chunk))}) "
                        "ORDER BY event_id, claim_id", chunk):
                    out.setdefault(event_id, []).append(claim_id)
        return out

    def get_conflicts(self, ids: Sequence[str]) -> dict[str, ConflictState]:
        with self._lock, _translated("reading conflicts"):
            return conflict_rows.load_conflicts(self._con, ids)

    def conflicts(self, namespace: str, status: str | None = "open") -> list[ConflictState]:
        with self._lock, _translated("reading conflicts"):
            return conflict_rows.list_conflicts(self._con, namespace, status)

    def counts(self) -> dict[str, int]:
        with self._lock, _translated("counting"):
            out = {"events": event_log.last_position(self._con), **projection_counts(self._con)}
            out.update(derived_rows.counts(self._con))
            return out

    # -- derived items (DerivedReader; adapters/sqlite/derived_rows.py, ADR 0046) -----------------

    def get_derived(self, ids: Sequence[str]) -> dict[str, DerivedState]:
        with self._lock, _translated("reading derived items"):
            return derived_rows.load(self._con, [i for i in ids if is_derived_id(i)])

    def derived_citing(self, claim_ids: Sequence[str]) -> dict[str, DerivedState]:
        with self._lock, _translated("reading derived items"):
            return derived_rows.citing(self._con, claim_ids)

    def derived_items(self, namespace: str, *, subject: str | None = None,
                      kind: str | None = None) -> list[DerivedState]:
        with self._lock, _translated("reading derived items"):
            return derived_rows.items(self._con, namespace, subject, kind)
