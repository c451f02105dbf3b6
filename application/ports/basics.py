"""The basic ports every service may take: the clock, id generation and the store's transaction."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Protocol, runtime_checkable


@runtime_checkable
class Clock(Protocol):
    """Supplies the current time. The domain never reads a clock itself.

    Contract: ``now()`` returns a timezone-aware UTC datetime. Successive calls never go
    backwards within one process.
    """

    def now(self) -> datetime: ...


@runtime_checkable
class IdGenerator(Protocol):
    """Makes new identifiers.

    Contract: ``new(prefix)`` returns ``prefix + "_" + 26 Crockford base-32 characters`` that are
    unique and sort by creation time within one process.
    """

    def new(self, prefix: str) -> str: ...


@runtime_checkable
class Transactional(Protocol):
    """A store's write transaction and its lifetime: what serialises decide-then-append.

    Contract:
    - ``transaction()`` is a context manager: what the store's roles write inside it (events and
      projections, tombstones, jobs, erasures, cache entries) commits when the outermost block
      exits normally, and rolls back when it raises.
    - It is re-entrant within one thread: an inner block is part of the outer one (the outer
      block raising undoes the inner block's writes too). Reads inside it see its own writes.
    - ``close()`` releases what the store holds (SQLite first writes its buffered access counts);
      the store is not used after it.
    """

    def transaction(self) -> AbstractContextManager[None]: ...

    def close(self) -> None: ...


@runtime_checkable
class ScratchMap(Protocol):
    """A string-to-string map one long job keeps while it runs (an import's file-local ids), which
    may keep on disk what would not fit in memory: memory stays bounded whatever the job's size.

    Contract: ``m[key] = value``, ``m[key]`` (``KeyError`` when absent), ``m.get(key, default)``,
    ``key in m`` and ``len(m)`` behave as a ``dict``'s; setting a key again replaces its value.
    ``close()`` releases what it holds (a temporary file); it is not used afterwards.
    """

    def __setitem__(self, key: str, value: str) -> None: ...

    def __getitem__(self, key: str) -> str: ...

    def __contains__(self, key: object) -> bool: ...

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[str]: ...

    def get(self, key: str, default: str | None = None) -> str | None: ...

    def close(self) -> None: ...
