"""Replay: rebuild every projection from the log into a fresh store and report differences.

The store's tombstone ledger and its salt travel first, before any event (ADR 0059): a replay is
how a store moves (``replay --into``: SQLite, PostgreSQL, either way), and the moved store must
refuse forgotten content exactly as the source did, even if the copy stops half-way.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator

from attrs import frozen

from hlmem.application.experience import experience_differences
from hlmem.application.indexing import claim_text, event_index_text, passage_vectors
from hlmem.application.ports import Embedder, IndexEntry, JobQueue, Storage, StoredEvent
from hlmem.application.relations import relation_differences
from hlmem.application.vector_backlog import VECTOR, searchable_texts
from hlmem.domain.experience_events import is_experience_stream
from hlmem.domain.redaction import Tombstone, redact
from hlmem.domain.reducers import index_change
from hlmem.domain.slots import SlotRegistry

#: Events appended to the fresh store per ``append_copies`` call.
BATCH = 1_000
#: Events per transaction of the fresh store (ADR 0086): a commit writes every page the
#: transaction touched, and the store's projection keeps the states a transaction read, so a few
#: large transactions write and read far less than one per batch. Nobody else writes the fresh
#: store, so holding its write lock that long delays no one.
COMMIT_EVERY = 25_000


@frozen
class ReplayReport:
    """What a replay compared: counts on both sides and every difference found (empty = equal)."""

    events: int
    streams: int
    live_counts: dict[str, int]
    rebuilt_counts: dict[str, int]
    differences: tuple[str, ...]
    #: Rows of the tombstone ledger each side holds (a replay carries them, with the salt).
    tombstones: int = 0
    #: What the health check before the replay examined (``replay --verify``), in words; None without one.
    integrity: str | None = None

    @property
    def equal(self) -> bool:
        """Whether the rebuilt projections equal the live ones."""
        return not self.differences


class ReplayService:
    """Folds a store's log into another (fresh) store through the same reducers and compares."""

    def __init__(self, registry: SlotRegistry, embedder: Embedder | None = None, *,
                 jobs: JobQueue | None = None) -> None:
        """:param jobs: the live store's job queue: vectors its writes still owe the worker (ADR 0080)
            are no difference, since the rebuild embeds every vector."""
        self._registry = registry
        self._embedder = embedder
        self._jobs = jobs

    def replay(self, source: Storage, target: Storage, progress: Callable[[int], None] | None = None) -> ReplayReport:
        """Rebuild ``source``'s projections into the fresh ``target`` and compare the two.

        The ledger travels first; tombstoned streams are copied redacted whatever their payloads hold.
        """
        self.rebuild(source, target, progress)
        return self.compare(source, target)

    def rebuild(self, source: Storage, target: Storage, progress: Callable[[int], None] | None = None, *,
                forgotten: Collection[str] = ()) -> int:
        """Carry the source's tombstone ledger and salt to the fresh ``target``
        (:func:`carry_ledger`), then append every event of ``source`` to it; return how many events.

        Every stream the ledger names, and each of ``forgotten``, is copied redacted whatever the
        source's payloads hold (defensive: a log whose erasure was lost never projects forgotten
        content), and is not indexed.
        """
        carried = carry_ledger(source, target)
        gone = frozenset(forgotten) | {t.stream_id for t in carried}
        model = source.vector_model()
        if model is not None and self._embedder is not None:
            target.bind_vector_model(*model)
        count = 0
        # Each event comes with its stored payload text, which the target may copy verbatim.
        batch: list[tuple[StoredEvent, str | None]] = []
        events = source.read_stored()
        more = True
        while more:
            with target.transaction():
                committed = count
                more = False
                for stored in events:
                    batch.append(stored)
                    if len(batch) >= BATCH:
                        count += self._flush(batch, target, gone)
                        if progress:
                            progress(count)
                        if count - committed >= COMMIT_EVERY:
                            more = True
                            break
                count += self._flush(batch, target, gone)
        if progress:
            progress(count)
        return count

    def _flush(self, batch: list[tuple[StoredEvent, str | None]], target: Storage, gone: frozenset[str]) -> int:
        if not batch:
            return 0
        events = [redact(s.event) if s.event.stream_id in gone else s.event for s, _ in batch]
        payloads = {s.event.event_id: None if s.event.stream_id in gone else text for s, text in batch}
        # An erased item has no text to index (its tombstone drops it anyway).
        texts = {e.stream_id: t for e in events
                 if e.stream_id not in gone and (t := event_index_text(e, self._registry))}
        texts.update(self._returning(events, texts, target, gone))
        by_text: dict[str, bytes] = {}
        if target.vector_model() is not None:
            # The embedder is cached by content hash: unchanged text is never embedded again.
            by_text = passage_vectors(self._embedder, target, list(texts.values()))
        index = {sid: IndexEntry(t, by_text.get(t)) for sid, t in texts.items()}
        target.append_copies(events, index, payloads)
        n = len(batch)
        batch.clear()
        return n

    def _returning(self, events: list, texts: dict[str, str], target: Storage, gone: frozenset[str]) -> dict[str, str]:
        """Search texts of claims an event brings back into the index (``ClaimRevived``) whose
        assertion an earlier batch already appended: they come from the target's states."""
        back = [e.stream_id for e in events if (change := index_change(e)) and change[0] == "add"
                and e.stream_id not in texts and e.stream_id not in gone and e.stream_id.startswith("cl_")]
        out = {}
        for cid, c in target.get_claims(back).items() if back else ():
            if text := claim_text(c.subject, c.predicate, c.value, c.qualifiers, c.coordinates, c.polarity,
                                  self._registry):
                out[cid] = text
        return out

    def _owed_vectors(self, live: Storage) -> int:
        """Vectors the live store's writes owe the worker (jobs not yet done, nor given up) for
        items still searchable: the rebuild embedded those, and nothing else it did differs."""
        if self._jobs is None:
            return 0
        counts = self._jobs.job_counts()
        open_states = ("pending", "running", "failed")
        if not any(counts.get(VECTOR, {}).get(state, 0) for state in open_states):
            return 0
        ids = [str(job.payload.get("item_id", "")) for state in open_states
               for job in self._jobs.jobs(state=state, limit=sum(c.get(state, 0) for c in counts.values()))
               if job.kind == VECTOR]
        return len(searchable_texts(live, ids, self._registry))

    def compare(self, live: Storage, rebuilt: Storage) -> ReplayReport:
        """Compare every stream's projected state and version between two stores.

        Streams come from one ``stream_versions`` call per store (not a second read of the log);
        states are decoded only where the stores' ``projection_fingerprints`` differ.
        """
        streams = live.stream_versions()
        rebuilt_versions = rebuilt.stream_versions()
        events = live.last_position()
        claim_ids = [s for s in streams if s.startswith("cl_")]
        obs_ids = [s for s in streams if s.startswith("ev_")]
        conflict_ids = [s for s in streams if s.startswith("cf_")]
        # The rebuilt store (fresh, private) finds the identical streams itself where it can.
        same = rebuilt.identical_projections(live)
        diffs = list(_diff("claim", claim_ids, live, rebuilt, live.get_claims, rebuilt.get_claims, same))
        diffs += _diff("event", obs_ids, live, rebuilt, live.get_observations, rebuilt.get_observations, same)
        diffs += _diff("conflict", conflict_ids, live, rebuilt, live.get_conflicts, rebuilt.get_conflicts, same)
        diffs += experience_differences(live, rebuilt, [s for s in streams if is_experience_stream(s)])
        diffs += relation_differences(live, rebuilt, list(streams))
        derived_ids = [s for s in streams if s.startswith("dv_")]
        if derived_ids:
            diffs += _diff("derived item", derived_ids, live, rebuilt, live.get_derived, rebuilt.get_derived, same)
        for sid in {**streams, **rebuilt_versions}:
            if streams.get(sid, 0) != rebuilt_versions.get(sid, 0):
                diffs.append(f"stream {sid}: version {streams.get(sid, 0)} live, "
                             f"{rebuilt_versions.get(sid, 0)} rebuilt")
        live_counts, rebuilt_counts = live.counts(), rebuilt.counts()
        owed = {"vectors": self._owed_vectors(live)}
        for key in sorted(set(live_counts) | set(rebuilt_counts)):
            if live_counts.get(key, 0) + owed.get(key, 0) != rebuilt_counts.get(key, 0):
                diffs.append(f"count {key}: {live_counts.get(key, 0)} live, {rebuilt_counts.get(key, 0)} rebuilt")
        ledger, rows = ledger_differences(live, rebuilt)
        return ReplayReport(events, len(streams), live_counts, rebuilt_counts, tuple(diffs + ledger), rows)


