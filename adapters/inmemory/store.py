"""``InMemoryStorage``: the Storage port in process memory (tests, embedding, ephemeral agents).

It folds the log with the same pure reducers as the SQLite adapter and passes the same contract
suite. Full text uses the same segmentation with a small BM25; vectors an exact numpy scan.
"""

from __future__ import annotations

import itertools
import math
import secrets
import threading
from collections import Counter
from types import MappingProxyType
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime

import numpy as np
from attrs import evolve, frozen

from hlmem.adapters.embedders.cached import content_hash
from hlmem.adapters.inmemory.activity import InMemoryActivity
from hlmem.adapters.inmemory.experience import InMemoryExperience
from hlmem.adapters.inmemory.journal import Journal
from hlmem.adapters.inmemory.tombstones import InMemoryTombstoneLedger
from hlmem.adapters.text.fts_query import unicode61_tokens
from hlmem.adapters.text.segment import prepare, query_terms, segment_for_index
from hlmem.application.indexing import context_text
from hlmem.application.ports import Candidate, IndexEntry, StoredEvent
from hlmem.domain.derived import DerivedState, is_derived_id, step_derived
from hlmem.domain.errors import ConcurrencyConflict, ModelMismatch, StorageError
from hlmem.domain.events import DomainEvent, ExtractionRecorded
from hlmem.domain.forgetting import ERASED_TEXT, fragment_forms, holds_any, mentions
from hlmem.domain.lifecycle import Activity, LifecyclePolicy
from hlmem.domain.queries import holds
from hlmem.domain.reducers import index_change, step, touched_streams
from hlmem.domain.redaction import redact
from hlmem.domain.slots import normalize_predicate
from hlmem.domain.state import ClaimState, ClaimStatus, ConflictState, MemoryView, ObservationState, subject_key


@frozen
class _Item:
    item_id: str
    kind: str
    namespace: str
    tokens: tuple[str, ...]
    vector: np.ndarray | None


