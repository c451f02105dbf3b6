"""The words of a question as a linear intent model reads them, purely (ADR 0090).

:func:`features` turns a question into the set of features a bag-of-n-grams classifier weighs:
case-folded words and CJK characters (NFKC first, so full-width forms fold), the pairs of
neighbouring tokens (``know about``, ``这人``, ``咋样``), and ``?`` as a token of its own. No
dictionary and no segmenter: the same text gives the same features on every machine.
:func:`linear_probability` is the logistic of the features' summed weights.

The weights are trained offline (``scripts/train_profile_intent.py``) and loaded by the adapter
(:mod:`hlmem.adapters.intent.profile_model`); this module only reads them.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping

from attrs import frozen

_CJK_RUN = re.compile(r"([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)")
_WORD = re.compile(r"[^\W_]+|[?？]")


def _tokens(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKC", text).casefold()
    out: list[str] = []
    for i, segment in enumerate(_CJK_RUN.split(folded)):
        if i % 2 == 0:  # split() with one group alternates: other script, CJK, other, ...
            out.extend("?" if t in "?？" else t for t in _WORD.findall(segment))
        else:
            out.extend(segment)
    return out


def features(text: str) -> frozenset[str]:
    """The tokens of ``text`` and the pairs of neighbouring tokens (joined by a space)."""
    tokens = _tokens(text)
    return frozenset((*tokens, *(f"{a} {b}" for a, b in zip(tokens, tokens[1:]))))


def linear_probability(text: str, weights: Mapping[str, float], bias: float) -> float:
    """The logistic of ``bias`` plus the weights of ``text``'s features, each feature counted
    once and the sum scaled by one over the square root of their number (as in training)."""
    found = features(text)
    if not found:
        return 1.0 / (1.0 + math.exp(-bias))
    z = bias + sum(weights.get(f, 0.0) for f in found) / math.sqrt(len(found))
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


@frozen
class IntentReading:
    """How likely a question asks for a profile: ``probability`` against ``threshold``, read ``by``
    ``lexical`` (the words alone) or ``vector+lexical`` (the query vector's model and the words)."""

    probability: float
    threshold: float
    by: str

    @property
    def is_profile(self) -> bool:
        return self.probability >= self.threshold
