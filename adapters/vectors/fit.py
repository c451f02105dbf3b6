"""Vectors that fit the store: a bound model first, and the model's dimension (every SQL store)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from hlmem.application.ports import IndexEntry
from hlmem.domain.errors import StorageError


def ensure_dim(vector: bytes, dim: int) -> None:
    """Refuse a vector whose byte length does not fit the store's dimension."""
    if len(vector) != dim * 4:
        raise StorageError(f"vector of {len(vector)} bytes does not fit the store's {dim}-d float32 vectors")


def check_index_vectors(index: Mapping[str, IndexEntry], vector_model: Callable[[], tuple[str, int] | None]) -> None:
    """Before an append: an index entry's vector needs a bound model (``vector_model()``) and must
    fit its dimension. Entries without a vector need nothing."""
    if not any(entry.vector is not None for entry in index.values()):
        return
    model = vector_model()
    if model is None:
        raise StorageError("bind_vector_model() must be called before storing vectors")
    for entry in index.values():
        if entry.vector is not None:
            ensure_dim(entry.vector, model[1])
