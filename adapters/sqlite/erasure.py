"""Forgetting in SQLite: the look-ups a forget plans with, and the removal of derived content.

The log's own erasure is :func:`hlmem.adapters.sqlite.event_log.erase_payloads`; this module
handles what lives beside the log (embedding cache, job rows) and the bytes on disk
(:func:`compact`). ``hlmem_mentions`` is registered on every connection
(:mod:`hlmem.adapters.sqlite.connection`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import apsw

from hlmem.adapters.embedders.cached import content_hash
from hlmem.adapters.sqlite.temp_files import Leftover, remove_stale
from hlmem.domain.forgetting import ERASED_TEXT, mentions, jobs_to_scrub


def _chunks(ids: Sequence[str], size: int = 500):
    for start in range(0, len(ids), size):
        yield list(ids[start:start + size])


# -- look-ups --------------------------------------------------------------------------------------


def session_events(con: apsw.Connection, namespace: str, session_id: str) -> list[str]:
    """Every event of a session, forgotten ones included, oldest first."""
    return [r[0] for r in con.execute(
        "SELECT event_id FROM observations WHERE namespace = ? AND session_id = ? ORDER BY recorded_at, event_id",
        (namespace, session_id))]


def events_mentioning(con: apsw.Connection, namespace: str, name: str) -> list[str]:
    """Not-forgotten events of the namespace whose text mentions ``name``."""
    return [r[0] for r in con.execute(
        "SELECT event_id FROM observations WHERE namespace = ? AND forgotten = 0 AND hlmem_mentions(text, ?) "
        "ORDER BY event_id", (namespace, name))]


def claims_mentioning(con: apsw.Connection, namespace: str, name: str) -> list[str]:
    """Not-forgotten claims of the namespace whose subject, value or qualifier values mention ``name``."""
    # One call of the function per row over the fields joined (a superset: the check below is exact).
    rows = con.execute(
        "SELECT claim_id, subject, value, qualifiers FROM claims WHERE namespace = ? AND status != 'forgotten' "
        "AND hlmem_mentions(subject || char(10) || value || char(10) || qualifiers, ?) "
        "ORDER BY claim_id", (namespace, name)).fetchall()
    # The qualifiers column is JSON: a key alone ("with=…") must not count, only a value.
    return [cid for cid, subject, value, qualifiers in rows
            if mentions(subject, name) or mentions(value, name)
            or any(mentions(v, name) for _k, v in json.loads(qualifiers))]


def extractions_citing(con: apsw.Connection, event_ids: Sequence[str]) -> list[str]:
    """Extraction-record streams whose ``source_events`` include one of ``event_ids``."""
    found: set[str] = set()
    for chunk in _chunks(list(dict.fromkeys(event_ids))):
        marks = ",".join("?" * len(chunk))
        found.update(r[0] for r in con.execute(
            "SELECT e.stream_id FROM events e JOIN event_payloads p ON p.position = e.position "
            "WHERE e.tag = 'extraction.recorded.v1' AND EXISTS (SELECT 1 FROM json_each(p.payload, '$.source_events') j "
            f"WHERE j.value IN ({marks}))", chunk))
    return sorted(found)


def indexed(con: apsw.Connection, ids: Sequence[str]) -> dict[str, tuple[bool, bool]]:
    """``item_id -> (has a full-text row, has a vector)`` for the ids in the search index."""
    out: dict[str, tuple[bool, bool]] = {}
    for chunk in _chunks(list(dict.fromkeys(ids))):
        marks = ",".join("?" * len(chunk))
        for item_id, text, vector in con.execute(
                "SELECT i.item_id, EXISTS (SELECT 1 FROM items_fts f WHERE f.rowid = i.item_key) "
                "OR EXISTS (SELECT 1 FROM derived_fts f WHERE f.rowid = i.item_key), "
                "EXISTS (SELECT 1 FROM vectors v WHERE v.item_key = i.item_key) "
                f"FROM items i WHERE i.item_id IN ({marks})", chunk):
            out[item_id] = (bool(text), bool(vector))
    return out


# -- removal ---------------------------------------------------------------------------------------


def cache_keys(texts: Sequence[str]) -> list[str]:
    """The embedding cache's keys of ``texts`` (passage and query), distinct."""
    return list(dict.fromkeys(content_hash(t, role) for t in texts for role in ("passage", "query")))


def drop_cached_vectors(con: apsw.Connection, texts: Sequence[str]) -> int:
    """Delete the cache entries of ``texts`` (passage and query keys, every model)."""
    keys = cache_keys(texts)
    if not keys:
        return 0
    # Per model, so the (model, content_hash) index serves each look-up (the cache is large).
    models: list[str] = []
    model = con.execute("SELECT min(model) FROM embedding_cache").fetchone()[0]
    while model is not None:  # a skip scan: one index probe per model, not a pass over the cache
        models.append(model)
        model = con.execute("SELECT min(model) FROM embedding_cache WHERE model > ?", (model,)).fetchone()[0]
    dropped = 0
    for model in models:
        for chunk in _chunks(keys):
            marks = ",".join("?" * len(chunk))
            con.execute(f"DELETE FROM embedding_cache WHERE model = ? AND content_hash IN ({marks})", (model, *chunk))
            dropped += con.changes()
    return dropped


