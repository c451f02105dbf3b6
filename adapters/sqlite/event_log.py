"""The append-only event log in SQLite: envelopes and payloads, version checks, ordered reads."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import apsw

from datetime import datetime

from hlmem.adapters.serialization import UPCASTERS, decode, encode_payload, tag_of
from hlmem.application.ports import StoredEvent
from hlmem.domain.errors import ConcurrencyConflict, SchemaError
from hlmem.domain.events import DomainEvent
from hlmem.domain.redaction import redact
from hlmem.domain.time import format_timestamp

READ_CHUNK = 2_000


def stream_version(con: apsw.Connection, stream_id: str) -> int:
    """The last version of a stream, 0 for a stream with no events."""
    row = con.execute("SELECT max(version) FROM events WHERE stream_id = ?", (stream_id,)).fetchone()
    return row[0] or 0


def check_version(event: DomainEvent, expected_previous: int) -> None:
    """Refuse an event whose version does not follow its stream's last one."""
    if event.version != expected_previous + 1:
        raise ConcurrencyConflict(
            f"stream {event.stream_id} is at version {expected_previous}; event {event.event_id} "
            f"claims version {event.version}"
        )


def insert_events(con: apsw.Connection, events: Sequence[DomainEvent], payloads: Mapping[str, str] | None) -> int:
    """Insert envelopes and payloads with one ``executemany`` each; return the first position.

    Call inside a write transaction (positions are max + 1, …). A taken (stream, version) or
    event id raises :class:`ConcurrencyConflict`.
    """
    first = last_position(con) + 1
    payloads = payloads or {}
    envelopes = []
    bodies = []
    for offset, event in enumerate(events):
        position = first + offset
        envelopes.append((position, event.event_id, event.stream_id, event.version, tag_of(event),
                          format_timestamp(event.recorded_at), event.namespace, event.schema_version))
        bodies.append((position, payloads.get(event.event_id) or encode_payload(event)))
    try:
        con.executemany(
            "INSERT INTO events (position, event_id, stream_id, version, tag, recorded_at, namespace, schema_version) "
            "VALUES (?,?,?,?,?,?,?,?)", envelopes)
    except apsw.ConstraintError as exc:
        raise ConcurrencyConflict("an event conflicts with the log: its stream already has that version "
                                  "(or its id is taken)") from exc
    con.executemany("INSERT INTO event_payloads (position, payload) VALUES (?, ?)", bodies)
    return first


def insert_event(con: apsw.Connection, event: DomainEvent, expected_previous: int) -> int:
    """Insert one event after checking its version; return its position.

    :raises ConcurrencyConflict: when ``event.version`` is not ``expected_previous + 1``.
    """
    if event.version != expected_previous + 1:
        raise ConcurrencyConflict(
            f"stream {event.stream_id} is at version {expected_previous}; event {event.event_id} "
            f"claims version {event.version}"
        )
    try:
        con.execute(
            "INSERT INTO events (event_id, stream_id, version, tag, recorded_at, namespace, schema_version) "
            "VALUES (?,?,?,?,?,?,?)",
            (event.event_id, event.stream_id, event.version, tag_of(event), format_timestamp(event.recorded_at),
             event.namespace, event.schema_version),
        )
    except apsw.ConstraintError as exc:
        raise ConcurrencyConflict(f"event {event.event_id} (stream {event.stream_id} v{event.version}) "
                                  f"conflicts with the log: the stream already has that version") from exc
    position = con.last_insert_rowid()
    con.execute("INSERT INTO event_payloads (position, payload) VALUES (?, ?)", (position, encode_payload(event)))
    return position


def last_position(con: apsw.Connection) -> int:
    """The position of the newest event, 0 for an empty log."""
    return con.execute("SELECT coalesce(max(position), 0) FROM events").fetchone()[0]


def read_events(con: apsw.Connection, after: int = 0, limit: int | None = None) -> Iterator[StoredEvent]:
    """Events after ``after`` in log order, read in chunks so no cursor stays open across yields."""
    for stored, _payload in read_stored(con, after, limit):
        yield stored


