"""``SQLiteStorage``: the Storage port on one SQLite file (APSW, WAL), events and projections in one transaction."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path

import apsw

from hlmem.adapters.serialization import TAGS, UPCASTERS, decode
from hlmem.adapters.sqlite import conflict_rows, context, derived_rows, erasure, event_log, integrity, rows, search
from hlmem.adapters.sqlite.activity import SQLiteActivity
from hlmem.adapters.sqlite.connection import open_connection, optimize_on_close
from hlmem.adapters.sqlite.db import Db
from hlmem.adapters.sqlite.experience import SQLiteExperience
from hlmem.adapters.sqlite.db import translated as _translated
from hlmem.adapters.sqlite.migrations import migrate
from hlmem.adapters.sqlite.projector import Projector
from hlmem.adapters.sqlite.tombstones import SQLiteTombstoneLedger
from hlmem.adapters.text import segment
from hlmem.application.ports import Candidate, IndexEntry, StoredEvent
from hlmem.domain.derived import DerivedState, is_derived_id
from hlmem.domain.errors import StorageError
from hlmem.domain.events import DomainEvent, ObservationRecorded
from hlmem.domain.lifecycle import Activity, LifecyclePolicy
from hlmem.domain.slots import normalize_predicate
from hlmem.domain.state import ClaimState, ConflictState, ObservationState, subject_key
from hlmem.domain.time import UTC


#: How long closing waits for another writer to write this connection's buffered access telemetry,
#: in milliseconds: a reader's close must not wait the whole busy timeout (ADR 0024).
CLOSE_FLUSH_WAIT_MS = 2_000


class SQLiteStorage:
    """One SQLite file holding the log, its projections, the search index and the embedding cache.

    One instance serves one thread at a time (a lock guards it); other processes may open the
    same file: writers serialise on SQLite's lock (``BEGIN IMMEDIATE``) and wait for it up to the
    busy timeout, readers never wait (WAL). Lock-free work is done before a write transaction
    (:meth:`prepare_index`), so the lock is held for SQL only (ADR 0024).
    """

    # Declared on the class so the plugin registry sees the whole Storage port before an instance exists.
    embedding_cache: SQLiteEmbeddingCache
    tombstones: SQLiteTombstoneLedger

    def __init__(self, path: str | Path, *, synchronous: str = "FULL") -> None:
        self.path = str(path)
        with _translated(f"opening {self.path}"):
            self._con = open_connection(self.path, synchronous=synchronous)
            migrate(self._con, datetime.now(UTC).isoformat())
        #: The connection, its lock and transaction depth, shared with the feature modules.
        self.db = Db(self._con, undone=self._undone, ending=self._ending)
        self._lock = self.db.lock
        self._projector = Projector(self._con)
        self._vectors = search.VectorCache()
        self._doc_freq = search.DocFrequencies()
        self._context_freq = search.DocFrequencies(context.VOCAB)
        self._speakers: tuple[tuple, frozenset[str]] | None = None
        self._model: tuple[str, int] | None = None
        self._data_version = -1
        self.embedding_cache = SQLiteEmbeddingCache(self.db)
        self.tombstones = SQLiteTombstoneLedger(self.db)
        #: The experience channel's projection (ADR 0045), written in each append's transaction.
        self.experience = SQLiteExperience(self.db)
        self._activity = SQLiteActivity(self.db)
        self._finish_pending_erasure()

    # -- transactions ---------------------------------------------------------------------------

    def transaction(self) -> AbstractContextManager[None]:
        """A write transaction (``BEGIN IMMEDIATE``); nested calls join the outer one (:class:`Db`)."""
        return self.db.transaction()

    @property
    def _depth(self) -> int:
        return self.db.depth

    def _undone(self) -> None:
        # A rolled-back write (or a failed commit): what the caches took from it is not true.
        self._projector.reset()
        self.experience.reset()
        self._vectors.invalidate()
        self._model = None

    def _ending(self) -> None:
        self._projector.reset()
        self.experience.reset()

    @property
    def connection(self) -> apsw.Connection:
        """The raw connection (adapter-internal use: backup, benchmarks)."""
        return self._con

    def close(self) -> None:
        """Write pending access telemetry, optimise query statistics (if this connection wrote) and
        close the file. Neither waits long for another process's write lock (ADR 0024)."""
        with self._lock:
            self._activity.flush(busy_ms=CLOSE_FLUSH_WAIT_MS)
            optimize_on_close(self._con)
            self._con.close()

    # -- event log ------------------------------------------------------------------------------

    def append(self, events: Sequence[DomainEvent], index: Mapping[str, IndexEntry] | None = None, *,
               payloads: Mapping[str, str] | None = None) -> int:
        """Append and project ``events`` atomically; index new items with ``index`` entries.

        :param payloads: already-encoded payloads by event id (replay copies stored ones as they
            are instead of encoding them again).
        """
        index = index or {}
        model = None
        if any(entry.vector is not None for entry in index.values()):
            model = self.vector_model()
            if model is None:
                raise StorageError("bind_vector_model() must be called before storing vectors")
            for entry in index.values():
                if entry.vector is not None:
                    search.ensure_dim(entry.vector, model[1])
        if not events:
            return self.last_position()
        with self.transaction(), _translated("appending events"):
            versions: dict[str, int] = {}
            for event in events:
                previous = versions.get(event.stream_id)
                if previous is None:
                    # A first event needs no look-up: UNIQUE (stream_id, version) refuses a taken id.
                    previous = 0 if event.version == 1 else event_log.stream_version(self._con, event.stream_id)
                event_log.check_version(event, previous)
                versions[event.stream_id] = event.version
            # One executemany per table: positions are assigned here, inside the write lock.
            first = event_log.insert_events(self._con, events, payloads)
            items: dict[str, tuple] = {}
            drops: set[str] = set()
            for offset, event in enumerate(events):
                self._projector.project(event, first + offset)
                self.experience.project(event)
                if dropped := Projector.drops_item(event):
                    items.pop(dropped, None)
                    drops.add(dropped)
                item = Projector.creates_item(event)
                entry = index.get(item) if item else None
                if item and entry is not None:
                    kind = "event" if item.startswith("ev_") else "claim"
                    items[item] = (item, kind, event.namespace, entry.text, entry.vector)
            self._projector.flush()
            self.experience.flush()
            if drops and search.drop_items(self._con, sorted(drops)):
                self._vectors.invalidate()
            indexed = search.index_items(self._con, list(items.values()))
            # The conversational context: pairs for the new turns, new pairs around dropped ones.
            context.add(self._con, [(e, *indexed[e.stream_id]) for e in events
                                    if isinstance(e, ObservationRecorded) and e.stream_id in indexed])
            context.refresh(self._con, [i for i in sorted(drops) if i.startswith("ev_")])
        return first + len(events) - 1

    def prepare_index(self, texts: Sequence[str]) -> None:
        """Segment ``texts`` and load the segmenter now, before a write transaction indexes them.

        Loading jieba's dictionary takes 1-3.5 s on a loaded machine; done inside ``BEGIN
        IMMEDIATE`` it held every other writer back that long. Segmentations are cached, so the
        transaction's own indexing finds them ready. A hint: skipping it changes no result.
        """
        segment.prepare(texts)

    def read(self, after: int = 0, limit: int | None = None) -> Iterator[StoredEvent]:
        """Events in log order after position ``after``."""
        with _translated("reading the log"):
            yield from event_log.read_events(self._con, after, limit)

    def read_stored(self, after: int = 0, limit: int | None = None) -> Iterator[tuple[StoredEvent, str | None]]:
        """Events in log order with their payload text as stored (None: erased or upcast)."""
        with _translated("reading the log"):
            yield from event_log.read_stored(self._con, after, limit)

    def read_types(self, types: Collection[type[DomainEvent]], *, after: int = 0, before: int | None = None,
                   limit: int | None = None, newest_first: bool = False) -> Iterator[StoredEvent]:
        """Events of the given types between ``after`` and ``before`` (exclusive), in log order
        or newest first. A scan of the envelopes by tag (no index: appends stay cheap; the audit
        reads this rarely — ADR 0016)."""
        tags = _tags_of(types)
        if not tags or (limit is not None and limit <= 0):
            return
        marks = ",".join("?" * len(tags))
        order = "DESC" if newest_first else "ASC"
        low, high, remaining = after, before, limit
        while remaining is None or remaining > 0:
            size = event_log.READ_CHUNK if remaining is None else min(event_log.READ_CHUNK, remaining)
            with self._lock, _translated("reading the log"):
                found = self._con.execute(
                    "SELECT e.position, e.event_id, e.stream_id, e.version, e.tag, e.recorded_at, e.namespace, "
                    "e.schema_version, p.payload FROM events e LEFT JOIN event_payloads p ON p.position = e.position "
                    f"WHERE e.tag IN ({marks}) AND e.position > ? AND e.position < ? ORDER BY e.position {order} "
                    "LIMIT ?", (*tags, low, high if high is not None else 2 ** 62, size)).fetchall()
                events = [StoredEvent(row[0], decode(row[4], {
                    "event_id": row[1], "stream_id": row[2], "version": row[3], "recorded_at": row[5],
                    "namespace": row[6], "schema_version": row[7]}, row[8])) for row in found]
            yield from events
            if len(found) < size:
                return
            if newest_first:
                high = found[-1][0]
            else:
                low = found[-1][0]
            if remaining is not None:
                remaining -= len(found)

    def store_id(self) -> str:
        """This store's identity: random, made once (migration ``0010_store_identity``); backups
        carry it and restore compares it."""
        found = self.meta("store_id")
        if found is None:
            raise StorageError(f"{self.path} has no store identity (a damaged meta table?)")
        return found

    def append_copies(self, events: Sequence[DomainEvent], index: Mapping[str, IndexEntry] | None = None,
                      payloads: Mapping[str, str | None] | None = None) -> int:
        """``append`` for events copied from another log: stored payload texts are kept verbatim."""
        kept = {eid: text for eid, text in (payloads or {}).items() if text is not None}
        return self.append(events, index, payloads=kept)

    def last_position(self) -> int:
        with self._lock, _translated("reading the log"):
            return event_log.last_position(self._con)

    def stream_version(self, stream_id: str) -> int:
        with self._lock, _translated("reading the log"):
            return event_log.stream_version(self._con, stream_id)

    def stream_versions(self) -> dict[str, int]:
        with self._lock, _translated("reading the log"):
            return event_log.stream_versions(self._con)

    def projection_fingerprints(self, stream_ids: Sequence[str]) -> dict[str, object]:
        """The projection rows of each stream, undecoded: equal rows decode to equal states."""
        with self._lock, _translated("reading projections"):
            out = _projection_rows(self._con, stream_ids)
            out.update(derived_rows.fingerprints(self._con, [i for i in stream_ids if is_derived_id(i)]))
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

    # -- projection queries ---------------------------------------------------------------------

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

    def get_conflicts(self, ids: Sequence[str]) -> dict[str, ConflictState]:
        with self._lock, _translated("reading conflicts"):
            return conflict_rows.load_conflicts(self._con, ids)

    def conflicts(self, namespace: str, status: str | None = "open") -> list[ConflictState]:
        with self._lock, _translated("reading conflicts"):
            return conflict_rows.list_conflicts(self._con, namespace, status)

    def counts(self) -> dict[str, int]:
        with self._lock, _translated("counting"):
            out = {"events": event_log.last_position(self._con)}
            out["observations"] = self._con.execute("SELECT count(*) FROM observations").fetchone()[0]
            for status, n in self._con.execute("SELECT status, count(*) FROM claims GROUP BY status"):
                out[f"claims_{status}"] = n
            out["claims"] = sum(v for k, v in out.items() if k.startswith("claims_"))
            out["vectors"] = self._con.execute("SELECT count(*) FROM vectors").fetchone()[0]
            for status, n in self._con.execute("SELECT status, count(*) FROM conflicts GROUP BY status"):
                out[f"conflicts_{status}"] = n
            out.update(derived_rows.counts(self._con))
            return out

    # -- search ---------------------------------------------------------------------------------

    def text_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]:
        with self._lock, _translated("full-text search"):
            return search.text_candidates(self._con, namespace, query, limit, self._doc_freq)

    def sessions_of(self, event_ids: Sequence[str]) -> dict[str, str]:
        with self._lock, _translated("reading sessions"):
            return search.sessions_of(self._con, event_ids)

    def speakers(self, namespace: str) -> frozenset[str]:
        with self._lock, _translated("reading speakers"):
            state = (self._con.pragma("data_version"), self._con.total_changes(), namespace)
            if self._speakers is None or self._speakers[0] != state:
                self._speakers = (state, search.speakers(self._con, namespace))
            return self._speakers[1]

    def context_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]:
        with self._lock, _translated("context search"):
            return context.candidates(self._con, namespace, query, limit, self._context_freq)

    def vector_candidates(self, namespace: str, vector: bytes, limit: int) -> list[Candidate]:
        search = self.vector_search(namespace, limit)
        return [] if search is None else search(vector)

    def vector_search(self, namespace: str, limit: int) -> Callable[[bytes], list[Candidate]] | None:
        # New vectors are loaded now, under the connection's lock; the search itself reads memory
        # under the cache's own lock, so it can run while another thread uses the connection.
        with self._lock, _translated("vector search"):
            model = self.vector_model()
            if model is None:
                return None
            self._vectors.refresh(self._con, model[1])
        dim = model[1]

        def search(vector: bytes) -> list[Candidate]:
            with _translated("vector search"):
                found = self._vectors.search(namespace, vector, dim, limit)
            if found is None:  # a write dropped the index since: load it again
                return self.vector_candidates(namespace, vector, limit)
            return found

        return search

    def visible(self, ids: Sequence[str], valid_at: datetime, known_at: datetime) -> set[str]:
        with self._lock, _translated("filtering by time"):
            return search.visible(self._con, ids, valid_at, known_at)

    def _check_external_writes(self) -> None:
        """Refresh caches when another connection committed since we last looked (data_version):
        the vector cache then loads only what was added, unless vectors were deleted."""
        version = self._con.pragma("data_version")
        if version != self._data_version:
            self._data_version = version
            self._model = None
            self._vectors.stale()

    def vector_model(self) -> tuple[str, int] | None:
        # Cached: it changes only on bind or reembed (here, or by another connection, which
        # data_version reveals).
        with self._lock:
            self._check_external_writes()
        if self._model is None:
            with self._lock, _translated("reading metadata"):
                self._model = search.vector_model(self._con)
        return self._model

    def bind_vector_model(self, model_id: str, dim: int) -> None:
        with self._lock, _translated("writing metadata"):
            search.bind_vector_model(self._con, model_id, dim)
            self._model = search.vector_model(self._con)

    def items(self) -> Iterator[tuple[str, str]]:
        with self._lock, _translated("listing items"):
            rows = self._con.execute(
                "SELECT i.item_id, i.kind FROM items i "
                "LEFT JOIN claims c ON c.claim_id = i.item_id LEFT JOIN observations o ON o.event_id = i.item_id "
                "WHERE coalesce(c.status, '') != 'forgotten' AND coalesce(o.forgotten, 0) = 0 ORDER BY i.item_key"
            ).fetchall()
        yield from ((r[0], r[1]) for r in rows)

    def replace_vectors(self, model_id: str, dim: int, vectors: Sequence[tuple[str, bytes]]) -> int:
        for _, vec in vectors:
            search.ensure_dim(vec, dim)
        with self.transaction(), _translated("replacing vectors"):
            self._con.execute("DELETE FROM vectors")
            search.bump_vector_epoch(self._con)
            self._con.executemany(
                "INSERT INTO vectors (item_key, vec) SELECT item_key, ? FROM items WHERE item_id = ?",
                [(vec, item_id) for item_id, vec in vectors],
            )
            self._con.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('vector_model', ?), ('vector_dim', ?)",
                              (model_id, str(dim)))
        self._model = None
        self._vectors.invalidate()
        return self._con.execute("SELECT count(*) FROM vectors").fetchone()[0]

    # -- forgetting (ForgetQueries and Erasure; adapters/sqlite/erasure.py, ADR 0014) ------------

    def session_events(self, namespace: str, session_id: str) -> list[str]:
        with self._lock, _translated("reading a session"):
            return erasure.session_events(self._con, namespace, session_id)

    def sessions_events(self, namespace: str, session_ids: Sequence[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {s: [] for s in session_ids}
        if not out:
            return out
        with self._lock, _translated("reading sessions"):
            for session, event_id in self._con.execute(
                    "SELECT session_id, event_id FROM observations WHERE namespace = ? AND session_id IN "
                    f"({','.join('?' * len(out))}) ORDER BY recorded_at, event_id", (namespace, *out)):
                out[session].append(event_id)
        return out

    def events_mentioning(self, namespace: str, name: str) -> list[str]:
        with self._lock, _translated("searching events"):
            return erasure.events_mentioning(self._con, namespace, name)

    def claims_mentioning(self, namespace: str, name: str) -> list[str]:
        with self._lock, _translated("searching claims"):
            return erasure.claims_mentioning(self._con, namespace, name)

    def extractions_citing(self, event_ids: Sequence[str]) -> list[str]:
        with self._lock, _translated("reading extraction records"):
            return erasure.extractions_citing(self._con, event_ids)

    def indexed(self, ids: Sequence[str]) -> dict[str, tuple[bool, bool]]:
        with self._lock, _translated("reading the search index"):
            return erasure.indexed(self._con, ids)

    def erase_payloads(self, stream_ids: Sequence[str], *, reason: str, at: datetime) -> int:
        """Replace the content-bearing payloads of ``stream_ids`` with their redaction (audited)."""
        with self.transaction(), _translated("erasing payloads"):
            return event_log.erase_payloads(self._con, stream_ids, reason=reason, at=at)

    def drop_cached_vectors(self, texts: Sequence[str]) -> int:
        with self.transaction(), _translated("erasing cached vectors"):
            return erasure.drop_cached_vectors(self._con, texts)

    def scrub_jobs(self, event_ids: Sequence[str], fragments: Sequence[str]) -> int:
        with self.transaction(), _translated("scrubbing jobs"):
            return erasure.scrub_jobs(self._con, event_ids, fragments)

    def mark_erasure_pending(self, forget_id: str) -> None:
        """Inside the forget's transaction: its erased bytes stay on disk until ``compact_erased``."""
        with self.transaction(), _translated("marking the erasure pending"):
            erasure.mark_pending(self._con, forget_id)

    def pending_erasure(self) -> str | None:
        """The last forget whose erased bytes may still be on disk (None: none)."""
        with self._lock, _translated("reading metadata"):
            return erasure.pending(self._con)

    def compact_erased(self, *, wait_ms: int = erasure.CHECKPOINT_WAIT_MS) -> dict[str, int]:
        """After a forget commits: drop planner samples, checkpoint and truncate the WAL.

        ``pending`` is 1 when another connection kept the checkpoint from completing (the
        erasure stays recorded and a later call finishes it)."""
        with self._lock, _translated("compacting erased content", self._con):
            if self._depth:
                raise StorageError("compact_erased() runs after the forget's transaction, not inside it")
            return erasure.compact(self._con, wait_ms=wait_ms)

    def _finish_pending_erasure(self) -> None:
        """At open: finish an erasure a forget left pending, without waiting for anyone (a reader's
        open never waits for a writer); if others still hold old pages, a later call finishes it."""
        try:
            if self.pending_erasure() is not None:
                self.compact_erased(wait_ms=0)
        except StorageError:
            pass  # never fail an open for it: the row stays, the worker or maintain retries

    def check_integrity(self, *, full: bool = True) -> None:
        """The file's health check: ``integrity_check`` (``quick_check`` unless ``full``) and the
        full-text indexes' own checks (:mod:`hlmem.adapters.sqlite.integrity`).

        :raises StorageCorrupt: a damaged page, b-tree, index or full-text index.
        """
        with self._lock:
            integrity.check_integrity(self._con, self.path, full=full)

    # -- access telemetry and lifecycle candidates (adapters/sqlite/activity.py, ADR 0015) ----------

    def record_access(self, claim_ids: Sequence[str], at: datetime) -> None:
        """Count an access of each claim (buffered; written within five minutes, or at close)."""
        self._activity.record_access(claim_ids, at)

    def flush_activity(self) -> int:
        """Write buffered accesses now (maintenance calls this before it reads activity)."""
        return self._activity.flush()

    def activity(self, claim_ids: Sequence[str]) -> dict[str, Activity]:
        with _translated("reading activity"):
            return self._activity.activity(claim_ids)

    def lifecycle_candidates(self, kind: str, *, now: datetime, policy: LifecyclePolicy, after: str = "",
                             limit: int = 500) -> list[str]:
        with _translated("selecting lifecycle candidates"):
            return self._activity.lifecycle_candidates(kind, now=now, policy=policy, after=after, limit=limit)

    def archived_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]:
        with _translated("searching archived claims"):
            return self._activity.archived_candidates(namespace, query, limit)

    def meta(self, key: str) -> str | None:
        """A value from the store's metadata table."""
        return self.db.meta(key)

    def set_meta(self, key: str, value: str) -> None:
        """Set a metadata value."""
        with self.transaction(), _translated("writing metadata"):
            self._con.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))


