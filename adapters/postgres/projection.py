"""Appending to the PostgreSQL log: version checks, positions, and the projections through the shared reducers.

One :func:`append_events` call runs inside the store's transaction: it writes the search index
rows the events add or drop, then takes the log's advisory lock (positions are given in commit
order, without gaps: the lock is held from there to the commit, and nothing else takes it),
inserts envelopes and payloads, loads every state the events
touch in one query per table, folds the events with :func:`hlmem.domain.reducers.step` (the same
reducers as the other stores) and writes back the states that changed, the supersede edges, the
evidence links and the search index rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from hlmem.adapters.postgres import derived, experience, postings, relations, search, states
from hlmem.adapters.postgres.schema import LOG_LOCK
from hlmem.adapters.serialization import encode_payload, tag_of
from hlmem.application.ports import IndexEntry
from hlmem.domain.errors import ConcurrencyConflict
from hlmem.domain.derived import index_namespace, is_derived_id
from hlmem.domain.events import DomainEvent, ExtractionRecorded
from hlmem.domain.experience_reducers import touches_experience
from hlmem.domain.relation_events import is_relation_stream
from hlmem.domain.reducers import DERIVED, index_change, item_kind, replaces_item, step, touched_streams
from hlmem.domain.state import ClaimState, ConflictState, ObservationState, SupersedeEdge, subject_key
from hlmem.domain.time import format_timestamp, to_micros

if TYPE_CHECKING:  # psycopg is imported only when a PostgreSQL store is opened (hlmem[postgres])
    import psycopg


def load_claims(con: psycopg.Connection, ids: Sequence[str]) -> dict[str, ClaimState]:
    ids = list(dict.fromkeys(ids))
    if not ids:
        return {}
    found = {r[0]: r[1] for r in con.execute("SELECT claim_id, state FROM claims WHERE claim_id = ANY(%s)", (ids,))}
    return {i: states.load_claim(found[i]) for i in ids if i in found}


def load_observations(con: psycopg.Connection, ids: Sequence[str]) -> dict[str, ObservationState]:
    ids = list(dict.fromkeys(ids))
    if not ids:
        return {}
    found = {r[0]: r[1] for r in con.execute(
        "SELECT event_id, state FROM observations WHERE event_id = ANY(%s)", (ids,))}
    return {i: states.load_observation(found[i]) for i in ids if i in found}


def load_conflicts(con: psycopg.Connection, ids: Sequence[str]) -> dict[str, ConflictState]:
    ids = list(dict.fromkeys(ids))
    if not ids:
        return {}
    found = {r[0]: r[1] for r in con.execute(
        "SELECT conflict_id, state FROM conflicts WHERE conflict_id = ANY(%s)", (ids,))}
    return {i: states.load_conflict(found[i]) for i in ids if i in found}


def _claim_row(c: ClaimState) -> tuple:
    known = [v for v in c.versions if v.recorded_to is None]
    ends = [to_micros(v.valid_to) for v in known if v.valid_to is not None]
    opens = [to_micros(v.valid_from) for v in known if v.valid_to is None]
    return (c.claim_id, c.namespace, subject_key(c.subject), c.predicate, c.slot_key, c.status.value, c.archived,
            c.scope.value, float(c.importance), to_micros(c.recorded_at), min(ends) if ends else None,
            min(opens) if opens else None, states.claim_doc(c))


_UPSERT_CLAIM = (
    "INSERT INTO claims (claim_id, namespace, subject_key, predicate, slot_key, status, archived, scope, importance, "
    "recorded_at, current_valid_to, open_valid_from, state) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) "
    "ON CONFLICT (claim_id) DO UPDATE SET namespace = excluded.namespace, subject_key = excluded.subject_key, "
    "predicate = excluded.predicate, slot_key = excluded.slot_key, status = excluded.status, "
    "archived = excluded.archived, scope = excluded.scope, importance = excluded.importance, "
    "recorded_at = excluded.recorded_at, current_valid_to = excluded.current_valid_to, "
    "open_valid_from = excluded.open_valid_from, state = excluded.state")
_UPSERT_OBS = (
    "INSERT INTO observations (event_id, namespace, session_id, role, forgotten, recorded_at, state) "
    "VALUES (%s,%s,%s,%s,%s,%s,%s) ON CONFLICT (event_id) DO UPDATE SET namespace = excluded.namespace, "
    "session_id = excluded.session_id, role = excluded.role, forgotten = excluded.forgotten, "
    "recorded_at = excluded.recorded_at, state = excluded.state")
_UPSERT_CONFLICT = (
    "INSERT INTO conflicts (conflict_id, namespace, status, opened_at, state) VALUES (%s,%s,%s,%s,%s) "
    "ON CONFLICT (conflict_id) DO UPDATE SET namespace = excluded.namespace, status = excluded.status, "
    "opened_at = excluded.opened_at, state = excluded.state")


def append_events(con: psycopg.Connection, events: Sequence[DomainEvent], index: Mapping[str, IndexEntry],
                  payloads: Mapping[str, str] | None) -> tuple[int, bool]:
    """Append and project ``events`` (inside a transaction); return (first position, vectors changed)."""
    # The search index first, outside the log's lock: what it writes follows from the events alone,
    # and its inserts (the HNSW and GIN indexes) are the dearest part of an append, so concurrent
    # writers build them side by side. Rows of one item_id written by two writers at once collide
    # on its unique key: the later one fails as a ConcurrencyConflict (ADR 0048).
    adds, drops = _index_changes(events, index)
    counts = postings.TextCounts()
    vectors_changed = _index(con, adds, drops, counts)
    con.execute("SELECT pg_advisory_xact_lock(%s)", (LOG_LOCK,))
    postings.apply(con, counts)
    _check_versions(con, events)
    (last,) = con.execute("SELECT coalesce(max(position), 0) FROM events").fetchone()
    first = last + 1
    payloads = payloads or {}
    with con.cursor() as cur:
        cur.executemany(
            "INSERT INTO events (position, event_id, stream_id, version, tag, recorded_at, namespace, schema_version) "
            "VALUES (%s,%s,%s,%s,%s,%s,%s,%s)",
            [(first + n, e.event_id, e.stream_id, e.version, tag_of(e), format_timestamp(e.recorded_at), e.namespace,
              e.schema_version) for n, e in enumerate(events)])
        cur.executemany("INSERT INTO event_payloads (position, payload) VALUES (%s, %s)",
                        [(first + n, payloads.get(e.event_id) or encode_payload(e)) for n, e in enumerate(events)])
    # Derived items and the experience channel have reducers and tables of their own (ADRs 0045, 0046).
    derived.project(con, [e for e in events if is_derived_id(e.stream_id)])
    experience.project(con, [e for e in events if touches_experience(e)])
    relations.project(con, [e for e in events if is_relation_stream(e.stream_id)])  # ADR 0081
    folded = [(first + n, e) for n, e in enumerate(events) if not is_derived_id(e.stream_id)
              and not touches_experience(e) and not is_relation_stream(e.stream_id)]
    touched = set().union(*(touched_streams(e) for _p, e in folded))
    claims = load_claims(con, [i for i in touched if i.startswith("cl_")])
    observations = load_observations(con, [i for i in touched if i.startswith("ev_")])
    conflicts = load_conflicts(con, [i for i in touched if i.startswith("cf_")])
    before = {i: (claims.get(i), observations.get(i), conflicts.get(i)) for i in touched}
    edges: list[tuple] = []
    sources: list[tuple[str, str]] = []
    for position, event in folded:
        new_edges: list[SupersedeEdge] = []
        step(event, claims, observations, conflicts, new_edges)
        edges += [(position, e.old, e.new, to_micros(e.recorded_at)) for e in new_edges]
        if isinstance(event, ExtractionRecorded):
            sources += [(event.stream_id, s) for s in event.source_events]
    changed_claims = [claims[i] for i, (c, _o, _f) in before.items() if i in claims and claims[i] is not c]
    changed_obs = [observations[i] for i, (_c, o, _f) in before.items()
                   if i in observations and observations[i] is not o]
    changed_conflicts = [conflicts[i] for i, (_c, _o, f) in before.items() if i in conflicts and conflicts[i] is not f]
    with con.cursor() as cur:
        if changed_claims:
            cur.executemany(_UPSERT_CLAIM, [_claim_row(c) for c in changed_claims])
            cur.execute("DELETE FROM claim_evidence WHERE claim_id = ANY(%s)", ([c.claim_id for c in changed_claims],))
            cur.executemany("INSERT INTO claim_evidence (claim_id, event_id) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                            [(c.claim_id, e) for c in changed_claims for e in c.evidence])
        if changed_obs:
            cur.executemany(_UPSERT_OBS, [(o.event_id, o.namespace, o.session_id, o.role, o.forgotten,
                                           to_micros(o.recorded_at), states.observation_doc(o)) for o in changed_obs])
        if changed_conflicts:
            cur.executemany(_UPSERT_CONFLICT, [(f.conflict_id, f.namespace, f.status, to_micros(f.opened_at),
                                                states.conflict_doc(f)) for f in changed_conflicts])
        if edges:
            cur.executemany("INSERT INTO supersede_edges (position, old_id, new_id, recorded_at) "
                            "VALUES (%s,%s,%s,%s)", edges)
        if sources:
            cur.executemany("INSERT INTO extraction_sources (stream_id, event_id) VALUES (%s, %s) "
                            "ON CONFLICT DO NOTHING", sources)
    return first, vectors_changed


def _index_changes(events: Sequence[DomainEvent], index: Mapping[str, IndexEntry]) -> tuple[dict[str, tuple], set[str]]:
    """The index rows ``events`` add (item id -> row) and the item ids they drop, in event order."""
    adds: dict[str, tuple] = {}
    drops: set[str] = set()
    for event in events:
        change = index_change(event)
        if change and change[0] == "drop":
            adds.pop(change[1], None)
            drops.add(change[1])
        elif change:
            entry = index.get(change[1])
            if replaces_item(event):  # a derived item's rebuild replaces its row (ADR 0084)
                adds.pop(change[1], None)
                drops.add(change[1])
            if entry is not None:
                kind = item_kind(change[1])
                namespace = index_namespace(event.namespace) if kind == DERIVED else event.namespace
                adds[change[1]] = (change[1], kind, namespace, entry.text, entry.vector)
    return adds, drops


def _check_versions(con: psycopg.Connection, events: Sequence[DomainEvent]) -> None:
    later = sorted({e.stream_id for e in events})
    stored = dict(con.execute("SELECT stream_id, max(version) FROM events WHERE stream_id = ANY(%s) "
                              "GROUP BY stream_id", (later,)).fetchall()) if later else {}
    ids = [e.event_id for e in events]
    if len(set(ids)) != len(ids) or con.execute("SELECT 1 FROM events WHERE event_id = ANY(%s) LIMIT 1",
                                                 (ids,)).fetchone():
        raise ConcurrencyConflict("an event conflicts with the log: its id is already taken")
    versions: dict[str, int] = {}
    for event in events:
        previous = versions.get(event.stream_id, stored.get(event.stream_id, 0))
        if event.version != previous + 1:
            raise ConcurrencyConflict(f"stream {event.stream_id} is at version {previous}; event {event.event_id} "
                                      f"claims version {event.version}")
        versions[event.stream_id] = event.version


def _index(con: psycopg.Connection, adds: dict[str, tuple], drops: set[str], counts: postings.TextCounts) -> bool:
    """Write the search index rows: dropped items go, added ones are (re)written with their vectors
    and postings; ``counts`` collects what the namespace statistics must change by."""
    gone = sorted(drops | set(adds))
    vectors_changed = False
    if gone:
        deleted = con.execute("DELETE FROM items WHERE item_id = ANY(%s) RETURNING item_key, namespace, tokens",
                              (gone,)).fetchall()
        postings.remove(con, [(key, ns, toks.split(" ") if toks else []) for key, ns, toks in deleted], counts)
        vectors_changed = bool(deleted) and bool(drops)
    if not adds:
        return vectors_changed
    rows = search.index_rows([(i, k, ns, text) for i, k, ns, text, _v in adds.values()])
    keys = {}
    with con.cursor() as cur:
        for row in rows:
            cur.execute("INSERT INTO items (item_id, kind, namespace, tokens, ntok) "
                        "VALUES (%s,%s,%s,%s,%s) RETURNING item_key", row[:5])
            keys[row[0]] = cur.fetchone()[0]
    postings.add(con, [(keys[row[0]], row[2], row[5]) for row in rows], counts)
    with con.cursor() as cur:
        vecs = [(keys[i], ns, search.literal(v)) for i, _k, ns, _t, v in adds.values() if v is not None]
        if vecs:
            cur.executemany("INSERT INTO vectors (item_key, namespace, vec) VALUES (%s, %s, %s::vector)", vecs)
            vectors_changed = True
    return vectors_changed