class InMemoryStorage:
    """Everything in dicts; a transaction snapshots state and restores it on error."""

    # Declared on the class so the plugin registry sees the whole Storage port before an instance exists.
    embedding_cache: InMemoryCache
    tombstones: InMemoryTombstoneLedger

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._log: list[StoredEvent] = []
        # The projection, kept in place (the reducers' working copies) and undone by the journal.
        self._claims: dict[str, ClaimState] = {}
        self._observations: dict[str, ObservationState] = {}
        self._conflicts: dict[str, ConflictState] = {}
        self._edges: list = []
        self._versions: dict[str, int] = {}
        self._snapshot: MemoryView | None = None  # the last view handed out, until the next change
        self._journal = Journal()
        self._items: dict[str, _Item] = {}
        self._meta: dict[str, str] = {"store_id": f"st_{secrets.token_hex(16)}"}
        self._depth = 0
        self._event_ids: set[str] = set()
        self.jobs: dict = {}
        self.embedding_cache = InMemoryCache()
        self.tombstones = InMemoryTombstoneLedger()
        #: The experience channel's projection (ADR 0045), journaled with the rest.
        self.experience = InMemoryExperience(self._journal)
        self._activity = InMemoryActivity(lambda: self._claims)
        #: Derived items (dv_ streams, ADR 0046), projected by their own reducer.
        self._derived: dict[str, DerivedState] = {}

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._lock:
            # The projection, the index and the event ids are undone by the journal (O(1) per
            # change); the small rest (metadata, jobs) is copied.
            mark = self._journal.mark()
            snapshot = (len(self._log), dict(self._meta), dict(self.jobs))
            # Forgetting replaces these (copy on write) rather than mutating them: a reference
            # is a snapshot.
            erasable = (self._log, self.tombstones.state(), self.embedding_cache.state())
            outer = self._depth == 0
            self._depth += 1
            try:
                yield
            except BaseException:
                # Every level restores its own state, like a savepoint.
                self._journal.rollback(mark)
                self._snapshot = None
                n, self._meta, jobs = snapshot
                self.jobs.clear()
                self.jobs.update(jobs)
                self._log, tombstones, cache = erasable
                self.tombstones.restore(tombstones)
                self.embedding_cache.restore(cache)
                del self._log[n:]
                raise
            finally:
                self._depth -= 1
                if outer:
                    self._depth = 0
                    self._journal.clear()

    def close(self) -> None:
        """Nothing to release."""

    # -- event log ------------------------------------------------------------------------------

    def append(self, events: Sequence[DomainEvent], index: Mapping[str, IndexEntry] | None = None) -> int:
        index = index or {}
        journal = self._journal
        with self.transaction():
            for event in events:
                previous = self._versions.get(event.stream_id, 0)
                if event.version != previous + 1:
                    raise ConcurrencyConflict(
                        f"stream {event.stream_id} is at version {previous}; event {event.event_id} "
                        f"claims version {event.version}")
                if event.event_id in self._event_ids:
                    raise ConcurrencyConflict(f"event {event.event_id} is already in the log")
                journal.add(self._event_ids, event.event_id)
                self._log.append(StoredEvent(len(self._log) + 1, event))
                self._project(event)
                change = index_change(event)
                if change and change[0] == "drop":
                    journal.pop(self._items, event.stream_id)
                elif change:
                    entry = index.get(event.stream_id)
                    if entry is not None:
                        self._index(event, entry)
            return len(self._log)

    def _project(self, event: DomainEvent) -> None:
        """One step of the fold in place (the reducers' own step), journaled entry by entry."""
        journal = self._journal
        if is_derived_id(event.stream_id):
            journal.remember(self._derived, event.stream_id)
            step_derived(event, self._derived)
            journal.set(self._versions, event.stream_id, event.version)
            return
        for stream_id in touched_streams(event):
            for states in (self._claims, self._observations, self._conflicts):
                journal.remember(states, stream_id)
        journal.remember_length(self._edges)
        step(event, self._claims, self._observations, self._conflicts, self._edges)
        self.experience.project(event)
        journal.set(self._versions, event.stream_id, event.version)
        self._snapshot = None

    def _index(self, event: DomainEvent, entry: IndexEntry) -> None:
        vector = None
        if entry.vector is not None:
            model = self.vector_model()
            if model is None:
                raise StorageError("bind_vector_model() must be called before storing vectors")
            if len(entry.vector) != model[1] * 4:
                raise StorageError(f"vector of {len(entry.vector)} bytes does not fit {model[1]}-d float32")
            vector = np.frombuffer(entry.vector, dtype=np.float32)
        kind = "event" if event.stream_id.startswith("ev_") else "claim"
        tokens = tuple(segment_for_index(entry.text).split())
        self._journal.set(self._items, event.stream_id, _Item(event.stream_id, kind, event.namespace, tokens, vector))

    def read(self, after: int = 0, limit: int | None = None) -> Iterator[StoredEvent]:
        stop = None if limit is None else after + limit
        yield from self._log[after:stop]

    def read_stored(self, after: int = 0, limit: int | None = None) -> Iterator[tuple[StoredEvent, str | None]]:
        # Nothing is serialised here, so there is never a payload text to copy.
        for stored in self.read(after, limit):
            yield stored, None

    def append_copies(self, events: Sequence[DomainEvent], index: Mapping[str, IndexEntry] | None = None,
                      payloads: Mapping[str, str | None] | None = None) -> int:
        return self.append(events, index)

    def read_types(self, types: Collection[type[DomainEvent]], *, after: int = 0, before: int | None = None,
                   limit: int | None = None, newest_first: bool = False) -> Iterator[StoredEvent]:
        wanted = tuple(types)
        stop = len(self._log) if before is None else min(before - 1, len(self._log))
        window = self._log[max(after, 0):max(stop, 0)]
        found = (s for s in (reversed(window) if newest_first else window) if type(s.event) in wanted)
        yield from itertools.islice(found, None if limit is None else max(limit, 0))

    def store_id(self) -> str:
        """A random identity made with the store (an in-process store has no backups to match)."""
        return self._meta["store_id"]

    def last_position(self) -> int:
        return len(self._log)

    def stream_version(self, stream_id: str) -> int:
        return self._versions.get(stream_id, 0)

    def stream_versions(self) -> dict[str, int]:
        return dict(self._versions)

    def projection_fingerprints(self, stream_ids: Sequence[str]) -> dict[str, object]:
        # The states themselves: nothing cheaper to compare here.
        out: dict[str, object] = {}
        for sid in stream_ids:
            state = (self._claims.get(sid) or self._observations.get(sid) or self._conflicts.get(sid)
                     or self._derived.get(sid))
            if state is not None:
                out[sid] = state
        return out

    @property
    def view(self) -> MemoryView:
        """The current projection (for audits and tests): a frozen copy, kept until the next change."""
        if self._snapshot is None:
            self._snapshot = MemoryView(
                MappingProxyType(dict(self._claims)), MappingProxyType(dict(self._observations)), tuple(self._edges),
                MappingProxyType(dict(self._versions)), MappingProxyType(dict(self._conflicts)))
        return self._snapshot

    # -- projection queries ---------------------------------------------------------------------

    def get_claims(self, ids: Sequence[str]) -> dict[str, ClaimState]:
        claims = self._claims
        return {i: claims[i] for i in dict.fromkeys(ids) if i in claims}

    def get_observations(self, ids: Sequence[str]) -> dict[str, ObservationState]:
        obs = self._observations
        return {i: obs[i] for i in dict.fromkeys(ids) if i in obs}

    def slot_claims(self, slot_key: str) -> list[ClaimState]:
        return [c for c in self._claims.values() if c.slot_key == slot_key]

    def slots_claims(self, slot_keys: Sequence[str]) -> dict[str, list[ClaimState]]:
        wanted = set(slot_keys)
        out: dict[str, list[ClaimState]] = {k: [] for k in slot_keys}
        for claim in self._claims.values():
            if claim.slot_key in wanted:
                out[claim.slot_key].append(claim)
        return out

    def subject_claims(self, namespace: str, subject: str, predicate: str | None = None) -> list[ClaimState]:
        key = subject_key(subject)
        pred = normalize_predicate(predicate) if predicate is not None else None
        return [c for c in self._claims.values()
                if c.namespace == namespace and subject_key(c.subject) == key
                and (pred is None or c.predicate == pred)]

    def stored_subjects(self, namespace: str, subjects: Sequence[str]) -> set[str]:
        present = {subject_key(c.subject) for c in self._claims.values() if c.namespace == namespace}
        return {s for s in subjects if subject_key(s) in present}

    def claim_ids(self, namespace: str, *, after: str | None = None, limit: int = 200) -> list[str]:
        ids = sorted(c.claim_id for c in self._claims.values()
                     if c.namespace == namespace and (after is None or c.claim_id > after))
        return ids[:limit]

    def claims_citing(self, event_id: str) -> list[str]:
        return sorted(c.claim_id for c in self._claims.values() if event_id in c.evidence)

    def get_conflicts(self, ids: Sequence[str]) -> dict[str, ConflictState]:
        conflicts = self._conflicts
        return {i: conflicts[i] for i in dict.fromkeys(ids) if i in conflicts}

    def conflicts(self, namespace: str, status: str | None = "open") -> list[ConflictState]:
        found = [c for c in self._conflicts.values()
                 if c.namespace == namespace and (status is None or c.status == status)]
        return sorted(found, key=lambda c: (c.opened_at, c.conflict_id))

    def counts(self) -> dict[str, int]:
        out = {"events": len(self._log), "observations": len(self._observations)}
        by_status = Counter(c.status.value for c in self._claims.values())
        out.update({f"claims_{k}": v for k, v in by_status.items()})
        out["claims"] = len(self._claims)
        out["vectors"] = sum(1 for i in self._items.values() if i.vector is not None)
        out.update({f"conflicts_{k}": v for k, v in Counter(c.status for c in self._conflicts.values()).items()})
        derived = Counter(d.status for d in self._derived.values())
        out.update({f"derived_{k}": v for k, v in derived.items()})
        if derived:
            out["derived"] = sum(derived.values())
        return out

    # -- derived items (DerivedReader, ADR 0046) -------------------------------------------------------

    def get_derived(self, ids: Sequence[str]) -> dict[str, DerivedState]:
        derived = self._derived
        return {i: derived[i] for i in dict.fromkeys(ids) if i in derived}

    def derived_citing(self, claim_ids: Sequence[str]) -> dict[str, DerivedState]:
        wanted = set(claim_ids)
        return {d.derived_id: d for d in sorted(self._derived.values(), key=lambda d: d.derived_id)
                if wanted.intersection(d.source_ids)}

    def derived_items(self, namespace: str, *, subject: str | None = None,
                      kind: str | None = None) -> list[DerivedState]:
        key = None if subject is None else subject_key(subject)
        return [d for d in sorted(self._derived.values(), key=lambda d: d.derived_id)
                if d.namespace == namespace and (kind is None or d.kind == kind)
                and (key is None or (d.subject and subject_key(d.subject) == key))]

    # -- search ---------------------------------------------------------------------------------

    def _searchable(self, namespace: str) -> list[_Item]:
        out = []
        for item in self._items.values():
            if item.namespace != namespace:
                continue
            if item.kind == "claim" and self._claims[item.item_id].status is ClaimStatus.FORGOTTEN:
                continue
            if item.kind == "event" and self._observations[item.item_id].forgotten:
                continue
            out.append(item)
        return out

    def text_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]:
        items = self._searchable(namespace)
        return _bm25(query, items, {i.item_id: i.tokens for i in items}, limit, exact=True)

    def context_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]:
        # Pairs of consecutive turns, computed at query time (the SQLite adapter keeps them indexed);
        # an event scores as its best pair.
        searchable = {i.item_id: i for i in self._searchable(namespace) if i.kind == "event"}
        sessions: dict[str, list[ObservationState]] = {}
        for obs in self._observations.values():
            if obs.event_id in searchable:
                sessions.setdefault(obs.session_id, []).append(obs)
        pairs: list[tuple[ObservationState, ...]] = []
        for turns in sessions.values():
            turns.sort(key=lambda o: (o.recorded_at, o.event_id))
            pairs += list(zip(turns, turns[1:])) if len(turns) > 1 else [(turns[0],)]
        docs = [_Item(str(n), "pair", namespace, tuple(segment_for_index(context_text(*p)).split()), None)
                for n, p in enumerate(pairs)]
        best: dict[str, Candidate] = {}
        for hit in _bm25(query, docs, {d.item_id: d.tokens for d in docs}, len(docs), exact=False):
            for obs in pairs[int(hit.item_id)]:
                best.setdefault(obs.event_id, hit)
        ranked = sorted(best.items(), key=lambda kv: (kv[1].rank, kv[0]))[:max(limit, 0)]
        return [Candidate(event_id, "event", r, hit.score, False) for r, (event_id, hit) in enumerate(ranked, start=1)]

    def sessions_of(self, event_ids: Sequence[str]) -> dict[str, str]:
        return {i: self._observations[i].session_id for i in event_ids if i in self._observations}

    def speakers(self, namespace: str) -> frozenset[str]:
        return frozenset(o.role for o in self._observations.values() if o.namespace == namespace and not o.forgotten)

    def vector_candidates(self, namespace: str, vector: bytes, limit: int) -> list[Candidate]:
        search = self.vector_search(namespace, limit)
        return [] if search is None else search(vector)

    def vector_search(self, namespace: str, limit: int) -> Callable[[bytes], list[Candidate]] | None:
        model = self.vector_model()
        if model is None:
            return None
        # The searchable items as they are now: the search may run in another thread while writes go on.
        items = [i for i in self._searchable(namespace) if i.vector is not None]

        def search(vector: bytes) -> list[Candidate]:
            query = np.frombuffer(vector, dtype=np.float32)
            if query.shape != (model[1],):
                raise ModelMismatch(f"query vector has {query.size} dimensions; the store's model has {model[1]}")
            if not items or limit <= 0:
                return []
            scores = np.stack([i.vector for i in items]) @ query
            order = np.argsort(-scores, kind="stable")[:limit]
            return [Candidate(items[j].item_id, items[j].kind, r, float(scores[j]))
                    for r, j in enumerate(order, start=1)]

        return search

    def visible(self, ids: Sequence[str], valid_at: datetime, known_at: datetime) -> set[str]:
        out = set()
        for item_id in ids:
            claim = self._claims.get(item_id)
            if claim is not None and holds(claim, valid_at, known_at):
                out.add(item_id)
            obs = self._observations.get(item_id)
            if obs is not None and not obs.forgotten and obs.recorded_at <= known_at and obs.occurred_at <= valid_at:
                out.add(item_id)
        return out

    def vector_model(self) -> tuple[str, int] | None:
        if "vector_model" not in self._meta:
            return None
        return self._meta["vector_model"], int(self._meta["vector_dim"])

    def prepare_index(self, texts: Sequence[str]) -> None:
        """Segment ``texts`` ahead of the write that indexes them (the same segmenter as SQLite's)."""
        prepare(texts)

    def bind_vector_model(self, model_id: str, dim: int) -> None:
        current = self.vector_model()
        if current is None:
            self._meta.update(vector_model=model_id, vector_dim=str(dim))
        elif current != (model_id, dim):
            raise ModelMismatch(f"this store's vectors were made by {current[0]} ({current[1]}-d), not {model_id}")

    def items(self) -> Iterator[tuple[str, str]]:
        for item in list(self._items.values()):
            if item.kind == "claim" and self._claims[item.item_id].status is ClaimStatus.FORGOTTEN:
                continue
            if item.kind == "event" and self._observations[item.item_id].forgotten:
                continue
            yield item.item_id, item.kind

    def replace_vectors(self, model_id: str, dim: int, vectors: Sequence[tuple[str, bytes]]) -> int:
        new = dict(vectors)
        for vec in new.values():
            if len(vec) != dim * 4:
                raise StorageError(f"vector of {len(vec)} bytes does not fit {dim}-d float32")
        with self.transaction():
            for item_id, item in list(self._items.items()):
                vec = new.get(item_id)
                self._journal.set(self._items, item_id, _Item(
                    item.item_id, item.kind, item.namespace, item.tokens,
                    None if vec is None else np.frombuffer(vec, dtype=np.float32)))
            self._meta.update(vector_model=model_id, vector_dim=str(dim))
        return sum(1 for i in self._items.values() if i.vector is not None)

    # -- forgetting (ForgetQueries and Erasure; ADR 0014) ---------------------------------------

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

    def check_integrity(self, *, full: bool = True) -> None:
        """Process memory has no pages to damage: always sound."""

    # -- access telemetry and lifecycle candidates (adapters/activity.py, ADR 0015) ----------------

    def record_access(self, claim_ids: Sequence[str], at: datetime) -> None:
        self._activity.record_access(claim_ids, at)

    def activity(self, claim_ids: Sequence[str]) -> dict[str, Activity]:
        return self._activity.activity(claim_ids)

    def lifecycle_candidates(self, kind: str, *, now: datetime, policy: LifecyclePolicy, after: str = "",
                             limit: int = 500) -> list[str]:
        return self._activity.lifecycle_candidates(kind, now=now, policy=policy, after=after, limit=limit)

    def archived_candidates(self, namespace: str, query: str, limit: int) -> list[Candidate]:
        return self._activity.archived_candidates(namespace, query, limit)

    def meta(self, key: str) -> str | None:
        return self._meta.get(key)

    def set_meta(self, key: str, value: str) -> None:
        self._meta[key] = value