def _tags_of(types: Collection[type[DomainEvent]]) -> list[str]:
    """Every stored tag that decodes to one of ``types`` (old tags through their upcasters too)."""
    wanted = set(types)
    out = []
    for tag in (*TAGS, *UPCASTERS):
        final = tag
        while final in UPCASTERS:
            final = UPCASTERS[final][0]
        if TAGS.get(final) in wanted:
            out.append(tag)
    return sorted(set(out))


def _projection_rows(con: apsw.Connection, stream_ids: Sequence[str]) -> dict[str, object]:
    # A state is decoded from exactly these rows (rows.load_claims, load_observations,
    # conflict_rows.load_conflicts), so two stores with equal rows hold equal states.
    out: dict[str, object] = {}
    claim_ids = list(dict.fromkeys(i for i in stream_ids if i.startswith("cl_")))
    for start in range(0, len(claim_ids), 500):
        chunk = claim_ids[start:start + 500]
        marks = ",".join("?" * len(chunk))
        versions: dict[str, list[tuple]] = {}
        for row in con.execute(f"SELECT claim_id, seq, valid_from, valid_to, recorded_from, recorded_to "
                               f"FROM claim_versions WHERE claim_id IN ({marks}) ORDER BY claim_id, seq", chunk):
            versions.setdefault(row[0], []).append(row)
        evidence: dict[str, list[tuple]] = {}
        for row in con.execute(f"SELECT claim_id, event_id, seq FROM claim_evidence WHERE claim_id IN ({marks}) "
                               "ORDER BY claim_id, seq", chunk):
            evidence.setdefault(row[0], []).append(row)
        for row in con.execute(f"SELECT * FROM claims WHERE claim_id IN ({marks})", chunk):
            out[row[0]] = ("sqlite.claim", row, tuple(versions.get(row[0], ())), tuple(evidence.get(row[0], ())))
    for table, key, prefix in (("observations", "event_id", "ev_"), ("conflicts", "conflict_id", "cf_")):
        ids = list(dict.fromkeys(i for i in stream_ids if i.startswith(prefix)))
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            marks = ",".join("?" * len(chunk))
            for row in con.execute(f"SELECT * FROM {table} WHERE {key} IN ({marks})", chunk):
                out[row[0]] = (f"sqlite.{table}", row)
    return out


class SQLiteEmbeddingCache:
    """The ``EmbeddingCache`` port on the store's ``embedding_cache`` table."""

    def __init__(self, db: Db) -> None:
        self._db = db

    def get_many(self, model_id: str, hashes: Sequence[str]) -> dict[str, bytes]:
        con = self._db.con
        out: dict[str, bytes] = {}
        with self._db.lock, _translated("reading the embedding cache"):
            for start in range(0, len(hashes), 500):
                chunk = list(hashes[start:start + 500])
                marks = ",".join("?" * len(chunk))
                out.update(con.execute(
                    f"SELECT content_hash, vec FROM embedding_cache WHERE model = ? AND content_hash IN ({marks})",
                    (model_id, *chunk),
                ).fetchall())
        return out

    def put_many(self, model_id: str, items: Sequence[tuple[str, bytes]]) -> None:
        if not items:
            return
        with self._db.transaction(), _translated("writing the embedding cache"):
            self._db.con.executemany(
                "INSERT OR IGNORE INTO embedding_cache (model, content_hash, vec) VALUES (?,?,?)",
                [(model_id, h, v) for h, v in items],
            )
