"""InMemoryEmbeddingCache: a dict-backed EmbeddingCache for tests and short-lived processes."""

from __future__ import annotations

from collections.abc import Sequence

import attrs


@attrs.define
class InMemoryEmbeddingCache:
    """Vectors by (model_id, content hash), held in a dict; see the ``EmbeddingCache`` port.

    ``put_many`` keeps the first vector written for a key, as a durable cache would with
    ``INSERT OR IGNORE``, so repeated puts are idempotent.
    """

    _vectors: dict[tuple[str, str], bytes] = attrs.field(factory=dict, repr=False)

    def get_many(self, model_id: str, hashes: Sequence[str]) -> dict[str, bytes]:
        """Return the vectors held for ``hashes``; missing hashes are absent from the dict.

        :param model_id: the embedder's ``model_id``; other models' vectors are never returned.
        :param hashes: content hashes, in any order, duplicates allowed.
        """
        vectors = self._vectors
        return {h: vectors[(model_id, h)] for h in hashes if (model_id, h) in vectors}

    def put_many(self, model_id: str, items: Sequence[tuple[str, bytes]]) -> None:
        """Store ``(hash, float32 bytes)`` pairs; a key already held keeps its vector.

        :param model_id: the embedder's ``model_id``.
        :param items: pairs of content hash and vector bytes.
        """
        for content_hash, vector in items:
            self._vectors.setdefault((model_id, content_hash), bytes(vector))

    def __len__(self) -> int:
        return len(self._vectors)
