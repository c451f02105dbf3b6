"""Domain errors. Every hlmem exception is rooted here, in :class:`HlmemError`.

The whole tree (``application/errors.py`` adds the infrastructure branch)::

    HlmemError(Exception)
    ├── ValidationError(HlmemError, ValueError)      bad input; carries a machine-readable field
    │   └── InvalidTimestamp                          unparseable or timezone-less time
    ├── DomainRuleViolation(HlmemError)               a command the domain rules refuse
    ├── NotFound(HlmemError, LookupError)              no claim/event with that id
    ├── StorageError(HlmemError)                      the store failed (adapter-translated)
    │   ├── ConcurrencyConflict                       a stream version was taken meanwhile
    │   ├── SchemaError                               unknown or newer schema, corrupt row
    │   └── ModelMismatch                             vectors of another embedding model
    ├── EmbedderError(HlmemError)                     an embedder could not load or embed
    └── ConfigurationError(HlmemError, ValueError)    bad configuration or plugin not allowed

Multi-field validation failures are raised as ``ExceptionGroup`` of ValidationErrors (as cattrs
does), so a caller sees every problem at once.
"""

from __future__ import annotations


class HlmemError(Exception):
    """Root of every error hlmem raises on purpose."""


class ValidationError(HlmemError, ValueError):
    """Input that hlmem refuses; ``field`` names what was wrong (for JSON errors and the CLI)."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class InvalidTimestamp(ValidationError):
    """A timestamp that cannot be parsed or has no timezone."""


class DomainRuleViolation(HlmemError):
    """A well-formed command that the domain rules refuse."""


class NotFound(HlmemError, LookupError):
    """No item with the given id."""


class StorageError(HlmemError):
    """The storage adapter failed; adapters translate their driver errors into this branch."""


class ConcurrencyConflict(StorageError):
    """An append lost an optimistic-concurrency race: the stream moved on meanwhile."""


class SchemaError(StorageError):
    """A stored row or schema version this code cannot read."""


class ModelMismatch(StorageError):
    """The store's vectors were made by another embedding model."""


class EmbedderError(HlmemError):
    """An embedder failed to load or to embed."""


class ConfigurationError(HlmemError, ValueError):
    """Configuration that cannot work, or a plugin that is not allowed."""
