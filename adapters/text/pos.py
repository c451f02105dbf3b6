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


def _pos_tokenizer_class():  # noqa: ANN202 - jieba ships no type hints
    import jieba.posseg

    class POSTokenizer(jieba.posseg.POSTokenizer):
        """posseg's tagger; its tags read from hlmem's dictionary file word by word when the
        tokenizer reads its counts that way (adapters/text/jieba_dict.py), else from dict.txt."""

        def load_word_tag(self, f) -> None:  # noqa: ANN001
            tags = getattr(self.tokenizer, "hlmem_tags", None)
            if tags is None:
                super().load_word_tag(f)
            else:
                f.close()
                self.word_tag_tab = tags

    return POSTokenizer


def _posseg():  # noqa: ANN202 - jieba ships no type hints
    global _tagger
    if _tagger is None:
        with _lock:
            if _tagger is None:
                from hlmem.adapters.text.segment import _cutter

                _tagger = _pos_tokenizer_class()(_cutter())
    return _tagger