def _bm25(query: str, items: Sequence[_Item], tokens: Mapping[str, tuple[str, ...]], limit: int, *,
          exact: bool) -> list[Candidate]:
    """A small BM25 (k1 1.2, b 0.75) over ``tokens`` by item; each query term is matched as a phrase of
    its unicode61 tokens, like the FTS5 adapter. ``exact`` marks hits holding every term."""
    terms = [tuple(segment_for_index(t).split()) for t in query_terms(query)]
    terms = [t for t in terms if t]
    if not terms or not items or limit <= 0:
        return []
    docs = {i.item_id: [tok for raw in tokens[i.item_id] for tok in _parts(raw)] for i in items}
    avg = sum(len(d) for d in docs.values()) / len(docs) or 1.0
    df = {t: sum(1 for d in docs.values() if _has_phrase(d, t)) for t in terms}
    scored = []
    for position, item in enumerate(items):
        doc = docs[item.item_id]
        score, matched = 0.0, 0
        for term in terms:
            tf = _count_phrase(doc, term)
            if tf:
                matched += 1
                idf = math.log(1 + (len(docs) - df[term] + 0.5) / (df[term] + 0.5))
                score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len(doc) / avg))
        if score > 0:
            scored.append((score, -position, item, exact and matched == len(terms)))
    # Equal scores: the item indexed last first, as the FTS5 adapter's ``rowid DESC`` does, so both
    # adapters hand recall the same order (ties are common: one turn repeated across sessions).
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [Candidate(i.item_id, i.kind, r, s, hit) for r, (s, _, i, hit) in enumerate(scored[:limit], start=1)]


