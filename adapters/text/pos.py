"""Chinese part-of-speech tags for the rule extractor's precision guard (jieba.posseg, loaded on first use)."""

from __future__ import annotations

import threading
from collections.abc import Callable

_lock = threading.Lock()
_tagger: Callable[[str], list[tuple[str, str]]] | None = None


def jieba_tagger() -> Callable[[str], list[tuple[str, str]]]:
    """A ``text -> [(word, flag)…]`` tagger over hlmem's own jieba dictionary (adapters/text/segment.py).

    Nothing loads until the first call: jieba's dictionary (about 1 s, once per process, shared with
    full-text segmentation) and posseg's tables. The guard calls it once per distinct candidate
    value, so extraction pays it only for values that must look like places. Deterministic: the
    private tokenizer ignores words other libraries add to jieba's global one.
    """

    def tag(text: str) -> list[tuple[str, str]]:
        return [(pair.word, pair.flag) for pair in _posseg().cut(text)]

    return tag


def _posseg():  # noqa: ANN202 - jieba ships no type hints
    global _tagger
    if _tagger is None:
        with _lock:
            if _tagger is None:
                import jieba.posseg

                from hlmem.adapters.text.segment import _cutter

                _tagger = jieba.posseg.POSTokenizer(_cutter())
    return _tagger