def read_stored(con: apsw.Connection, after: int = 0,
                limit: int | None = None) -> Iterator[tuple[StoredEvent, str | None]]:
    """Like :func:`read_events`, with each event's payload text as stored.

    The text is what :func:`insert_events` may copy verbatim; it is None when the payload was
    erased or its tag is upcast on reading (then the stored text is not the event's encoding).
    """
    remaining = limit
    cursor = after
    while remaining is None or remaining > 0:
        size = READ_CHUNK if remaining is None else min(READ_CHUNK, remaining)
        rows = con.execute(
            "SELECT e.position, e.event_id, e.stream_id, e.version, e.tag, e.recorded_at, e.namespace, "
            "e.schema_version, p.payload FROM events e LEFT JOIN event_payloads p ON p.position = e.position "
            "WHERE e.position > ? ORDER BY e.position LIMIT ?",
            (cursor, size),
        ).fetchall()
        if not rows:
            return
        for pos, eid, sid, ver, tag, rec, ns, schema, payload in rows:
            envelope = {"event_id": eid, "stream_id": sid, "version": ver, "recorded_at": rec,
                        "namespace": ns, "schema_version": schema}
            yield StoredEvent(pos, decode(tag, envelope, payload)), (None if tag in UPCASTERS else payload)
        cursor = rows[-1][0]
        if remaining is not None:
            remaining -= len(rows)


def stream_versions(con: apsw.Connection) -> dict[str, int]:
    """The last version of every stream in the log (one indexed scan)."""
    return dict(con.execute("SELECT stream_id, max(version) FROM events GROUP BY stream_id"))


def erase_payloads(con: apsw.Connection, stream_ids: Sequence[str], *, reason: str, at: datetime) -> int:
    """Replace the payloads of the streams' events that hold content with their redaction.

    The one audited path (migration 0001's triggers): a ``payload_erasures`` row first, then the
    old payload goes and the redacted encoding takes its place. Payloads already erased, and
    events with nothing to redact, are left alone. Call inside a write transaction.

    :returns: how many payloads were erased.
    :raises SchemaError: for an event stored under an upcast tag (its replacement would have to be
        written in the old format, which no code writes).
    """
    ids = list(dict.fromkeys(stream_ids))
    erased_at = format_timestamp(at)
    erasures: list[tuple[int, str, str]] = []
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        marks = ",".join("?" * len(chunk))
        rows = con.execute(
            "SELECT e.position, e.event_id, e.stream_id, e.version, e.tag, e.recorded_at, e.namespace, "
            "e.schema_version, p.payload FROM events e JOIN event_payloads p ON p.position = e.position "
            f"WHERE e.stream_id IN ({marks}) AND NOT EXISTS "
            "(SELECT 1 FROM payload_erasures x WHERE x.position = e.position) ORDER BY e.position",
            chunk,
        ).fetchall()
        for pos, eid, sid, ver, tag, rec, ns, schema, payload in rows:
            envelope = {"event_id": eid, "stream_id": sid, "version": ver, "recorded_at": rec,
                        "namespace": ns, "schema_version": schema}
            event = decode(tag, envelope, payload)
            redacted = redact(event)
            if redacted == event:
                continue
            if tag in UPCASTERS:
                raise SchemaError(f"cannot erase {eid}: its tag {tag} is upcast on reading; "
                                  "erasure would need a writer for the old format")
            erasures.append((pos, erased_at, encode_payload(redacted)))
    if erasures:
        con.executemany("INSERT INTO payload_erasures (position, erased_at, reason) VALUES (?,?,?)",
                        [(pos, when, reason) for pos, when, _ in erasures])
        con.executemany("DELETE FROM event_payloads WHERE position = ?", [(pos,) for pos, _, _ in erasures])
        con.executemany("INSERT INTO event_payloads (position, payload) VALUES (?, ?)",
                        [(pos, text) for pos, _, text in erasures])
    return len(erasures)
