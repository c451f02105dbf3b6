"""Errors of the application layer: the domain tree re-exported, so callers import from one place."""

from __future__ import annotations

from hlmem.domain.errors import (
    ConcurrencyConflict,
    ConfigurationError,
    DomainRuleViolation,
    EmbedderError,
    HlmemError,
    InvalidTimestamp,
    ModelMismatch,
    NotFound,
    SchemaError,
    StorageCorrupt,
    StorageError,
    StorageFull,
    ValidationError,
)

__all__ = [
    "ConcurrencyConflict",
    "ConfigurationError",
    "DomainRuleViolation",
    "EmbedderError",
    "HlmemError",
    "InvalidTimestamp",
    "ModelMismatch",
    "NotFound",
    "SchemaError",
    "StorageCorrupt",
    "StorageError",
    "StorageFull",
    "ValidationError",
]
