"""Where a packet may cut an item's text, and the searches that find the longest text that fits.

Split from :mod:`hlmem.application.packet` (docs/packet.md, "What is cut, what is left out"): a
cut never splits a word, number, version, path, run of Chinese numerals or grapheme, and prefers
the end of a clause. Pure functions, no I/O.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence

#: A cut item keeps at least this many characters of its text, else it is omitted instead.
MIN_CUT_CHARS = 12

_JOINERS = frozenset("._:/\\@'’+#&%-")
_CN_NUMERALS = frozenset("零〇一二两三四五六七八九十百千万亿")
_CLAUSE_ENDS = frozenset("。！？；.!?;，,、")


def _glued(a: str, b: str) -> bool:
    """Whether a cut between ``a`` and ``b`` would split a word, number, version, path or grapheme."""
    if unicodedata.category(b).startswith("M") or b in "\u200d\ufe0f\ufe0e" or a == "\u200d":
        return True
    if "\U0001f3fb" <= b <= "\U0001f3ff" or ("\U0001f1e6" <= a <= "\U0001f1ff" and "\U0001f1e6" <= b <= "\U0001f1ff"):
        return True
    word = lambda c: (c.isalnum() and not _is_cjk(c)) or c in _JOINERS  # noqa: E731
    return (word(a) and word(b)) or (a in _CN_NUMERALS and b in _CN_NUMERALS)


def _is_cjk(c: str) -> bool:
    o = ord(c)
    return 0x2E80 <= o <= 0x9FFF or 0xAC00 <= o <= 0xD7AF or 0xF900 <= o <= 0xFAFF or 0x20000 <= o <= 0x3FFFF


def safe_cuts(text: str) -> list[int]:
    """Positions where ``text`` may be cut without splitting a word, number, version or grapheme."""
    return [i for i in range(1, len(text)) if not _glued(text[i - 1], text[i])]


def _longest(candidates: Sequence[int], fits: Callable[[int], bool]) -> int | None:
    """The largest candidate that ``fits`` (bisection; only a checked candidate is ever returned)."""
    lo, hi, best = 0, len(candidates) - 1, None
    while lo <= hi:  # token counts grow with the text, so the longest that fits is found by bisection
        mid = (lo + hi) // 2
        if fits(candidates[mid]):
            best, lo = candidates[mid], mid + 1
        else:
            hi = mid - 1
    return best


def longest_prefix(n: int, fits: Callable[[int], bool]) -> int:
    """The largest ``k`` in 1..n for which ``fits(k)`` holds (0: none), galloping from the start (1, 2,
    4, …) and then bisecting: a small budget looks at its first few items only, a large one at
    O(log n) prefixes, as plain bisection does."""
    good, step = 0, 1
    while step <= n and fits(step):
        good, step = step, step * 2
    lo, hi = good + 1, min(step, n + 1) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if fits(mid):
            good, lo = mid, mid + 1
        else:
            hi = mid - 1
    return good


def cut_text(body: str, fits: Callable[[str], bool]) -> str | None:
    """The longest safe prefix of ``body`` (at least :data:`MIN_CUT_CHARS` long) for which ``fits`` holds."""
    cuts = [i for i in safe_cuts(body) if i >= MIN_CUT_CHARS]
    best = _longest(cuts, lambda i: fits(body[:i].rstrip()))
    if best is None:
        return None
    # Prefer ending on a sentence or clause when one ends in the last 30% of what fits.
    for i in range(best, max(MIN_CUT_CHARS, int(best * 0.7)) - 1, -1):
        if body[i - 1] in _CLAUSE_ENDS and (i == len(body) or not _glued(body[i - 1], body[i])):
            if fits(body[:i].rstrip()):
                return body[:i].rstrip()
            break
    return body[:best].rstrip()


