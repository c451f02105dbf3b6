"""CachedEmbedder: an Embedder that embeds only texts its EmbeddingCache does not hold yet."""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

import attrs
import numpy as np

from hlmem.application.errors import EmbedderError

if TYPE_CHECKING:
    from hlmem.application.ports import Embedder, EmbeddingCache

Role = Literal["passage", "query"]

#: Vectors are stored little-endian whatever the machine, so a cache file can move between hosts.
_STORED_DTYPE = np.dtype("<f4")


def content_hash(text: str, role: Role = "passage") -> str:
    """The cache key of ``text``: sha256 hex of the role and the NFC-normalised text.

    The role keeps an e5 query vector from being served for the same text as a passage.

    :param text: the text as the caller gave it.
    :param role: ``"passage"`` or ``"query"``.
    """
    payload = unicodedata.normalize("NFC", text).encode("utf-8", "surrogatepass")
    return hashlib.sha256(role.encode("ascii") + b"\x00" + payload).hexdigest()


@attrs.frozen
class CachedEmbedder:
    """Wraps an :class:`~hlmem.application.ports.Embedder` with an ``EmbeddingCache``.

    Each call hashes its texts, asks the cache once, embeds the distinct misses in one inner
    call (NFC-normalised, first occurrence order) and writes them back with ``put_many``. The
    result keeps the input order and its duplicates. Keys are scoped by the inner ``model_id``.

    :param inner: the embedder that does the work.
    :param cache: where vectors are kept.
    :param cache_queries: also cache query vectors (under a different role in the key).
    """

    inner: Embedder
    cache: EmbeddingCache
    cache_queries: bool = True

    @property
    def model_id(self) -> str:
        """The inner embedder's ``model_id``: caching does not change the vectors."""
        return self.inner.model_id

    @property
    def dim(self) -> int:
        """The inner embedder's dimension."""
        return self.inner.dim

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed stored texts, from the cache where possible."""
        return self._embed(texts, "passage")

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed queries, from the cache where possible unless ``cache_queries`` is off."""
        if not self.cache_queries:
            return self.inner.embed_queries(texts)
        return self._embed(texts, "query")

    def _embed(self, texts: Sequence[str], role: Role) -> np.ndarray:
        if isinstance(texts, str):
            raise EmbedderError("expected a sequence of texts, got a single str")
        texts = list(texts)
        for text in texts:
            if not isinstance(text, str):
                raise EmbedderError(f"expected str, got {type(text).__name__}")
        dim = self.inner.dim
        out = np.empty((len(texts), dim), dtype=np.float32)
        if not texts:
            return out
        model_id = self.inner.model_id
        keys = [content_hash(text, role) for text in texts]
        unique = list(dict.fromkeys(keys))
        width = dim * _STORED_DTYPE.itemsize
        vectors = {
            key: np.frombuffer(raw, dtype=_STORED_DTYPE)
            for key, raw in self.cache.get_many(model_id, unique).items()
            # A row of the wrong size (corrupt, or another dimension) is treated as a miss.
            if len(raw) == width
        }
        first_text = dict(zip(keys, texts, strict=True))
        misses = [key for key in unique if key not in vectors]
        if misses:
            fresh = self._embed_inner([first_text[key] for key in misses], role)
            if fresh.shape != (len(misses), dim):
                raise EmbedderError(
                    f"{model_id} returned shape {fresh.shape}, expected {(len(misses), dim)}"
                )
            fresh = fresh.astype(_STORED_DTYPE, copy=False)
            self.cache.put_many(
                model_id, [(key, row.tobytes()) for key, row in zip(misses, fresh, strict=True)]
            )
            vectors.update(zip(misses, fresh, strict=True))
        for i, key in enumerate(keys):
            out[i] = vectors[key]
        return out

    def _embed_inner(self, texts: list[str], role: Role) -> np.ndarray:
        # Embed what the key describes (the NFC form), so a hit and a miss give the same vector.
        normalised = [unicodedata.normalize("NFC", text) for text in texts]
        if role == "query":
            return np.asarray(self.inner.embed_queries(normalised))
        return np.asarray(self.inner.embed_passages(normalised))
