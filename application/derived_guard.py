"""Staleness in the same transaction as the source change: the write path's storage, guarded.

Every service that changes a claim (writes, extraction, conflicts, lifecycle, forget) appends
through the one storage object the composition root gives it. ``StalenessGuard`` is that object
(every store keeps derived items, :class:`~hlmem.application.ports.DerivedReader`): it passes
every call through, and an ``append`` whose events supersede, retract, expire or forget a claim
that a derived item was built from also appends, inside the same transaction, what the pure
:func:`~hlmem.domain.derived.decide_staleness` returns (ADR 0046):

- ``DerivedBecameStale`` for a current item citing the claim, and a rebuild job for the worker;
- for a forgotten claim: the item's earlier payloads are erased through the audited
  ``erase_payloads`` (its text held the claim's value) and it is scrubbed (``scrubbed=True``), or,
  when no other source survives, tombstoned with ``ItemForgotten`` and a ledger row, so replay,
  restore and re-import never bring it back.

Copies (``append_copies``: replay, restore) pass through untouched: their log already holds the
staleness events, decided when the change was first made.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar, cast

from hlmem.application.indexing import derived_text
from hlmem.application.ports import IdGenerator, IndexEntry, JobQueue, StalenessStore
from hlmem.domain.derived import decide_staleness, forget_id_of, stale_triggers
from hlmem.domain.events import DerivedBuilt, DerivedRebuilt, DomainEvent
from hlmem.domain.redaction import Tombstone

#: The job kind that rebuilds a stale derived item (the worker runs it; docs/derived.md).
DERIVE = "derive"
#: The ledger's kind for a derived item's tombstone (no fingerprint: its content was erased).
DERIVED_TOMBSTONE = "derived"


def rebuild_job(jobs: JobQueue, *, derived_id: str, version: int, namespace: str, now) -> str:
    """Enqueue the rebuild of one derived item (idempotent per item version)."""
    return jobs.enqueue(kind=DERIVE, idempotency_key=f"derive:{derived_id}:{version}", namespace=namespace,
                        session_id="derived", payload={"derived_id": derived_id}, now=now)


class StalenessGuard:
    """A storage that keeps derived items honest on every append (see the module docstring)."""

    def __init__(self, storage: StalenessStore, ids: IdGenerator, *, jobs: JobQueue | None = None) -> None:
        self._storage = storage
        self._ids = ids
        self._jobs = jobs

    @property
    def inner(self) -> StalenessStore:
        """The store itself."""
        return self._storage

    def __getattr__(self, name: str) -> Any:  # every other role passes through to the store
        return getattr(self._storage, name)

    def append(self, events: Sequence[DomainEvent], index: Mapping[str, IndexEntry] | None = None,
               **kwargs: Any) -> int:
        triggers = stale_triggers(events)
        if not triggers:
            return self._storage.append(events, index, **kwargs)
        st = self._storage
        with st.transaction():
            position = st.append(events, index, **kwargs)
            citing = st.derived_citing(sorted(triggers))
            gone = {cid for cid, why in triggers.items() if why == "forgotten"}
            earlier = _cited_before(st, gone) if gone else {}
            if earlier:
                citing = {**st.get_derived(sorted(set(earlier) - set(citing))), **citing}
            if not citing:
                return position
            at = max(e.recorded_at for e in events)
            forget_id = forget_id_of(events)
            decision = decide_staleness(triggers, citing, new_id=self._ids.new, recorded_at=at, cascade_of=forget_id,
                                        cited_before=earlier)
            if decision.empty:
                return position
            if decision.erase:
                # Their texts' vectors too (the embedding cache keeps one per text, as for claims).
                st.drop_cached_vectors(_texts_of(st, set(decision.erase)))
                st.erase_payloads(decision.erase, reason=f"forget {forget_id or ''}: a source of a derived item",
                                  at=at)
            st.append(decision.events)
            if decision.forgotten:
                st.tombstones.add([Tombstone("", DERIVED_TOMBSTONE, did, at, forget_id or "")
                                   for did in decision.forgotten])
            if self._jobs is not None:
                versions = {e.stream_id: e.version for e in decision.events}
                for did in decision.rebuild:
                    rebuild_job(self._jobs, derived_id=did, version=versions[did], namespace=citing[did].namespace,
                                now=at)
            return position


def _cited_before(storage: StalenessStore, claim_ids: set[str]) -> dict[str, frozenset[str]]:
    """The derived items any version of which was built from one of ``claim_ids``, with those
    claims: a rebuild that dropped a source keeps its earlier payloads, which held the source's
    value, so a forget must find them too (read from the log: forgets are rare, builds few)."""
    found: dict[str, set[str]] = {}
    for stored in storage.read_types((DerivedBuilt, DerivedRebuilt)):
        event = stored.event
        hit = {cid for cid, _ in getattr(event, "sources", ()) if cid in claim_ids}
        if hit:
            found.setdefault(event.stream_id, set()).update(hit)
    return {did: frozenset(cids) for did, cids in found.items()}


def _texts_of(storage: StalenessStore, derived_ids: set[str]) -> list[str]:
    """The search texts every version of these items was indexed (and embedded) with."""
    texts = []
    for stored in storage.read_types((DerivedBuilt, DerivedRebuilt)):
        e = stored.event
        if e.stream_id in derived_ids and isinstance(e, DerivedBuilt):
            if text := derived_text(e.kind, e.subject, e.label, e.text):
                texts.append(text)
    return list(dict.fromkeys(texts))


S = TypeVar("S", bound=StalenessStore)


def guarded(storage: S, ids: IdGenerator, jobs: JobQueue | None = None) -> S:
    """``storage`` behind a :class:`StalenessGuard`: every role of ``storage`` (the guard passes each
    through), with staleness decided on each append."""
    return cast("S", StalenessGuard(storage, ids, jobs=jobs))
