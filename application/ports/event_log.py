"""The event-log roles: the append-only log with its positions and index entries, and the store's identity."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Protocol, runtime_checkable

from attrs import frozen

from hlmem.domain.events import DomainEvent


@frozen
class StoredEvent:
    """An event with its global position in the log (1, 2, 3, … in append order)."""

    position: int
    event: DomainEvent


@frozen
class IndexEntry:
    """What to index for one claim or observation: its search text and, optionally, its vector.

    ``vector`` is float32 bytes of the store's embedding model, or None to index text only.
    """

    text: str
    vector: bytes | None = None


@runtime_checkable
class EventLog(Protocol):
    """The append-only log and the projections it drives.

    Contract:
    - ``append`` writes the events, in order, *and* applies them to every projection and index
      in one atomic transaction: after a crash there is never a half-applied event.
    - Each event's ``version`` must be its stream's last version + 1 (1 for a new stream);
      otherwise nothing is written and :class:`ConcurrencyConflict` is raised.
    - Events are never updated or deleted (the database refuses it where it can).
    - ``read`` yields events in append order, positions strictly increasing from 1.
    - ``read_stored`` yields what ``read`` does, each with its payload as the adapter stored it
      (an opaque text) or None when it has none to give (erased, upcast on reading, or an
      adapter that serialises nothing). ``append_copies(events, index, payloads)`` is ``append``
      for events copied from another log, with those texts by event id: an adapter that stores
      payloads the same way may keep them verbatim instead of encoding each event again (it must
      store exactly what encoding would); others ignore them. Replay uses the pair.
    - ``stream_versions()`` maps every stream in the log to its last version (what
      ``stream_version`` gives for each, in one call).
    - ``read_types(types, after=0, before=None, limit=None, newest_first=False)`` yields what
      ``read`` yields, restricted to events whose class is one of ``types`` and to positions
      strictly between ``after`` and ``before``, in log order or newest first; at most
      ``limit``. The audit reads governance events this way.
    - ``projection_fingerprints(stream_ids)`` gives, for each listed claim, observation or
      conflict the projections hold, a value that equals another store's value for that stream
      only if the two projected states are equal (values of two different adapters need never
      be equal). It is a cheap pre-check: replay decodes and compares the states only of the
      streams whose fingerprints differ.
    - ``identical_projections(other)`` gives the streams whose projected states are equal in
      this store and in ``other`` (another store, usually a replay's rebuild), found in one pass
      by the store itself, or None when it cannot tell (``other`` is another adapter's store, or
      not at hand): then replay compares fingerprints. Never a stream whose states differ.
    """

    def append(self, events: Sequence[DomainEvent], index: Mapping[str, IndexEntry] | None = None) -> int: ...

    def read(self, after: int = 0, limit: int | None = None) -> Iterator[StoredEvent]: ...

    def read_stored(self, after: int = 0, limit: int | None = None) -> Iterator[tuple[StoredEvent, str | None]]: ...

    def append_copies(self, events: Sequence[DomainEvent], index: Mapping[str, IndexEntry] | None = None,
                      payloads: Mapping[str, str | None] | None = None) -> int: ...

    def read_types(self, types: Collection[type[DomainEvent]], *, after: int = 0, before: int | None = None,
                   limit: int | None = None, newest_first: bool = False) -> Iterator[StoredEvent]: ...

    def last_position(self) -> int: ...

    def stream_version(self, stream_id: str) -> int: ...

    def stream_versions(self) -> dict[str, int]: ...

    def projection_fingerprints(self, stream_ids: Sequence[str]) -> dict[str, object]: ...

    def identical_projections(self, other: object) -> frozenset[str] | None: ...


@runtime_checkable
class StoreIdentity(Protocol):
    """Which store this is.

    Contract: ``store_id()`` returns the same random id for the life of the store (made once,
    with the store). A store, its backups and what is restored from them share the id, so
    restore can tell a backup of this store from another's; stores created apart never do.
    """

    def store_id(self) -> str: ...
