"""Words a rule cannot match without: a cheap test that skips most rules for most clauses.

A frame table has well over a hundred rules and every clause is tried against them in order;
most fail only after the regular-expression engine has walked their optional adverbs. For each
rule this computes, from the parsed pattern, a set of literal strings one of which every match
must contain ("quit", "resigned", "laid off"… for a job left). A clause that contains none of them
(compared lowercased, so it errs on the side of trying) cannot match and is not tried. When the
pattern offers no such strings (every part optional), the rule is always tried.
"""

from __future__ import annotations

import re
from re import _constants as C  # type: ignore[attr-defined]  # the parser's opcode names
from re import _parser as P  # type: ignore[attr-defined]

#: A set of literals, one of which every match contains; None when nothing is required.
Factors = frozenset[str] | None


def required(pattern: re.Pattern[str]) -> Factors:
    """The literals one of which every match of ``pattern`` contains (lowercased), or None."""
    try:
        tree = P.parse(pattern.pattern, pattern.flags)
    except Exception:  # noqa: BLE001 - an unparsable pattern is simply always tried
        return None
    found = _sequence(list(tree))
    if not found or any(not f for f in found):
        return None
    return frozenset(f.lower() for f in found)


def _strength(factors: Factors) -> int:
    return min(len(f) for f in factors) if factors else 0


def _sequence(items: list) -> Factors:
    best: Factors = None
    run = ""
    for op, arg in [*items, (None, None)]:
        if op is C.LITERAL:
            run += chr(arg)
            continue
        if run:
            best = _better(best, frozenset({run}))
            run = ""
        if op is None:
            break
        best = _better(best, _node(op, arg))
    return best


def _better(a: Factors, b: Factors) -> Factors:
    if b is None:
        return a
    if a is None:
        return b
    return b if (_strength(b), -len(b)) > (_strength(a), -len(a)) else a


def _node(op, arg) -> Factors:
    if op is C.SUBPATTERN:
        return _sequence(list(arg[-1]))
    if op is C.BRANCH:
        out: set[str] = set()
        for branch in arg[1]:
            found = _sequence(list(branch))
            if not found:
                return None
            out |= found
        return frozenset(out)
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
        low, _high, item = arg
        return _sequence(list(item)) if low >= 1 else None
    if op is C.ATOMIC_GROUP:
        return _sequence(list(arg))
    return None
