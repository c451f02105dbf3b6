"""The PostgreSQL store's side roles: the tombstone ledger, the embedding cache and access telemetry.

Each takes the store's :class:`~hlmem.adapters.postgres.db.PgDb` (never the store), as the SQLite
feature modules take their ``Db``. Accesses are buffered in process memory like SQLite's (written
at 4,096 claims, after five minutes, before a lifecycle selection and at close) and upserted with
``GREATEST``/addition, so concurrent writers of the same claim add up instead of overwriting.
Lifecycle candidates are selected in SQL from the claims' filter columns with the SQLite adapter's
formulas and slack: a superset of what is due, never a miss (the caller decides with the pure
functions).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Collection, Sequence
from datetime import datetime

from hlmem.adapters.activity import (
    add_access,
    archived_terms,
    check_kind,
    lifecycle_params,
    match_score,
    merge,
    rank_archived,
)
from hlmem.adapters.postgres.db import PgDb, translated
from hlmem.application.ports import Candidate
from hlmem.domain.errors import StorageError, ValidationError
from hlmem.domain.lifecycle import Activity, LifecyclePolicy
from hlmem.domain.redaction import REFUSED_SALT, Tombstone, check_salt
from hlmem.domain.state import ClaimStatus
from hlmem.domain.time import format_timestamp, from_micros, parse_timestamp, to_micros

SALT_KEY = "tombstone_salt"
FLUSH_CLAIMS = 4_096
FLUSH_SECONDS = 300.0
_COLUMNS = "fingerprint, kind, stream_id, forgotten_at, forget_id"


def _tombstone(row: Sequence) -> Tombstone:
    return Tombstone(row[0], row[1], row[2], parse_timestamp(row[3], field="forgotten_at"), row[4])


class PostgresTombstoneLedger:
    """The ``TombstoneLedger`` port on the ``tombstones`` table; the salt is made with the schema."""

    def __init__(self, db: PgDb) -> None:
        self._db = db
        self._salt: bytes | None = None

    def salt(self) -> bytes:
        if self._salt is None:
            value = self._db.meta(SALT_KEY)
            if value is None:
                raise StorageError("the store has no tombstone salt (a damaged meta table?)")
            salt = bytes.fromhex(value)
            if self._db.depth:
                return salt  # a transaction may still change it (adopt_salt) or roll it back
            self._salt = salt
        return self._salt

    def adopt_salt(self, salt: bytes) -> None:
        check_salt(salt)
        if salt == self.salt():
            return
        with self._db.transaction():
            if self._db.con.execute("SELECT EXISTS (SELECT 1 FROM tombstones)").fetchone()[0]:
                raise ValidationError(REFUSED_SALT, field="salt")
            self._salt = None
            self._db.con.execute("UPDATE meta SET value = %s WHERE key = %s", (salt.hex(), SALT_KEY))

    def tombstones(self) -> list[Tombstone]:
        with self._db.lock, translated("reading tombstones"):
            return [_tombstone(r) for r in self._db.con.execute(f"SELECT {_COLUMNS} FROM tombstones ORDER BY seq")]

    def add(self, tombstones: Sequence[Tombstone]) -> None:
        if not tombstones:
            return
        with self._db.transaction(), self._db.con.cursor() as cur:
            cur.executemany(f"INSERT INTO tombstones ({_COLUMNS}) VALUES (%s,%s,%s,%s,%s) ON CONFLICT DO NOTHING",
                            [(t.fingerprint, t.kind, t.stream_id, format_timestamp(t.forgotten_at), t.forget_id)
                             for t in tombstones])

    def matching(self, fingerprints: Collection[str]) -> set[str]:
        wanted = sorted({f for f in fingerprints if f})
        if not wanted:
            return set()
        with self._db.lock, translated("reading tombstones"):
            return {r[0] for r in self._db.con.execute(
                "SELECT DISTINCT fingerprint FROM tombstones WHERE fingerprint = ANY(%s)", (wanted,))}

    def of_streams(self, stream_ids: Sequence[str]) -> dict[str, Tombstone]:
        out: dict[str, Tombstone] = {}
        with self._db.lock, translated("reading tombstones"):
            for row in self._db.con.execute(f"SELECT {_COLUMNS} FROM tombstones WHERE stream_id = ANY(%s) "
                                            "ORDER BY seq", (list(dict.fromkeys(stream_ids)),)):
                out.setdefault(row[2], _tombstone(row))
        return out


class PostgresEmbeddingCache:
    """The ``EmbeddingCache`` port on the ``embedding_cache`` table."""

    def __init__(self, db: PgDb) -> None:
        self._db = db

    def get_many(self, model_id: str, hashes: Sequence[str]) -> dict[str, bytes]:
        if not hashes:
            return {}
        with self._db.lock, translated("reading the embedding cache"):
            return {h: bytes(v) for h, v in self._db.con.execute(
                "SELECT content_hash, vec FROM embedding_cache WHERE model = %s AND content_hash = ANY(%s)",
                (model_id, list(hashes)))}

    def put_many(self, model_id: str, items: Sequence[tuple[str, bytes]]) -> None:
        if not items:
            return
        with self._db.transaction(), translated("writing the embedding cache"), self._db.con.cursor() as cur:
            cur.executemany("INSERT INTO embedding_cache (model, content_hash, vec) VALUES (%s,%s,%s) "
                            "ON CONFLICT DO NOTHING", [(model_id, h, v) for h, v in items])


_UPSERT = ("INSERT INTO claim_activity (claim_id, last_access, accesses) SELECT %s, %s, %s "
           "WHERE EXISTS (SELECT 1 FROM claims WHERE claim_id = %s) ON CONFLICT (claim_id) DO UPDATE SET "
           "last_access = GREATEST(claim_activity.last_access, excluded.last_access), "
           "accesses = claim_activity.accesses + excluded.accesses")

_EXPIRE = (
    "SELECT claim_id FROM claims WHERE status = 'active' AND claim_id > %(after)s AND ("
    " (current_valid_to IS NOT NULL AND current_valid_to <= %(now)s)"
    " OR (open_valid_from IS NOT NULL AND predicate = ANY(%(plans)s) AND open_valid_from <= %(plan_by)s)"
    " OR (open_valid_from IS NOT NULL AND scope = 'temporal' AND open_valid_from + %(ttl)s::double precision"
    "     * (0.5 + LEAST(GREATEST(importance, 0.0), 1.0)) <= %(slack)s)"
    ") ORDER BY claim_id LIMIT %(limit)s")

_ARCHIVE = (
    "SELECT c.claim_id FROM claims c LEFT JOIN claim_activity a ON a.claim_id = c.claim_id "
    "WHERE NOT c.archived AND c.status <> 'forgotten' AND c.claim_id > %(after)s AND "
    "GREATEST(c.recorded_at, coalesce(a.last_access, c.recorded_at))"
    " + (CASE WHEN c.scope = 'temporal' THEN %(h_temporal)s::double precision"
    "         WHEN c.predicate = ANY(%(identity)s) THEN %(h_identity)s::double precision"
    "         ELSE %(h_permanent)s::double precision END)"
    "   * GREATEST(0.0, ln(GREATEST(LEAST(c.importance, 1.0), 1e-9) / %(floor)s) / ln(2.0))"
    " + %(grace)s::double precision <= %(slack)s "
    "ORDER BY c.claim_id LIMIT %(limit)s")



class PostgresActivity:
    """The ``ActivityLog`` methods of the PostgreSQL store (which delegates to this)."""

    def __init__(self, db: PgDb) -> None:
        self._db = db
        self._pending: dict[str, tuple[datetime, int]] = {}
        self._since: float | None = None
        self._guard = threading.Lock()

    def record_access(self, claim_ids: Sequence[str], at: datetime) -> None:
        if not claim_ids:
            return
        with self._guard:
            add_access(self._pending, claim_ids, at)
            if self._since is None:
                self._since = time.monotonic()
            due = len(self._pending) >= FLUSH_CLAIMS or time.monotonic() - self._since >= FLUSH_SECONDS
        if due:
            self.flush()

    def flush(self) -> int:
        with self._guard:
            taken, self._pending, self._since = self._pending, {}, None
        if not taken:
            return 0
        rows = [(cid, to_micros(at), n, cid) for cid, (at, n) in sorted(taken.items())]
        try:
            with self._db.transaction(), self._db.con.cursor() as cur:
                cur.executemany(_UPSERT, rows)
        except StorageError:
            with self._guard:
                for cid, (at, n) in taken.items():
                    old = self._pending.get(cid)
                    self._pending[cid] = (at, n) if old is None else (max(old[0], at), old[1] + n)
                self._since = self._since or time.monotonic()
            return 0
        return len(rows)

    def activity(self, claim_ids: Sequence[str]) -> dict[str, Activity]:
        ids = list(dict.fromkeys(claim_ids))
        with self._db.lock:
            stored = {cid: Activity(from_micros(last), n) for cid, last, n in self._db.con.execute(
                "SELECT claim_id, last_access, accesses FROM claim_activity WHERE claim_id = ANY(%s)", (ids,))}
        with self._guard:
            pending = {cid: self._pending[cid] for cid in ids if cid in self._pending}
        if pending:
            with self._db.lock:
                known = {r[0] for r in self._db.con.execute("SELECT claim_id FROM claims WHERE claim_id = ANY(%s)",
                                                            (list(pending),))}
            pending = {cid: v for cid, v in pending.items() if cid in known}
        out = {}
        for cid in ids:
            found = merge(stored.get(cid), pending.get(cid))
            if found is not None:
                out[cid] = found
        return out

    def lifecycle_candidates(self, kind: str, *, now: datetime, policy: LifecyclePolicy, after: str = "",
                             limit: int = 500) -> list[str]:
        check_kind(kind)
        if self._pending:
            self.flush()
        sql = _EXPIRE if kind == "expire" else _ARCHIVE
        params = lifecycle_params(kind, now=now, policy=policy, after=after, limit=limit, names=sorted)
        with self._db.lock:
            return [r[0] for r in self._db.con.execute(sql, params)]

    def archived_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]:
        terms = archived_terms(query)
        if not terms:
            return []
        from hlmem.adapters.postgres.states import load_claim

        with self._db.lock:
            rows = self._db.con.execute("SELECT state FROM claims WHERE namespace = %s AND archived AND status <> %s",
                                        (namespace, ClaimStatus.FORGOTTEN.value)).fetchall()
        claims = [load_claim(doc) for (doc,) in rows]
        return rank_archived([(match_score(terms, c.subject, c.predicate, c.value, c.qualifiers), c.claim_id)
                              for c in claims], limit)


__all__ = ["PostgresActivity", "PostgresEmbeddingCache", "PostgresTombstoneLedger"]
