"""The event log of :class:`~hlmem.adapters.sqlite.store.SQLiteStorage` (EventLog, StoreIdentity): a mix-in.

``append`` writes the events, their projections, the search index and the conversational context
in one transaction; reads decode the envelopes and payloads (:mod:`.event_log` holds the SQL).
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterator, Mapping, Sequence

import apsw

from hlmem.adapters.log_window import window_rows
from hlmem.adapters.serialization import decode, stored_tags
from hlmem.adapters.sqlite import context, derived_rows, event_log, projection_compare, search
from hlmem.adapters.sqlite.db import translated as _translated
from hlmem.adapters.sqlite.experience import SQLiteExperience
from hlmem.adapters.sqlite.projector import Projector
from hlmem.adapters.sqlite.relations import SQLiteRelations
from hlmem.adapters.vectors.fit import check_index_vectors
from hlmem.application.ports import IndexEntry, StoredEvent
from hlmem.domain.derived import index_namespace, is_derived_id
from hlmem.domain.errors import StorageError
from hlmem.domain.events import DomainEvent, ObservationRecorded
from hlmem.domain.reducers import DERIVED, item_kind, replaces_item


class SQLiteLog:
    """EventLog and StoreIdentity over the store's connection; ``append`` also needs its
    ``transaction()``, ``vector_model()`` (:class:`~.store_search.SQLiteSearch`) and ``meta()``."""

    # Set by SQLiteStorage.__init__.
    path: str
    _con: apsw.Connection
    _lock: threading.RLock
    _projector: Projector
    _vectors: search.VectorCache
    _fts_written: bool
    experience: SQLiteExperience
    relations: SQLiteRelations

    def append(self, events: Sequence[DomainEvent], index: Mapping[str, IndexEntry] | None = None, *,
               payloads: Mapping[str, str] | None = None) -> int:
        """Append and project ``events`` atomically; index new items with ``index`` entries.

        :param payloads: already-encoded payloads by event id (replay copies stored ones as they
            are instead of encoding them again).
        """
        index = index or {}
        check_index_vectors(index, self.vector_model)
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
            self.relations.prefetch(events)
            self._projector.prefetch(events)
            items: dict[str, tuple] = {}
            drops: set[str] = set()
            for offset, event in enumerate(events):
                self._projector.project(event, first + offset)
                self.experience.project(event)
                self.relations.project(event)
                if dropped := Projector.drops_item(event):
                    items.pop(dropped, None)
                    drops.add(dropped)
                item = Projector.creates_item(event)
                if item and replaces_item(event):
                    # A derived item's rebuild: its earlier row goes first (ADR 0084).
                    items.pop(item, None)
                    drops.add(item)
                entry = index.get(item) if item else None
                if item and entry is not None:
                    kind = item_kind(item)
                    namespace = index_namespace(event.namespace) if kind == DERIVED else event.namespace
                    items[item] = (item, kind, namespace, entry.text, entry.vector)
            self._projector.flush()
            self.experience.flush()
            self.relations.flush()
            if drops and search.drop_items(self._con, sorted(drops)):
                self._vectors.invalidate()
            indexed = search.index_items(self._con, list(items.values()))
            self._fts_written = self._fts_written or bool(indexed)  # merged at the end (ADR 0088)
            # The conversational context: pairs for the new turns, new pairs around dropped ones.
            context.add(self._con, [(e, *indexed[e.stream_id]) for e in events
                                    if isinstance(e, ObservationRecorded) and e.stream_id in indexed])
            context.refresh(self._con, [i for i in sorted(drops) if i.startswith("ev_")])
        return first + len(events) - 1

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
        tags = stored_tags(types)
        if not tags or (limit is not None and limit <= 0):
            return
        marks = ",".join("?" * len(tags))
        order = "DESC" if newest_first else "ASC"

        def fetch(low: int, high: int, size: int) -> list:
            with self._lock, _translated("reading the log"):
                return self._con.execute(
                    "SELECT e.position, e.event_id, e.stream_id, e.version, e.tag, e.recorded_at, e.namespace, "
                    "e.schema_version, p.payload FROM events e LEFT JOIN event_payloads p ON p.position = e.position "
                    f"WHERE e.tag IN ({marks}) AND e.position > ? AND e.position < ? ORDER BY e.position {order} "
                    "LIMIT ?", (*tags, low, high, size)).fetchall()

        for row in window_rows(fetch, after=after, before=before, limit=limit, newest_first=newest_first,
                               chunk=event_log.READ_CHUNK):
            yield StoredEvent(row[0], decode(row[4], {
                "event_id": row[1], "stream_id": row[2], "version": row[3], "recorded_at": row[5],
                "namespace": row[6], "schema_version": row[7]}, row[8]))

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
        out.update(self.relations.fingerprints(stream_ids))
        return out

    def identical_projections(self, other: object) -> frozenset[str] | None:
        """Streams whose projection rows are identical here and in ``other``, compared inside
        SQLite (:mod:`.projection_compare`); None unless ``other`` is another SQLite store file."""
        if not isinstance(other, SQLiteLog) or other is self or other.path in ("", ":memory:"):
            return None
        with self._lock, _translated("comparing projections"):
            return projection_compare.identical_streams(self._con, other.path)


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
