"""``InMemoryTombstoneLedger``: the TombstoneLedger port in process memory (for ``InMemoryStorage``)."""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence

from hlmem.domain.errors import ValidationError
from hlmem.domain.redaction import REFUSED_SALT, Tombstone, check_salt


class InMemoryTombstoneLedger:
    """Rows in a tuple, replaced (never mutated) on ``add``, so a store transaction can restore it."""

    def __init__(self, salt: bytes | None = None) -> None:
        self._salt = salt or os.urandom(32)
        self._rows: tuple[Tombstone, ...] = ()
        self._keys: frozenset[tuple[str, str, str]] = frozenset()
        self._fingerprints: frozenset[str] = frozenset()

    def salt(self) -> bytes:
        return self._salt

    def adopt_salt(self, salt: bytes) -> None:
        check_salt(salt)
        if salt == self._salt:
            return
        if self._rows:
            raise ValidationError(REFUSED_SALT, field="salt")
        self._salt = salt

    def tombstones(self) -> list[Tombstone]:
        return list(self._rows)

    def add(self, tombstones: Sequence[Tombstone]) -> None:
        rows, keys = list(self._rows), set(self._keys)
        for t in tombstones:
            key = (t.fingerprint, t.kind, t.stream_id)
            if key not in keys:
                keys.add(key)
                rows.append(t)
        self._rows, self._keys = tuple(rows), frozenset(keys)
        self._fingerprints = frozenset(k[0] for k in keys)

    def matching(self, fingerprints: Collection[str]) -> set[str]:
        return {f for f in fingerprints if f and f in self._fingerprints}

    def of_streams(self, stream_ids: Sequence[str]) -> dict[str, Tombstone]:
        wanted = set(stream_ids)
        out: dict[str, Tombstone] = {}
        for t in self._rows:
            if t.stream_id in wanted:
                out.setdefault(t.stream_id, t)
        return out

    # -- for the store's transactions -------------------------------------------------------------

    def state(self) -> tuple:
        """An opaque snapshot (the rows are immutable: a reference is enough)."""
        return self._rows, self._keys, self._fingerprints, self._salt

    def restore(self, state: tuple) -> None:
        """Go back to a snapshot taken by :meth:`state`."""
        self._rows, self._keys, self._fingerprints, self._salt = state
