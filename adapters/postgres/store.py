"""``PostgresStorage``: the Storage port on a PostgreSQL database with pgvector (issue 18, ADR 0048).

Events and their projections are written in one transaction (:mod:`.projection`); every other
role lives beside them in the same database: tombstones, activity and the embedding cache
(:mod:`.governance`), jobs (:mod:`.jobs`), full text and vectors (:mod:`.search`). Many processes
may use one database at once: readers never wait, job leasing skips locked rows, and the only
serialisation is the log's own (the append's advisory lock, held until commit) and the slots a
write transaction reads (one advisory lock per slot, so two writers deciding about the same slot
take turns while writers of other slots go on).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime

from hlmem.adapters.log_window import window_rows
from hlmem.adapters.postgres import derived, experience, postings, search
from hlmem.adapters.postgres.db import PgDb, connect, ensure_schema, redacted_url, translated
from hlmem.adapters.postgres.experience import PostgresExperience
from hlmem.adapters.postgres.governance import PostgresActivity, PostgresEmbeddingCache, PostgresTombstoneLedger
from hlmem.adapters.postgres.projection import append_events, load_claims, load_conflicts, load_observations
from hlmem.adapters.postgres.store_reads import ForgetReads
from hlmem.adapters.serialization import UPCASTERS, decode, stored_tags
from hlmem.adapters.sql_counts import projection_counts
from hlmem.adapters.text import segment
from hlmem.adapters.vectors.fit import check_index_vectors, ensure_dim
from hlmem.application.ports import Candidate, IndexEntry, StoredEvent
from hlmem.domain.errors import StorageError
from hlmem.domain.events import DomainEvent
from hlmem.domain.lifecycle import Activity, LifecyclePolicy
from hlmem.domain.queries import holds
from hlmem.domain.slots import normalize_predicate
from hlmem.domain.state import ClaimState, ConflictState, ObservationState, subject_key

READ_CHUNK = 2_000
#: The two-int advisory lock space of slots (the first int); the second is the slot key's hash.
SLOT_LOCKS = 1848


class PostgresStorage(ForgetReads, derived.DerivedReads):
    """One PostgreSQL database holding the log, its projections, the search index and the caches.

    One instance serves one thread at a time (a lock guards its connection); vector search runs on
    a second connection of its own.
    """

    embedding_cache: PostgresEmbeddingCache
    tombstones: PostgresTombstoneLedger
    experience: PostgresExperience

    def __init__(self, url: str) -> None:
        self.path = url
        self.url = url
        con = connect(url)
        try:
            # Layout 1 -> 2: list every item (ADR 0051); 2 -> 3: index English stems (ADR 0058).
            ensure_schema(con, {"1": postings.rebuild, "2": postings.add_stems, "3": experience.upgrade})
            from pgvector.psycopg import register_vector

            register_vector(con)
        except BaseException:
            con.close()
            raise
        self.db = PgDb(con, undone=self._undone)
        self._con = con
        self._lock = self.db.lock
        self._searcher = search.VectorSearcher(url)
        self._model: tuple[str, int] | None = None
        self.embedding_cache = PostgresEmbeddingCache(self.db)
        self.tombstones = PostgresTombstoneLedger(self.db)
        self._activity = PostgresActivity(self.db)
        #: The experience channel's projection (ADR 0045), written by each append's transaction.
        self.experience = PostgresExperience(self.db)

    def __repr__(self) -> str:
        return f"PostgresStorage({redacted_url(self.url)})"

    # -- transactions ---------------------------------------------------------------------------

    def transaction(self) -> AbstractContextManager[None]:
        return self.db.transaction()

    def _undone(self) -> None:
        self._model = None

    def close(self) -> None:
        with self._lock:
            try:
                self._activity.flush()
            finally:
                self._searcher.close()
                self._con.close()

    # -- event log ------------------------------------------------------------------------------

    def append(self, events: Sequence[DomainEvent], index: Mapping[str, IndexEntry] | None = None, *,
               payloads: Mapping[str, str] | None = None) -> int:
        index = index or {}
        check_index_vectors(index, self.vector_model)
        if not events:
            return self.last_position()
        with self.transaction(), translated("appending events"):
            first, _vectors = append_events(self._con, events, index, payloads)
        return first + len(events) - 1

    def append_copies(self, events: Sequence[DomainEvent], index: Mapping[str, IndexEntry] | None = None,
                      payloads: Mapping[str, str | None] | None = None) -> int:
        kept = {eid: text for eid, text in (payloads or {}).items() if text is not None}
        return self.append(events, index, payloads=kept)

    def prepare_index(self, texts: Sequence[str]) -> None:
        segment.prepare(texts)

    def read(self, after: int = 0, limit: int | None = None) -> Iterator[StoredEvent]:
        for stored, _payload in self.read_stored(after, limit):
            yield stored

    def read_stored(self, after: int = 0, limit: int | None = None) -> Iterator[tuple[StoredEvent, str | None]]:
        remaining, cursor = limit, after
        while remaining is None or remaining > 0:
            size = READ_CHUNK if remaining is None else min(READ_CHUNK, remaining)
            with self._lock, translated("reading the log"):
                rows = self._con.execute(
                    "SELECT e.position, e.event_id, e.stream_id, e.version, e.tag, e.recorded_at, e.namespace, "
                    "e.schema_version, p.payload FROM events e LEFT JOIN event_payloads p ON p.position = e.position "
                    "WHERE e.position > %s ORDER BY e.position LIMIT %s", (cursor, size)).fetchall()
            if not rows:
                return
            for row in rows:
                yield StoredEvent(row[0], _decode(row)), (None if row[4] in UPCASTERS else row[8])
            cursor = rows[-1][0]
            if remaining is not None:
                remaining -= len(rows)

    def read_types(self, types: Collection[type[DomainEvent]], *, after: int = 0, before: int | None = None,
                   limit: int | None = None, newest_first: bool = False) -> Iterator[StoredEvent]:
        tags = stored_tags(types)
        if not tags or (limit is not None and limit <= 0):
            return
        order = "DESC" if newest_first else "ASC"

        def fetch(low: int, high: int, size: int) -> list:
            with self._lock, translated("reading the log"):
                return self._con.execute(
                    "SELECT e.position, e.event_id, e.stream_id, e.version, e.tag, e.recorded_at, e.namespace, "
                    "e.schema_version, p.payload FROM events e LEFT JOIN event_payloads p ON p.position = e.position "
                    f"WHERE e.tag = ANY(%s) AND e.position > %s AND e.position < %s ORDER BY e.position {order} "
                    "LIMIT %s", (tags, low, high, size)).fetchall()

        for row in window_rows(fetch, after=after, before=before, limit=limit, newest_first=newest_first,
                               chunk=READ_CHUNK):
            yield StoredEvent(row[0], _decode(row))

    def store_id(self) -> str:
        found = self.meta("store_id")
        if found is None:
            raise StorageError(f"{redacted_url(self.url)} has no store identity (a damaged meta table?)")
        return found

    def last_position(self) -> int:
        with self._lock, translated("reading the log"):
            return self._con.execute("SELECT coalesce(max(position), 0) FROM events").fetchone()[0]

    def stream_version(self, stream_id: str) -> int:
        with self._lock, translated("reading the log"):
            return self._con.execute("SELECT coalesce(max(version), 0) FROM events WHERE stream_id = %s",
                                     (stream_id,)).fetchone()[0]

    def stream_versions(self) -> dict[str, int]:
        with self._lock, translated("reading the log"):
            return dict(self._con.execute("SELECT stream_id, max(version) FROM events GROUP BY stream_id").fetchall())

    def projection_fingerprints(self, stream_ids: Sequence[str]) -> dict[str, object]:
        """The state documents themselves (equal documents decode to equal states)."""
        ids = list(dict.fromkeys(stream_ids))
        out: dict[str, object] = {}
        with self._lock, translated("reading projections"):
            for table, key in (("claims", "claim_id"), ("observations", "event_id"), ("conflicts", "conflict_id")):
                for row in self._con.execute(f"SELECT {key}, state FROM {table} WHERE {key} = ANY(%s)", (ids,)):
                    out[row[0]] = (f"postgres.{table}", row[1])
            out.update(derived.fingerprints(self._con, [i for i in ids if i.startswith("dv_")]))
        return out

    # -- projection queries ---------------------------------------------------------------------

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

    # -- search ---------------------------------------------------------------------------------

    def text_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]:
        with self._lock, translated("full-text search"):
            if self.db.depth:  # inside a write transaction: its own view
                return search.text_candidates(self._con, namespace, query, limit)
            # Statistics, lists and items from one snapshot, whatever commits meanwhile.
            with self._con.transaction():
                self._con.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                return search.text_candidates(self._con, namespace, query, limit)

    def vector_candidates(self, namespace: str, vector: bytes, limit: int) -> list[Candidate]:
        found = self.vector_search(namespace, limit)
        return [] if found is None else found(vector)

    def vector_search(self, namespace: str, limit: int) -> Callable[[bytes], list[Candidate]] | None:
        model = self.vector_model()
        if model is None:
            return None
        return self._searcher.search_function(namespace, limit, model[1])

    def visible(self, ids: Sequence[str], valid_at: datetime, known_at: datetime) -> set[str]:
        claims = self.get_claims([i for i in ids if i.startswith("cl_")])
        observations = self.get_observations([i for i in ids if i.startswith("ev_")])
        out = {i for i, c in claims.items() if holds(c, valid_at, known_at)}
        out |= {i for i, o in observations.items()
                if not o.forgotten and o.recorded_at <= known_at and o.occurred_at <= valid_at}
        return out

    def vector_model(self) -> tuple[str, int] | None:
        # Read each time: another process may bind or re-embed (one indexed read of two rows).
        with self._lock, translated("reading metadata"):
            return search.vector_model(self._con)

    def bind_vector_model(self, model_id: str, dim: int) -> None:
        with self._lock, translated("writing metadata"):
            search.bind_vector_model(self._con, model_id, dim)

    def items(self) -> Iterator[tuple[str, str]]:
        with self._lock, translated("listing items"):
            rows = self._con.execute(f"SELECT i.item_id, i.kind FROM items i {search.SEARCHABLE} "
                                     "ORDER BY i.item_key").fetchall()
        yield from ((r[0], r[1]) for r in rows)

    def replace_vectors(self, model_id: str, dim: int, vectors: Sequence[tuple[str, bytes]]) -> int:
        for _, vec in vectors:
            ensure_dim(vec, dim)
        with self.transaction(), translated("replacing vectors"):
            # TRUNCATE, not DELETE: the new dimension's index must not meet the old rows' dead versions.
            self._con.execute("TRUNCATE vectors")
            search.ensure_hnsw(self._con, dim)
            with self._con.cursor() as cur:
                cur.executemany("INSERT INTO vectors (item_key, namespace, vec) SELECT item_key, namespace, "
                                "%s::vector FROM items WHERE item_id = %s",
                                [(search.literal(vec), item_id) for item_id, vec in vectors])
            self._con.execute("INSERT INTO meta (key, value) VALUES ('vector_model', %s), ('vector_dim', %s) "
                              "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (model_id, str(dim)))
        with self._lock:
            return self._con.execute("SELECT count(*) FROM vectors").fetchone()[0]

    # -- access telemetry and lifecycle (governance.PostgresActivity) -----------------------------

    def record_access(self, claim_ids: Sequence[str], at: datetime) -> None:
        self._activity.record_access(claim_ids, at)

    def flush_activity(self) -> int:
        return self._activity.flush()

    def activity(self, claim_ids: Sequence[str]) -> dict[str, Activity]:
        with translated("reading activity"):
            return self._activity.activity(claim_ids)

    def lifecycle_candidates(self, kind: str, *, now: datetime, policy: LifecyclePolicy, after: str = "",
                             limit: int = 500) -> list[str]:
        with translated("selecting lifecycle candidates"):
            return self._activity.lifecycle_candidates(kind, now=now, policy=policy, after=after, limit=limit)

    def archived_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]:
        with translated("searching archived claims"):
            return self._activity.archived_candidates(namespace, query, limit)

    def meta(self, key: str) -> str | None:
        return self.db.meta(key)

    def set_meta(self, key: str, value: str) -> None:
        with translated("writing metadata"):
            self.db.set_meta(key, value)


def _decode(row: Sequence) -> DomainEvent:
    return decode(row[4], {"event_id": row[1], "stream_id": row[2], "version": row[3], "recorded_at": row[5],
                           "namespace": row[6], "schema_version": row[7]}, row[8])
