"""HashEmbedder: a deterministic, numpy-only feature-hashing embedder for tests and offline use."""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from collections.abc import Sequence

import attrs
import numpy as np

from hlmem.adapters.embedders._inputs import as_texts, int_at_least

#: Scripts written without spaces: Han (incl. extension A and compatibility ideographs), kana
#: and Hangul syllables. Runs of these become character unigrams + bigrams.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_CJK_RUN = re.compile(f"([{_CJK}]+)")
_WORD = re.compile(r"[^\W_]+")
#: Stands in for text with no tokens, so that every row still has unit norm.
_EMPTY_FEATURE = "\x00empty"
#: Salts the hash; bumping it (and ``_VERSION``) changes every vector.
_PERSON = b"hlmem-hash-v1"
_VERSION = 1


@functools.lru_cache(maxsize=1 << 17)
def _feature_hash(feature: str) -> int:
    """A 64-bit hash that is stable across processes (unlike the salted builtin ``hash``)."""
    digest = hashlib.blake2b(
        feature.encode("utf-8", "surrogatepass"), digest_size=8, person=_PERSON
    ).digest()
    return int.from_bytes(digest, "little")


def features(text: str) -> list[str]:
    """Split ``text`` into hashing features.

    Latin-like scripts give case-folded word tokens; each CJK run gives its characters and
    their bigrams, so that "深色模式" and "深色主题" share "深", "色" and "深色".

    :param text: any string; it is NFKC-normalised first (full-width forms fold to ASCII).
    """
    text = unicodedata.normalize("NFKC", text).casefold()
    out: list[str] = []
    for i, segment in enumerate(_CJK_RUN.split(text)):
        if i % 2 == 0:  # split() with one group alternates: non-CJK, CJK, non-CJK, ...
            out.extend(_WORD.findall(segment))
        else:
            out.extend(segment)
            out.extend(segment[j : j + 2] for j in range(len(segment) - 1))
    return out



@attrs.frozen
class HashEmbedder:
    """Signed feature hashing of word tokens and CJK character n-grams, L2-normalised.

    Lexical only: it knows no synonyms, so it is for tests and for machines with no model. It is
    symmetric (queries and passages are embedded alike) and identical across processes.

    :param dim: number of hash buckets, i.e. the vector dimension.
    """

    dim: int = attrs.field(default=256, validator=int_at_least(2, "HashEmbedder dim"))

    @property
    def model_id(self) -> str:
        """``hash-v1-<dim>``: the algorithm version and the bucket count."""
        return f"hash-v{_VERSION}-{self.dim}"

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed stored texts; see :class:`hlmem.application.ports.Embedder`."""
        return self._embed(as_texts(texts))

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed queries exactly like passages (the model is symmetric)."""
        return self._embed(as_texts(texts))

    def _embed(self, texts: list[str]) -> np.ndarray:
        n = len(texts)
        hashes: list[int] = []
        counts = np.empty(n, dtype=np.int64)
        for i, text in enumerate(texts):
            feats = features(text) or [_EMPTY_FEATURE]
            hashes.extend(map(_feature_hash, feats))
            counts[i] = len(feats)
        h = np.array(hashes, dtype=np.uint64)
        cols = (h % np.uint64(self.dim)).astype(np.int64)
        # The top bit picks the sign, so colliding features tend to cancel rather than pile up.
        signs = np.where(h >> np.uint64(63), 1.0, -1.0)
        rows = np.repeat(np.arange(n, dtype=np.int64), counts)
        flat = np.bincount(rows * self.dim + cols, weights=signs, minlength=n * self.dim)
        matrix = flat.reshape(n, self.dim)
        norms = np.linalg.norm(matrix, axis=1)
        # Features can cancel exactly (two tokens, same bucket, opposite signs): fall back to
        # the empty-text vector so that every row keeps unit norm.
        dead = norms == 0
        if dead.any():
            matrix[dead] = self._empty_row()
            norms[dead] = 1.0
        return (matrix / norms[:, None]).astype(np.float32)

    def _empty_row(self) -> np.ndarray:
        # The same vector the empty text gets through the normal path.
        row = np.zeros(self.dim)
        h = _feature_hash(_EMPTY_FEATURE)
        row[h % self.dim] = 1.0 if h >> 63 else -1.0
        return row
