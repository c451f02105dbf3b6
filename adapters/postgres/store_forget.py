"""Forget look-ups and erasure of :class:`~hlmem.adapters.postgres.store.PostgresStorage` (ForgetQueries,
Erasure): a mix-in.

Erasure replaces a payload only after writing its ``payload_erasures`` row (the trigger refuses
any other change); ``compact_erased`` then runs ``VACUUM`` on the tables that held the content.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING

from hlmem.adapters.embedders.cached import content_hash
from hlmem.adapters.postgres import states
from hlmem.adapters.postgres.db import PgDb, translated
from hlmem.adapters.serialization import UPCASTERS, decode, encode_payload
from hlmem.domain.errors import SchemaError
from hlmem.domain.forgetting import ERASED_TEXT, jobs_to_scrub, mentions
from hlmem.domain.redaction import redact
from hlmem.domain.state import ClaimStatus
from hlmem.domain.time import format_timestamp

if TYPE_CHECKING:
    import psycopg

PENDING_KEY = "erasure_pending"
#: Tables whose dead row versions may hold forgotten content after a forget.
_ERASED_TABLES = ("event_payloads", "observations", "claims", "items", "postings", "term_df", "vectors",
                  "embedding_cache", "jobs", "conflicts")


class PostgresForgetting:
    """What a forget finds (sessions, mentions, citations) and how it erases."""

    # Set by PostgresStorage.__init__.
    _con: psycopg.Connection
    _lock: threading.RLock
    db: PgDb
    transaction: Callable[[], AbstractContextManager[None]]
    meta: Callable[[str], str | None]
    set_meta: Callable[[str, str], None]

    def session_events(self, namespace: str, session_id: str) -> list[str]:
        return self.sessions_events(namespace, [session_id])[session_id]

    def sessions_events(self, namespace: str, session_ids: Sequence[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {s: [] for s in session_ids}
        if not out:
            return out
        with self._lock, translated("reading sessions"):
            for session, event_id in self._con.execute(
                    "SELECT session_id, event_id FROM observations WHERE namespace = %s AND session_id = ANY(%s) "
                    "ORDER BY recorded_at, event_id", (namespace, list(out))):
                out[session].append(event_id)
        return out

    def events_mentioning(self, namespace: str, name: str) -> list[str]:
        with self._lock, translated("searching events"):
            rows = self._con.execute("SELECT event_id, state FROM observations WHERE namespace = %s AND NOT forgotten "
                                     "ORDER BY event_id", (namespace,)).fetchall()
        return [eid for eid, doc in rows if mentions(states.load_observation(doc).text, name)]

    def claims_mentioning(self, namespace: str, name: str) -> list[str]:
        with self._lock, translated("searching claims"):
            rows = self._con.execute("SELECT claim_id, state FROM claims WHERE namespace = %s AND status <> %s "
                                     "ORDER BY claim_id", (namespace, ClaimStatus.FORGOTTEN.value)).fetchall()
        out = []
        for cid, doc in rows:
            c = states.load_claim(doc)
            if mentions(c.subject, name) or mentions(c.value, name) or any(mentions(v, name) for _k, v in c.qualifiers):
                out.append(cid)
        return out

    def extractions_citing(self, event_ids: Sequence[str]) -> list[str]:
        with self._lock, translated("reading extraction records"):
            return [r[0] for r in self._con.execute(
                "SELECT DISTINCT stream_id FROM extraction_sources WHERE event_id = ANY(%s) ORDER BY stream_id",
                (list(dict.fromkeys(event_ids)),))]

    def indexed(self, ids: Sequence[str]) -> dict[str, tuple[bool, bool]]:
        with self._lock, translated("reading the search index"):
            return {r[0]: (bool(r[1]), bool(r[2])) for r in self._con.execute(
                "SELECT i.item_id, i.ntok > 0, EXISTS (SELECT 1 FROM vectors v WHERE v.item_key = i.item_key) "
                "FROM items i WHERE i.item_id = ANY(%s)", (list(dict.fromkeys(ids)),))}

    def erase_payloads(self, stream_ids: Sequence[str], *, reason: str, at: datetime) -> int:
        ids = list(dict.fromkeys(stream_ids))
        with self.transaction(), translated("erasing payloads"):  # type: ignore[attr-defined]
            rows = self._con.execute(
                "SELECT e.position, e.event_id, e.stream_id, e.version, e.tag, e.recorded_at, e.namespace, "
                "e.schema_version, p.payload FROM events e JOIN event_payloads p ON p.position = e.position "
                "WHERE e.stream_id = ANY(%s) AND NOT EXISTS (SELECT 1 FROM payload_erasures x "
                "WHERE x.position = e.position) ORDER BY e.position", (ids,)).fetchall()
            erasures = []
            for pos, eid, sid, ver, tag, rec, ns, schema, payload in rows:
                event = decode(tag, {"event_id": eid, "stream_id": sid, "version": ver, "recorded_at": rec,
                                     "namespace": ns, "schema_version": schema}, payload)
                redacted = redact(event)
                if redacted == event:
                    continue
                if tag in UPCASTERS:
                    raise SchemaError(f"cannot erase {eid}: its tag {tag} is upcast on reading; "
                                      "erasure would need a writer for the old format")
                erasures.append((pos, encode_payload(redacted)))
            if erasures:
                with self._con.cursor() as cur:
                    cur.executemany("INSERT INTO payload_erasures (position, erased_at, reason) VALUES (%s,%s,%s)",
                                    [(pos, format_timestamp(at), reason) for pos, _ in erasures])
                    cur.executemany("UPDATE event_payloads SET payload = %s WHERE position = %s",
                                    [(text, pos) for pos, text in erasures])
            return len(erasures)

    def drop_cached_vectors(self, texts: Sequence[str]) -> int:
        keys = list(dict.fromkeys(content_hash(t, role) for t in texts for role in ("passage", "query")))
        if not keys:
            return 0
        with self.transaction(), translated("erasing cached vectors"):  # type: ignore[attr-defined]
            return self._con.execute("DELETE FROM embedding_cache WHERE content_hash = ANY(%s)", (keys,)).rowcount

    def scrub_jobs(self, event_ids: Sequence[str], fragments: Sequence[str]) -> int:
        with self.transaction(), translated("scrubbing jobs"):  # type: ignore[attr-defined]
            hit = jobs_to_scrub(self._con.execute("SELECT job_id, payload, last_error, raw_response FROM jobs "
                                                  "WHERE last_error IS NOT NULL OR raw_response IS NOT NULL"
                                                  ).fetchall(), event_ids, fragments)
            if hit:
                with self._con.cursor() as cur:
                    cur.executemany("UPDATE jobs SET last_error = CASE WHEN last_error IS NULL THEN NULL ELSE %s END, "
                                    "raw_response = NULL WHERE job_id = %s",
                                    [(ERASED_TEXT, job_id) for job_id in sorted(hit)])
            return len(hit)

    def mark_erasure_pending(self, forget_id: str) -> None:
        self.set_meta(PENDING_KEY, forget_id)  # type: ignore[attr-defined]

    def pending_erasure(self) -> str | None:
        return self.meta(PENDING_KEY)  # type: ignore[attr-defined]

    def compact_erased(self) -> dict[str, int]:
        """``VACUUM`` the tables that held forgotten content: their dead row versions are pruned
        (PostgreSQL does not zero the freed space, and its WAL keeps the old rows until recycled;
        docs/postgres.md). Outside any transaction."""
        with self._lock, translated("compacting erased content"):
            if self.db.depth:  # type: ignore[attr-defined]
                from hlmem.domain.errors import StorageError

                raise StorageError("compact_erased() runs after the forget's transaction, not inside it")
            mark = self.pending_erasure()
            for table in _ERASED_TABLES:
                self._con.execute(f"VACUUM {table}")
            if mark is not None:
                self._con.execute("DELETE FROM meta WHERE key = %s AND value = %s", (PENDING_KEY, mark))
        return {"vacuumed": len(_ERASED_TABLES), "pending": 0}
