"""The event log of :class:`~hlmem.adapters.postgres.store.PostgresStorage` (EventLog, StoreIdentity): a mix-in.

An append writes its events and their projections in one transaction (:mod:`.projection`), under
the log's advisory lock held until commit; reads go in chunks of :data:`READ_CHUNK` rows.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from hlmem.adapters.log_window import window_rows
from hlmem.adapters.postgres import derived, relations
from hlmem.adapters.postgres.db import PgDb, redacted_url, translated
from hlmem.adapters.postgres.projection import append_events
from hlmem.adapters.serialization import UPCASTERS, decode, stored_tags
from hlmem.adapters.vectors.fit import check_index_vectors
from hlmem.application.ports import IndexEntry, StoredEvent
from hlmem.domain.errors import StorageError
from hlmem.domain.events import DomainEvent

if TYPE_CHECKING:
    import psycopg

READ_CHUNK = 2_000


class PostgresLog:
    """Appends and reads of the ``events`` and ``event_payloads`` tables."""

    # Set by PostgresStorage.__init__.
    _con: psycopg.Connection
    _lock: threading.RLock
    db: PgDb
    url: str
    transaction: Callable[[], AbstractContextManager[None]]
    vector_model: Callable[[], tuple[str, int] | None]
    meta: Callable[[str], str | None]

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

    def identical_projections(self, other: object) -> frozenset[str] | None:
        """None: replay compares PostgreSQL stores through the fingerprints."""
        return None

    def projection_fingerprints(self, stream_ids: Sequence[str]) -> dict[str, object]:
        """The state documents themselves (equal documents decode to equal states)."""
        ids = list(dict.fromkeys(stream_ids))
        out: dict[str, object] = {}
        with self._lock, translated("reading projections"):
            for table, key in (("claims", "claim_id"), ("observations", "event_id"), ("conflicts", "conflict_id")):
                for row in self._con.execute(f"SELECT {key}, state FROM {table} WHERE {key} = ANY(%s)", (ids,)):
                    out[row[0]] = (f"postgres.{table}", row[1])
            out.update(derived.fingerprints(self._con, [i for i in ids if i.startswith("dv_")]))
            out.update(relations.fingerprints(self._con, ids))
        return out


def _decode(row: Sequence) -> DomainEvent:
    return decode(row[4], {"event_id": row[1], "stream_id": row[2], "version": row[3], "recorded_at": row[5],
                           "namespace": row[6], "schema_version": row[7]}, row[8])
