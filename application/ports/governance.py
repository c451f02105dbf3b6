"""The governance roles of forgetting (ADR 0014): forget look-ups, erasure and the tombstone ledger."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from hlmem.domain.redaction import Tombstone


@runtime_checkable
class ForgetQueries(Protocol):
    """The look-ups a forget plans with (:mod:`hlmem.application.forgetting`).

    Contract:
    - ``session_events(namespace, session_id)`` lists the ids of every event of the session,
      forgotten ones included, oldest first.
    - ``events_mentioning(namespace, name)`` and ``claims_mentioning(namespace, name)`` list the
      not-forgotten events whose text, and claims whose subject, value or qualifiers, mention
      ``name`` exactly as :func:`hlmem.domain.forgetting.mentions` decides (a full scan is fine:
      forgetting is rare).
    - ``extractions_citing(event_ids)`` lists the extraction-record streams (``ex_…``) whose
      ``source_events`` include any of ``event_ids``.
    - ``indexed(ids)`` maps each id the search index holds to ``(has_text_row, has_vector)``.
    """

    def session_events(self, namespace: str, session_id: str) -> list[str]: ...

    def sessions_events(self, namespace: str, session_ids: Sequence[str]) -> dict[str, list[str]]:
        """``session_events`` of each of ``session_ids`` in one read (recall's neighbour turns)."""
        ...

    def events_mentioning(self, namespace: str, name: str) -> list[str]: ...

    def claims_mentioning(self, namespace: str, name: str) -> list[str]: ...

    def extractions_citing(self, event_ids: Sequence[str]) -> list[str]: ...

    def indexed(self, ids: Sequence[str]) -> dict[str, tuple[bool, bool]]: ...


@runtime_checkable
class Erasure(Protocol):
    """The one audited path that removes forgotten content from a store (ADR 0014).

    Contract:
    - ``erase_payloads(stream_ids, reason=, at=)`` replaces the payload of every event of those
      streams that holds content with :func:`hlmem.domain.redaction.redact` of it, recording each
      erasure (position, time, reason); envelopes and order stay. Idempotent: an erased payload is
      not erased again. Returns how many payloads it erased. Call inside ``transaction()``.
    - ``drop_cached_vectors(texts)`` deletes the embedding-cache entries of those texts (as they
      were embedded, for every model and role); returns how many it deleted.
    - ``scrub_jobs(event_ids, fragments)`` blanks what job rows may hold of forgotten content: the
      error text and raw provider response of jobs serving ``event_ids`` and of any job whose
      error or raw response contains one of ``fragments``. Job ids, kinds and states stay.
      Returns how many jobs it changed.
    - ``mark_erasure_pending(forget_id)`` records, inside the forget's transaction, that its erased
      bytes may remain on disk until a ``compact_erased()`` completes (so a crash between the
      commit and the compaction is finished later too); ``pending_erasure()`` returns the id of
      the last forget so recorded, or None.
    - ``compact_erased()`` runs after the forget's transaction commits and makes the erased bytes
      unreachable on disk (SQLite: secure delete is on, the full-text index is optimised, the
      query-planner samples are refreshed and the WAL is checkpointed and truncated); it returns
      what it did, by name, with ``pending`` 1 when another connection kept it from completing
      (then the record stays, and a later call — the next open, the worker, maintenance —
      finishes it and clears the record); ``stale_copies`` counts temporary copies of the store
      that killed backups, restores or replays left beside its file, removed because each holds
      the text from before the forget (SQLite). In-memory stores have nothing to compact.
    """

    def erase_payloads(self, stream_ids: Sequence[str], *, reason: str, at: datetime) -> int: ...

    def drop_cached_vectors(self, texts: Sequence[str]) -> int: ...

    def scrub_jobs(self, event_ids: Sequence[str], fragments: Sequence[str]) -> int: ...

    def mark_erasure_pending(self, forget_id: str) -> None: ...

    def pending_erasure(self) -> str | None: ...

    def compact_erased(self) -> dict[str, int]: ...


@runtime_checkable
class TombstoneLedger(Protocol):
    """Fingerprints of forgotten content (salted; never the text), kept so nothing comes back.

    Contract:
    - ``salt()`` is this store's secret: 32 random bytes, created once, kept in the store (a
      backup carries it), the same on every call.
    - ``add(tombstones)`` records rows; adding a row already held is a no-op. Inside a store
      transaction it commits (or rolls back) with it.
    - ``tombstones()`` lists every row, oldest first; ``matching(fingerprints)`` returns the
      given fingerprints that some row holds (the empty fingerprint never matches);
      ``of_streams(ids)`` maps each listed stream id that has a row to its first row.
    - ``adopt_salt(salt)`` makes ``salt`` (32 bytes) this store's salt, for a store that receives
      another store's log and ledger (a replay's fresh target, ADR 0059): the fingerprints in
      them then go on matching here. A no-op when it is already the salt; refused with
      ``ValidationError`` when the ledger holds rows (they were made with the present salt).
      Inside a store transaction it commits (or rolls back) with it.
    """

    def salt(self) -> bytes: ...

    def adopt_salt(self, salt: bytes) -> None: ...

    def tombstones(self) -> list[Tombstone]: ...

    def add(self, tombstones: Sequence[Tombstone]) -> None: ...

    def matching(self, fingerprints: Collection[str]) -> set[str]: ...

    def of_streams(self, stream_ids: Sequence[str]) -> dict[str, Tombstone]: ...


@runtime_checkable
class HasTombstoneLedger(Protocol):
    """A store that keeps its tombstone ledger beside its log (reached as ``store.tombstones``).

    Contract: ``tombstones`` is the same :class:`TombstoneLedger` for the life of the store, kept
    in the store itself (a backup carries it) and written inside the store's ``transaction()``.
    The composition root hands it to :class:`~hlmem.application.forgetting.ForgetService`;
    replay and restore read it to keep forgotten streams from coming back.
    """

    @property
    def tombstones(self) -> TombstoneLedger: ...
