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
    │   ├── ModelMismatch                             vectors of another embedding model
    │   ├── BackupRejected                            restore refuses a backup: corrupt, foreign, newer
    │   ├── StorageCorrupt                            the store's file is damaged (``storage.corrupt``)
    │   ├── StorageFull                               no space left for the store (``storage.no_space``)
    │   └── StoreReadOnly                             the store cannot be written here (``storage.read_only``)
    ├── UnsupportedOperation(HlmemError)              this store's adapter cannot do that (backup in memory)
    ├── EmbedderError(HlmemError)                     an embedder could not load or embed
    ├── BudgetExceeded(HlmemError)                    the daily budget refused a provider call before it went out
    ├── ProviderError(HlmemError)                     an LLM provider call failed (adapter-translated)
    │   ├── ProviderTimeout(…, TimeoutError)          no answer within the timeout         retryable
    │   ├── ProviderRateLimited                       HTTP 429; ``retry_after`` seconds     retryable
    │   ├── ProviderUnavailable                       HTTP 5xx or connection failure        retryable
    │   ├── ProviderRejected                          other HTTP 4xx (key, model, request)  not retryable
    │   └── MalformedResponse(…, ValueError)          not the JSON asked for; ``raw`` kept  retryable
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


class BackupRejected(StorageError):
    """Restore refuses a backup file. ``reason`` says why, for callers and the CLI:
    ``corrupt``, ``not-a-backup``, ``newer-schema``, ``other-store`` (``force`` overrides only
    this one) or ``in-use`` (the live store is open elsewhere)."""

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


#: The ``reason`` of :class:`StorageCorrupt` and :class:`StorageFull` (docs/reason-codes.md).
STORAGE_CORRUPT = "storage.corrupt"
STORAGE_NO_SPACE = "storage.no_space"
STORAGE_READ_ONLY = "storage.read_only"
#: Every storage reason code (``tests/unit/domain/test_storage_errors.py`` checks the docs list them).
STORAGE_REASON_CODES = (STORAGE_CORRUPT, STORAGE_NO_SPACE, STORAGE_READ_ONLY)


class StorageCorrupt(StorageError):
    """The store's file is damaged: a page, b-tree, index, full-text index or stored text cannot
    be read back as it was written. Never "a newer hlmem": that is :class:`SchemaError`.
    ``path`` is the file (when known); ``reason`` is ``storage.corrupt``."""

    reason = STORAGE_CORRUPT

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


class StorageFull(StorageError):
    """The file system holding ``path`` has no space left (SQLite's ``SQLITE_FULL``, or an I/O
    error whose errno is ``ENOSPC``). ``reason`` is ``storage.no_space``."""

    reason = STORAGE_NO_SPACE

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


class StoreReadOnly(StorageError):
    """The store can be read but not written here: a read-only file system, a file this user may
    not write, or a folder where SQLite cannot make its ``-wal``/``-shm`` files. Read commands
    work; a write is refused before anything changes. ``reason`` is ``storage.read_only``."""

    reason = STORAGE_READ_ONLY

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


class UnsupportedOperation(HlmemError):
    """The store's adapter cannot do this at all (say, back up an in-process ``:memory:`` store)."""


class EmbedderError(HlmemError):
    """An embedder failed to load or to embed."""


class ConfigurationError(HlmemError, ValueError):
    """Configuration that cannot work, or a plugin that is not allowed."""


class ProviderError(HlmemError):
    """An LLM provider call failed. Messages never contain the API key (adapters redact it).

    ``retryable`` tells a job queue whether trying the same call later may succeed (the adapter
    has already spent its own retries); ``provider`` and ``status`` (HTTP) say where it failed.
    """

    retryable = True

    def __init__(self, message: str, *, provider: str | None = None, status: int | None = None) -> None:
        super().__init__(message)
        self.provider = provider
        self.status = status


class ProviderTimeout(ProviderError, TimeoutError):
    """The provider did not answer within the configured timeout."""


class ProviderRateLimited(ProviderError):
    """HTTP 429. ``retry_after`` is the provider's requested wait in seconds, when it gave one."""

    def __init__(self, message: str, *, provider: str | None = None, status: int | None = 429,
                 retry_after: float | None = None) -> None:
        super().__init__(message, provider=provider, status=status)
        self.retry_after = retry_after


class ProviderUnavailable(ProviderError):
    """HTTP 5xx, or the connection could not be made or was cut."""


class ProviderRejected(ProviderError):
    """HTTP 4xx other than 429 (bad key, unknown model, bad request): retrying cannot help."""

    retryable = False


class MalformedResponse(ProviderError, ValueError):
    """The answer is not the JSON that was asked for. ``raw`` keeps the text for diagnosis."""

    def __init__(self, message: str, *, raw: str = "", provider: str | None = None,
                 status: int | None = None) -> None:
        super().__init__(message, provider=provider, status=status)
        self.raw = raw


class BudgetExceeded(HlmemError):
    """The daily budget refused a provider call *before* it went out (docs/budget.md, ADR 0034).

    Nothing was sent and nothing is lost: a job that meets this is deferred to ``retry_at``
    with its attempts intact. Attributes say why:

    - ``limit``: ``requests_per_day``, ``tokens_per_day`` or ``cost_per_day``;
    - ``reason``: ``limit`` (the call would pass it), ``unknown_cost`` (a finite cost limit and
      no rate for this call: the budget fails closed) or ``unknown_cost_today`` (a call earlier
      today had no known cost, so today's spending cannot be bounded);
    - ``spent``, ``reserved``, ``asked``, ``allowed``: today's settled amount, open reservations,
      what this call would add (None when unknown) and the limit itself;
    - ``resets_at``: the next UTC midnight; ``retry_at``: when the call may fit again (an open
      reservation's expiry when only reservations stand in the way, else ``resets_at``).
    """

    retryable = True

    def __init__(self, message: str, *, limit: str, reason: str, spent: float, reserved: float,
                 asked: float | None, allowed: float, resets_at, retry_at=None) -> None:
        super().__init__(message)
        self.limit = limit
        self.reason = reason
        self.spent = spent
        self.reserved = reserved
        self.asked = asked
        self.allowed = allowed
        self.resets_at = resets_at
        self.retry_at = resets_at if retry_at is None else retry_at