def _parts(token: str) -> list[str]:
    """Split an atom the way unicode61 does."""
    return unicode61_tokens(token)


def _count_phrase(doc: list[str], term: tuple[str, ...]) -> int:
    parts = [p for raw in term for p in _parts(raw)]
    if not parts:
        return 0
    n = len(parts)
    return sum(1 for i in range(len(doc) - n + 1) if doc[i:i + n] == parts)


def _has_phrase(doc: list[str], term: tuple[str, ...]) -> bool:
    return _count_phrase(doc, term) > 0


class InMemoryCache:
    """Dict-backed ``EmbeddingCache``."""

    def __init__(self) -> None:
        self._data: dict[tuple[str, str], bytes] = {}

    def get_many(self, model_id: str, hashes: Sequence[str]) -> dict[str, bytes]:
        return {h: self._data[(model_id, h)] for h in hashes if (model_id, h) in self._data}

    def put_many(self, model_id: str, items: Sequence[tuple[str, bytes]]) -> None:
        for h, v in items:
            self._data.setdefault((model_id, h), v)

    def drop(self, hashes: Sequence[str]) -> int:
        """Delete the entries of ``hashes`` for every model (forget); copy on write."""
        gone = set(hashes)
        kept = {k: v for k, v in self._data.items() if k[1] not in gone}
        dropped = len(self._data) - len(kept)
        if dropped:
            self._data = kept
        return dropped

    def state(self) -> dict:
        """A snapshot for the store's transactions (``drop`` never mutates the dict it replaces).

        ``put_many`` does mutate it: a rolled-back transaction keeps vectors it cached, which is
        harmless (a cache of deterministic vectors)."""
        return self._data

    def restore(self, state: dict) -> None:
        """Go back to a snapshot: only entries ``drop`` removed come back."""
        if state is not self._data:
            self._data = {**self._data, **state}