def scrub_jobs(con: apsw.Connection, event_ids: Sequence[str], fragments: Sequence[str]) -> int:
    """Blank the error text and raw response of the jobs that may hold forgotten content
    (:func:`hlmem.domain.forgetting.jobs_to_scrub` says which)."""
    hit = jobs_to_scrub(con.execute("SELECT job_id, payload, last_error, raw_response FROM jobs "
                                    "WHERE last_error IS NOT NULL OR raw_response IS NOT NULL").fetchall(),
                        event_ids, fragments)
    if hit:
        con.executemany(
            "UPDATE jobs SET last_error = CASE WHEN last_error IS NULL THEN NULL ELSE ? END, raw_response = NULL "
            "WHERE job_id = ?", [(ERASED_TEXT, job_id) for job_id in sorted(hit)])
    return len(hit)


#: The ``meta`` row that says erased bytes may still be on disk: set (to the forget's id) inside
#: every forget's transaction, deleted once a checkpoint has folded the whole WAL into the file.
PENDING_KEY = "erasure_pending"
#: How long a forget's checkpoint waits for other connections' read transactions (ms). A reader
#: that holds its snapshot longer keeps the old pages alive; the erasure is then reported
#: pending and finished later (next open, the worker, ``maintain``), not waited for.
CHECKPOINT_WAIT_MS = 3_000


def mark_pending(con: apsw.Connection, forget_id: str) -> None:
    """Record, inside the forget's transaction, that its erased bytes are on disk until compacted."""
    con.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (PENDING_KEY, forget_id))


def pending(con: apsw.Connection) -> str | None:
    """The id of the last forget whose erased bytes may still be on disk, or None."""
    row = con.execute("SELECT value FROM meta WHERE key = ?", (PENDING_KEY,)).fetchone()
    return row[0] if row else None


def compact(con: apsw.Connection, *, wait_ms: int = CHECKPOINT_WAIT_MS) -> dict[str, int]:
    """Make erased content unreachable on disk; call outside any transaction.

    ``secure_delete`` (set on every connection) has zeroed freed cells and pages, and FTS5's
    ``secure-delete`` mode (migration 0008) removed the tokens from the index's doclists. What
    is left: the query planner's samples (``sqlite_stat4`` keeps real index keys — slot keys,
    FTS terms) are deleted (the next ``PRAGMA optimize`` samples the data as it is now), and the
    WAL, which still holds the pages as they were before, is checkpointed into the file and
    truncated to zero bytes. Until that checkpoint completes, the main file keeps the old pages.

    Another connection's read transaction (held longer than ``wait_ms``) or a writer keeps the
    checkpoint from completing: the result then has ``pending`` 1 and the :data:`PENDING_KEY`
    row stays, so a later call finishes the erasure. A completed checkpoint deletes the row
    (unless a newer forget set it meanwhile) and truncates the WAL again.
    """
    mark = pending(con)
    # Only a plain busy timeout is shortened (and put back after): a connection with a busy
    # handler of its own (PRAGMA busy_timeout reads 0 then) keeps it.
    before = int(con.pragma("busy_timeout") or 0)
    if before:
        con.set_busy_timeout(wait_ms)
    out: dict[str, int] = {}
    busy, log_frames, checkpointed = 1, -1, -1
    try:
        if con.execute("SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_stat4'").fetchone():
            with con:
                con.execute("DELETE FROM sqlite_stat4")
                out["planner_samples"] = con.changes()
        busy, log_frames, checkpointed = con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if not busy and mark is not None:
            with con:
                con.execute("DELETE FROM meta WHERE key = ? AND value = ?", (PENDING_KEY, mark))
            # Only pages written after the forget are in the WAL now; truncate it again all the same.
            con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    except apsw.BusyError:
        busy = 1  # a writer held its lock past the wait: leave the row for the next attempt
    finally:
        if before:
            con.set_busy_timeout(before)
    out.update(wal_busy=busy, wal_frames=log_frames, wal_checkpointed=checkpointed, pending=int(bool(busy)))
    return out


def remove_stale_copies(path: str) -> list[Leftover]:
    """Remove what killed backups, restores and replays left beside the store file at ``path``
    (temp_files.remove_stale: only temporaries no process holds); each is a copy of the store's
    text from before a forget. Nothing for a store without a file of its own."""
    if not path or path == ":memory:" or path.startswith("file:") or not os.path.isfile(path):
        return []
    return remove_stale(Path(path).resolve().parent)
