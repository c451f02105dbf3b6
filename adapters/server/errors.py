"""Errors as JSON: ``{"error": {"code": "stable_code", "message": "…"}}`` with the fitting HTTP status.

:data:`ERROR_TABLE` is the one place an hlmem error class meets its status and code (docs/rest.md
lists it; a test keeps them equal). The most specific class wins (the table is searched in the
exception's MRO order). Bad input is always 4xx; 5xx means the store or a provider failed.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from hlmem.adapters.page_cursor import InvalidCursor
from hlmem.adapters.server.backups import BackupExists, UnsafeName
from hlmem.domain import errors as e

#: error class → (HTTP status, stable code).
ERROR_TABLE: Mapping[type[BaseException], tuple[int, str]] = MappingProxyType({
    InvalidCursor: (400, "invalid_cursor"),
    UnsafeName: (400, "unsafe_name"),
    BackupExists: (409, "backup_exists"),
    e.InvalidTimestamp: (400, "invalid_timestamp"),
    e.ValidationError: (400, "validation_error"),
    e.ConfigurationError: (400, "configuration_error"),
    e.UnsupportedOperation: (400, "unsupported_operation"),
    e.DomainRuleViolation: (409, "rule_violation"),
    e.NotFound: (404, "not_found"),
    e.ConcurrencyConflict: (409, "stale_version"),
    e.BackupRejected: (409, "backup_rejected"),
    e.ModelMismatch: (409, "model_mismatch"),
    e.SchemaError: (500, "schema_error"),
    e.StorageCorrupt: (500, "storage_corrupt"),
    e.StorageFull: (507, "storage_full"),
    e.StorageError: (503, "storage_error"),
    e.BudgetExceeded: (429, "budget_exceeded"),
    e.ProviderError: (502, "provider_error"),
    e.EmbedderError: (500, "embedder_error"),
    e.HlmemError: (500, "internal_error"),
})

#: Codes the app itself gives (not from an hlmem error).
APP_CODES: Mapping[str, tuple[int, str]] = MappingProxyType({
    "host_not_allowed": (421, "the `Host` header names no host this server answers to (DNS rebinding guard)"),
    "origin_not_allowed": (403, "the `Origin` header is a web page on another site (cross-site request guard)"),
    "unauthorized": (401, "no bearer token, or not the configured one"),
    "invalid_body": (422, "the body or a parameter does not fit the schema (OpenAPI)"),
    "invalid_encoding": (400, "the body is not UTF-8 text"),
    "bad_request": (400, "a request HTTP itself refuses (a body that cannot be read)"),
    "too_large": (413, "the body is larger than `max_body_bytes`"),
    "no_route": (404, "no such route"),
    "method_not_allowed": (405, "the route does not take this method"),
    "os_error": (400, "the operating system refused a file operation"),
    "internal_error": (500, "a bug: the message is generic, the server log has the traceback"),
})

#: The code of an HTTP-level refusal by its status (any other 4xx: ``bad_request``).
HTTP_CODES: Mapping[int, str] = MappingProxyType({400: "bad_request", 404: "no_route",
                                                   405: "method_not_allowed", 413: "too_large"})


def status_and_code(exc: BaseException) -> tuple[int, str]:
    """The status and code of an hlmem error (an exception group: its first member's)."""
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return status_and_code(exc.exceptions[0])
    for cls in type(exc).__mro__:
        if cls in ERROR_TABLE:
            return ERROR_TABLE[cls]
    return 500, "internal_error"


def message_of(exc: BaseException) -> str:
    """An error's message; a group's members joined (every problem at once)."""
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(message_of(x) for x in exc.exceptions)
    return str(exc)


def body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    """The error body every failing route returns."""
    return {"error": {"code": code, "message": message, **extra}}
