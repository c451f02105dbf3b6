"""Whether a value is in the language of the text it was read from (pure).

An extractor (an LLM, typically) may hand back a value translated from what the user said:
"Hangzhou" for "我住在杭州", "素食" for "I'm vegetarian now". Stored, it would never corroborate or
dedup against the user's own words, would supersede "杭州" with "Hangzhou" as if something had
changed, and recall would miss it in the user's words; admission refuses such a claim
(``admission.value_translated``, docs/pipeline.md).
"""

from __future__ import annotations

import re
import unicodedata

#: Han characters (CJK unified ideographs, extension A, compatibility ideographs).
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[a-z]{2,}")


def translated(value: str, text: str) -> bool:
    """Whether ``value`` is written in another language than ``text`` (its event's text).

    True for a value with Chinese characters when the text has none ("杭州" for "I live in
    Hangzhou"), and for a value without Chinese characters whose English words (two letters or
    more) the Chinese text holds none of, whole or in part ("Hangzhou" or "vegetarian" for
    "我住在杭州" / "我吃素"; not "MacBook" for "我换了Mac", nor "Python 3.12" for "我用Python 3.12").
    Values of digits and symbols only ("4500", "7:30") are in no language. NFKC, case-folded.
    """
    v = unicodedata.normalize("NFKC", value).casefold()
    t = unicodedata.normalize("NFKC", text).casefold()
    if _HAN.search(v):
        return not _HAN.search(t)
    if not _HAN.search(t):
        return False
    words = _LATIN_WORD.findall(v)
    text_words = _LATIN_WORD.findall(t)
    return bool(words) and not any(w in t or any(tw in w for tw in text_words) for w in words)
