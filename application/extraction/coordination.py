"""Values joined by "and", "，", 和, 、: "allergic to peanuts and shellfish", "a dog and two cats".

A frame rule reads one value; in a multi-valued slot people often list several. Two shapes:

- the value span itself is a list (对猫毛和花粉过敏, "speak Spanish and a little Portuguese"):
  :func:`split` cuts it at the joiners;
- the rule stopped at the first item and the rest trails after it ("have a dog and two cats"):
  :func:`tail` cuts the first item (with its article or count) out of the clause and lets the
  same rule read the next one, as long as items follow.

Spans stay offsets into the clause text, so evidence quotes remain exact substrings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

#: Slots whose values people list, and the rules may split.
LIST_SLOTS = frozenset({"allergy", "speaks", "health_condition", "owns"})
_JOIN = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s+&\s+|、|和|以及|还有|及)\s*", re.I)
_AFTER = re.compile(r"(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s*(?:、|和|以及|还有)\s*)(?=\S)", re.I)
#: What opens an English noun phrase before the item ("a", "two", "my", "an old").
_DET_EN = re.compile(r"(?:\b(?:a|an|the|one|two|three|four|five|six|\d+|some|several|my|our|any)\s+)+$", re.I)
#: Items a split may not cut (names of one thing that contain a joiner).
_WHOLE = re.compile(r"(?i:\b(?:mac\s+and\s+cheese|salt\s+and\s+pepper|rock\s+and\s+roll|procter\s+&\s+gamble|"
                    r"ben\s+&\s+jerry|black\s+and\s+white|fish\s+and\s+chips)\b)")


def split(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Spans of the items of a listed value ``text[start:end]``, or [] when it is one item."""
    value = text[start:end]
    if _WHOLE.search(value) or not _JOIN.search(value):
        return []
    spans, pos = [], start
    for m in _JOIN.finditer(value):
        spans.append((pos, start + m.start()))
        pos = start + m.end()
    spans.append((pos, end))
    return [(a, b) for a, b in spans if text[a:b].strip()]


def tail(regex: re.Pattern[str], source: str, text: str, start: int, first: re.Match[str],
         most: int = 4) -> Iterator[tuple[re.Match[str], int]]:
    """Further matches of ``regex`` for the items after ``first``'s value: each with the offset to
    add to its spans (they are read from a copy of the clause with the earlier items cut out)."""
    vs, ve = first.span("v")
    for _ in range(most):
        joiner = _AFTER.match(source, ve)
        if joiner is None:
            return
        cut = _DET_EN.search(source, 0, vs)
        head = cut.start() if cut else vs
        shift = joiner.end() - head
        m = regex.match(source[:head] + source[joiner.end():], start)
        if m is None:
            return
        yield m, shift
        vs, ve = m.start("v") + shift, m.end("v") + shift
