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


class Index:
    """The required words of a rule table, tested against a clause once rather than rule by rule.

    :meth:`present` finds which of the table's words a (lowercased) clause contains; a rule whose
    :attr:`needs` are disjoint from them cannot match. Words are bucketed by their first two
    characters, so only the words that start like some place of the clause are looked for.
    """

    def __init__(self, rules) -> None:  # noqa: ANN001 - a sequence of frames.Rule
        self.needs = [required(rule.regex) for rule in rules]
        words = sorted({w for needs in self.needs if needs for w in needs})
        self.short = tuple(w for w in words if len(w) < 2)
        self.by_start: dict[str, tuple[str, ...]] = {}
        for w in words:
            if len(w) >= 2:
                self.by_start[w[:2]] = (*self.by_start.get(w[:2], ()), w)
        self._last: tuple[str, frozenset[str]] = ("\0", frozenset())

    def present(self, low: str) -> frozenset[str]:
        if self._last[0] == low:
            return self._last[1]
        get = self.by_start.get
        found = {w for w in self.short if w in low}
        for start in {low[i:i + 2] for i in range(len(low) - 1)}:
            for w in get(start, ()):
                if w in low:
                    found.add(w)
        self._last = (low, frozenset(found))
        return self._last[1]
