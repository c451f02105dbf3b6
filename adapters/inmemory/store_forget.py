"""Forgetting in :class:`~hlmem.adapters.inmemory.store.InMemoryStorage` (ForgetQueries, Erasure; ADR 0014): a mix-in.

Erasure replaces what it changes (copy on write) so that a transaction's snapshot stays intact;
process memory keeps no old pages, so nothing is ever left pending.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from attrs import evolve

from hlmem.adapters.embedders.cached import content_hash
from hlmem.adapters.inmemory.embedding_cache import InMemoryCache
from hlmem.adapters.inmemory.index import IndexedItem
from hlmem.application.ports import StoredEvent
from hlmem.domain.events import ExtractionRecorded
from hlmem.domain.forgetting import ERASED_TEXT, fragment_forms, holds_any, mentions
from hlmem.domain.redaction import redact
from hlmem.domain.state import ClaimState, ClaimStatus, ObservationState


class InMemoryForgetting:
    """ForgetQueries and Erasure over the store's log, projection, items, jobs and embedding cache."""

    # Set by InMemoryStorage.__init__.
    _log: list[StoredEvent]
    _claims: dict[str, ClaimState]
    _observations: dict[str, ObservationState]
    _items: dict[str, IndexedItem]
    jobs: dict
    embedding_cache: InMemoryCache

    def session_events(self, namespace: str, session_id: str) -> list[str]:
        found = [o for o in self._observations.values() if o.namespace == namespace and o.session_id == session_id]
        return [o.event_id for o in sorted(found, key=lambda o: (o.recorded_at, o.event_id))]

    def sessions_events(self, namespace: str, session_ids: Sequence[str]) -> dict[str, list[str]]:
        out: dict[str, list[ObservationState]] = {s: [] for s in session_ids}
        for o in self._observations.values():
            if o.namespace == namespace and o.session_id in out:
                out[o.session_id].append(o)
        return {s: [o.event_id for o in sorted(found, key=lambda o: (o.recorded_at, o.event_id))]
                for s, found in out.items()}

    def events_mentioning(self, namespace: str, name: str) -> list[str]:
        return sorted(o.event_id for o in self._observations.values()
                      if o.namespace == namespace and not o.forgotten and mentions(o.text, name))

    def claims_mentioning(self, namespace: str, name: str) -> list[str]:
        return sorted(c.claim_id for c in self._claims.values()
                      if c.namespace == namespace and c.status is not ClaimStatus.FORGOTTEN
                      and (mentions(c.subject, name) or mentions(c.value, name)
                           or any(mentions(v, name) for _k, v in c.qualifiers)))

    def extractions_citing(self, event_ids: Sequence[str]) -> list[str]:
        wanted = set(event_ids)
        return sorted({s.event.stream_id for s in self._log if isinstance(s.event, ExtractionRecorded)
                       and wanted.intersection(s.event.source_events)})

    def indexed(self, ids: Sequence[str]) -> dict[str, tuple[bool, bool]]:
        return {i: (bool(self._items[i].tokens), self._items[i].vector is not None)
                for i in dict.fromkeys(ids) if i in self._items}

    def erase_payloads(self, stream_ids: Sequence[str], *, reason: str, at: datetime) -> int:
        # The log holds events, not payload texts: an erased event is replaced by its redaction.
        wanted = set(stream_ids)
        with self.transaction():
            log, erased = list(self._log), 0
            for i, stored in enumerate(log):
                if stored.event.stream_id in wanted:
                    redacted = redact(stored.event)
                    if redacted != stored.event:
                        log[i] = StoredEvent(stored.position, redacted)
                        erased += 1
            if erased:
                self._log = log
            return erased

    def drop_cached_vectors(self, texts: Sequence[str]) -> int:
        return self.embedding_cache.drop([content_hash(t, role) for t in texts for role in ("passage", "query")])

    def scrub_jobs(self, event_ids: Sequence[str], fragments: Sequence[str]) -> int:
        wanted, forms = set(event_ids), fragment_forms(fragments)
        hit = [j for j in self.jobs.values() if j.last_error is not None
               and (j.payload.get("event_id") in wanted or holds_any(j.last_error, forms))]
        for job in hit:
            self.jobs[job.job_id] = evolve(job, last_error=ERASED_TEXT)
        return len(hit)

    def compact_erased(self) -> dict[str, int]:
        """Nothing outlives a forget in process memory: no pages, no WAL."""
        return {}

    def mark_erasure_pending(self, forget_id: str) -> None:
        """Process memory keeps no old pages: nothing is ever pending."""

    def pending_erasure(self) -> str | None:
        return None