def carry_ledger(source: Storage, target: Storage) -> list[Tombstone]:
    """Give ``target`` the tombstone ledger of ``source``: its salt, then every row, in one
    transaction of the target; return the rows.

    Fingerprints are keyed by the salt, so the rows (and the fingerprints inside the log's
    ``ItemForgotten`` and ``ForgetRequested`` events) match in the target only under the source's
    salt: the target adopts it, which a target with tombstones of its own refuses
    (``ValidationError``). Rows the target already holds are not added twice.
    """
    rows = source.tombstones.tombstones()
    with target.transaction():
        target.tombstones.adopt_salt(source.tombstones.salt())
        target.tombstones.add(rows)
    return rows


def _key(t: Tombstone) -> tuple[str, str, str]:
    return t.fingerprint, t.kind, t.stream_id


def ledger_differences(live: Storage, rebuilt: Storage) -> tuple[list[str], int]:
    """How the two stores' tombstone ledgers differ (salt, rows), and how many rows the live one holds."""
    diffs = []
    if live.tombstones.salt() != rebuilt.tombstones.salt():
        diffs.append("tombstone salt: the rebuilt store's differs from the live one's (its fingerprints would "
                     "not match)")
    ours = {_key(t) for t in live.tombstones.tombstones()}
    theirs = {_key(t) for t in rebuilt.tombstones.tombstones()}
    if missing := ours - theirs:
        diffs.append(f"tombstones: {len(missing)} of the live store's {len(ours)} missing from the rebuilt store "
                     f"(streams {', '.join(sorted({k[2] for k in missing})[:5])})")
    if extra := theirs - ours:
        diffs.append(f"tombstones: {len(extra)} in the rebuilt store only")
    return diffs, len(ours)


def _diff(kind: str, ids: list[str], live: Storage, rebuilt: Storage, left: Callable,
          right: Callable, same: frozenset[str] | None = None) -> Iterator[str]:
    """Differences of ``ids``' states; ``same``: streams the stores found identical themselves
    (None: compare fingerprints)."""
    if same is not None:
        ids = [sid for sid in ids if sid not in same]
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        if same is not None:
            suspects = chunk
        else:
            # Equal fingerprints mean equal states; only the others are decoded and compared.
            a, b = live.projection_fingerprints(chunk), rebuilt.projection_fingerprints(chunk)
            suspects = [sid for sid in chunk if sid not in a or a[sid] != b.get(sid)]
        if not suspects:
            continue
        a, b = left(suspects), right(suspects)
        for sid in suspects:
            if a.get(sid) != b.get(sid):
                yield f"{kind} {sid}: live {a.get(sid)!r} != rebuilt {b.get(sid)!r}"
