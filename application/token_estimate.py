"""The token estimate of context packets: an upper estimate of what a text costs an LLM, offline.

``docs/packet.md`` ("Counting tokens") shows it is at or above multilingual-e5, cl100k, Qwen2.5 and
DeepSeek counts on LoCoMo, MemDaily and adversarial strings. :class:`LineCounter` gives the same
counts for texts built of many lines, estimating each distinct line once.
"""

from __future__ import annotations

import math
import re

_RUNS = re.compile(r"(?P<w>[A-Za-z]+)|(?P<d>[0-9]+)|(?P<s> +)|(?P<c>[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]+)"
                   r"|(?P<a>[\x00-\x7f])|(?P<o>.)", re.S)
_HARD = re.compile(r"[^aeiouy]{3}|[aeiou]{3}", re.I)


def estimate_tokens(text: str) -> int:
    """An upper estimate of the tokens ``text`` costs an LLM, for Chinese, English and mixed text.

    2 per text, plus: an ASCII word of n letters ⌈n/3⌉ (⌈2n/3⌉ when it is all caps, mixed case or
    unpronounceable: ids, hashes, acronyms); 1 per digit; 1 per other ASCII character; 1 per run of
    spaces, except a single space before a word (BPE vocabularies fold it into the word); 1.5 per
    CJK character (Han, kana, Hangul, full-width forms); any other character its UTF-8 byte count
    (the byte fallback of BPE tokenizers). ``docs/packet.md`` shows it is at or above multilingual-e5,
    cl100k, Qwen2.5 and DeepSeek counts on LoCoMo, MemDaily and adversarial strings.
    """
    return math.ceil(_raw_estimate(text)) + 2 if text else 0


def _raw_estimate(text: str) -> float:
    """:func:`estimate_tokens` before rounding and the per-text 2: a sum over runs that never cross a
    line break, so a text's is its lines' plus one per line break (:class:`LineCounter` relies on it)."""
    total = 0.0
    for m in _RUNS.finditer(text):
        kind = m.lastgroup
        run = m.group()
        if kind == "w":
            plain = (run.islower() or run.istitle()) and not _HARD.search(run)
            total += math.ceil(len(run) / 3) if plain else math.ceil(2 * len(run) / 3)
        elif kind == "d":
            total += len(run)
        elif kind == "s":
            follows = text[m.end():m.end() + 1]
            total += 0 if len(run) == 1 and follows.isascii() and follows.isalpha() else 1
        elif kind == "c":
            total += 1.5 * len(run)
        elif kind == "a":
            total += 1
        else:
            total += len(run.encode("utf-8", "surrogatepass"))
    return total


class LineCounter:
    """:func:`estimate_tokens` of whole texts, each distinct line estimated once.

    A packet is counted many times while it is built (every prefix the bisection tries, every cut
    of the last item), and each count of the whole text re-read every line: for a 2,000-token
    budget that was most of a recall's time. The estimate of a text is its lines' raw estimates
    plus one per line break, rounded up, plus 2 (no run of :data:`_RUNS` crosses a line break), so
    the same number comes from a sum of remembered lines.
    """

    def __init__(self) -> None:
        self._lines: dict[str, float] = {}

    def __call__(self, text: str) -> int:
        if not text:
            return 0
        lines = text.split("\n")
        known = self._lines
        total = 0.0
        for line in lines:
            cost = known.get(line)
            if cost is None:
                cost = known[line] = _raw_estimate(line)
            total += cost
        return math.ceil(total + len(lines) - 1) + 2
