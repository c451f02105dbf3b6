"""``InMemoryCache``: a dict-backed EmbeddingCache for the in-memory store (forget drops from it)."""

from __future__ import annotations

from collections.abc import Sequence


class InMemoryCache:
    """Dict-backed ``EmbeddingCache``."""

    def __init__(self) -> None:
        self._data: dict[tuple[str, str], bytes] = {}

    def get_many(self, model_id: str, hashes: Sequence[str]) -> dict[str, bytes]:
        return {h: self._data[(model_id, h)] for h in hashes if (model_id, h) in self._data}

    def put_many(self, model_id: str, items: Sequence[tuple[str, bytes]]) -> None:
        for h, v in items:
            self._data.setdefault((model_id, h), v)

    def drop(self, hashes: Sequence[str]) -> int:
        """Delete the entries of ``hashes`` for every model (forget); copy on write."""
        gone = set(hashes)
        kept = {k: v for k, v in self._data.items() if k[1] not in gone}
        dropped = len(self._data) - len(kept)
        if dropped:
            self._data = kept
        return dropped

    def state(self) -> dict:
        """A snapshot for the store's transactions (``drop`` never mutates the dict it replaces).

        ``put_many`` does mutate it: a rolled-back transaction keeps vectors it cached, which is
        harmless (a cache of deterministic vectors)."""
        return self._data

    def restore(self, state: dict) -> None:
        """Go back to a snapshot: only entries ``drop`` removed come back."""
        if state is not self._data:
            self._data = {**self._data, **state}
