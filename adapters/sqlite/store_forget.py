"""Forgetting in :class:`~hlmem.adapters.sqlite.store.SQLiteStorage` (ForgetQueries, Erasure;
:mod:`.erasure`, ADR 0014): a mix-in."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import datetime

import apsw

from hlmem.adapters.sqlite import erasure, event_log
from hlmem.adapters.sqlite.db import translated as _translated
from hlmem.adapters.sqlite.embedding_cache import SQLiteEmbeddingCache
from hlmem.domain.errors import StorageError


class SQLiteForgetting:
    """ForgetQueries and Erasure over the store's connection and ``transaction()``; erased bytes
    are compacted out of the file after the forget commits, or at the next open."""

    # Set by SQLiteStorage.__init__ (``_depth`` is its property).
    _con: apsw.Connection
    _lock: threading.RLock
    _depth: int
    path: str
    embedding_cache: SQLiteEmbeddingCache

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
            kept = self.embedding_cache.discard(erasure.cache_keys(texts))  # those not written yet too
            return kept + erasure.drop_cached_vectors(self._con, texts)

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
        erasure stays recorded and a later call finishes it). ``stale_copies``: temporaries of
        killed backups, restores or replays beside the store, each a copy of its text, removed."""
        with self._lock, _translated("compacting erased content", self._con):
            if self._depth:
                raise StorageError("compact_erased() runs after the forget's transaction, not inside it")
            done = erasure.compact(self._con, wait_ms=wait_ms)
        done["stale_copies"] = len(erasure.remove_stale_copies(self.path))
        return done

    def _finish_pending_erasure(self) -> None:
        """At open: finish an erasure a forget left pending, without waiting for anyone (a reader's
        open never waits for a writer); if others still hold old pages, a later call finishes it."""
        try:
            if self.pending_erasure() is not None:
                self.compact_erased(wait_ms=0)
        except StorageError:
            pass  # never fail an open for it: the row stays, the worker or maintain retries
