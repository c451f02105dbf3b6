"""Values joined by "and", "，", 和, 、: "allergic to peanuts and shellfish", "a dog and two cats".

A frame rule reads one value; in a multi-valued slot people often list several. Two shapes:

- the value span itself is a list (对猫毛和花粉过敏, "speak Spanish and a little Portuguese"):
  :func:`split` cuts it at the joiners;
- the rule stopped at the first item and the rest trails after it ("have a dog and two cats",
  "three kids and a golden retriever"): :func:`cut` says what to cut out of the clause (the first
  item with its article or count, and the "and") so the rules read the next one.

Spans stay offsets into the clause text, so evidence quotes remain exact substrings.
"""

from __future__ import annotations

import re

#: Slots whose values people list, and the rules may split.
LIST_SLOTS = frozenset({"allergy", "speaks", "health_condition", "owns"})
_JOIN = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s+&\s+|、|和|以及|还有|及)\s*", re.I)
_AFTER = re.compile(r"(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s*(?:、|和|以及|还有)\s*)(?=\S)", re.I)
#: A few lowercase words after a named item, before "and" and the next named one (Spanish at home
#: with my abuela and English…).
_GAP = re.compile(r"(?:\s+(?-i:[a-z'][\w']*)){1,5}?(?=\s+and\s+(?-i:[A-Z]))")
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


def cut(work: str, start: int, end: int) -> tuple[int, int] | None:
    """``(head, resume)`` to cut the item ``work[start:end]`` (with its article or count) and the
    "and" after it out of an English clause, so the rules read the next item; None when no "and"
    follows it."""
    joiner = _AFTER.match(work, end)
    if joiner is None and work[start:start + 1].isupper():  # "Iceland twice and Peru once"
        gap = _GAP.match(work, end)
        joiner = _AFTER.match(work, gap.end()) if gap else None
    if joiner is None or not re.match(r"(?:a|an|the|one|two|three|four|five|\d+|some|my|our|around|about|roughly|like|"
                                      r"approximately|nearly|almost)\b|\d|[$€£]|(?-i:[A-Z])", work[joiner.end():], re.I):
        return None
    det = _DET_EN.search(work, 0, start)
    return (det.start() if det else start), joiner.end()
