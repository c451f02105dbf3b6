"""Holidays named in a question, as the days they fall on ("五一那阵子", "around Valentine's Day", "at Easter").

:func:`find` returns the holiday names in a text with the period each names, the latest one not
after the reference instant (as a month without a year is read in a question, docs/recall.md),
in the reference instant's zone. Fixed dates (元旦, 情人节, 五一, 国庆, 圣诞, Valentine's Day,
Halloween, Christmas, July 4th …), rule-based ones (Easter by the Gregorian computus; Mother's,
Father's, Memorial, Labor and Thanksgiving Day by their weekday rules) and the lunar festivals
(春节, 端午, 中秋) from a table of the years 2024–2030 (outside it they are not resolved). Pure: no clock.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, timedelta

from attrs import frozen

#: Lunar festivals (the first day), by year: 春节 (Spring Festival), 端午 (Dragon Boat), 中秋 (Mid-Autumn).
_LUNAR = {
    "spring": {2024: date(2024, 2, 10), 2025: date(2025, 1, 29), 2026: date(2026, 2, 17), 2027: date(2027, 2, 6),
               2028: date(2028, 1, 26), 2029: date(2029, 2, 13), 2030: date(2030, 2, 3)},
    "dragon": {2024: date(2024, 6, 10), 2025: date(2025, 5, 31), 2026: date(2026, 6, 19), 2027: date(2027, 6, 9),
               2028: date(2028, 5, 28), 2029: date(2029, 6, 16), 2030: date(2030, 6, 5)},
    "autumn": {2024: date(2024, 9, 17), 2025: date(2025, 10, 6), 2026: date(2026, 9, 25), 2027: date(2027, 9, 15),
               2028: date(2028, 10, 3), 2029: date(2029, 9, 22), 2030: date(2030, 9, 12)},
}


def easter(year: int) -> date:
    """Western Easter Sunday of ``year`` (the anonymous Gregorian computus)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = b // 4, b % 4
    f = (b + 8) // 25
    g = (b - f + 1) // 3
    h = (19 * a + b - d - g + 15) % 30
    i, k = c // 4, c % 4
    m = (32 + 2 * e + 2 * i - h - k) % 7
    n = (a + 11 * h + 22 * m) // 451
    month, day = divmod(h + m - 7 * n + 114, 31)
    return date(year, month, day + 1)


def _nth_weekday(year: int, month: int, weekday: int, n: int) -> date:
    """The ``n``-th ``weekday`` (Monday 0) of a month; ``n = -1``: the last."""
    if n > 0:
        first = date(year, month, 1)
        return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))
    last = date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)
    return last - timedelta(days=(last.weekday() - weekday) % 7)


def _fixed(month: int, day: int, days: int = 1) -> Callable[[int], tuple[date, int] | None]:
    return lambda year: (date(year, month, day), days)


def _lunar(name: str, days: int) -> Callable[[int], tuple[date, int] | None]:
    return lambda year: (_LUNAR[name][year], days) if year in _LUNAR[name] else None


#: Each holiday's names (a regular expression) and its first day and length in a year.
_HOLIDAYS: tuple[tuple[str, Callable[[int], tuple[date, int] | None]], ...] = (
    (r"元旦|new year'?s(?: day)?", _fixed(1, 1)),
    (r"春节|过年(?:那会儿?|的时候|期间)|大年初一|chinese new year|lunar new year|spring festival", _lunar("spring", 7)),
    (r"情人节|valentine'?s(?: day)?", _fixed(2, 14)),
    (r"st\.? patrick'?s(?: day)?", _fixed(3, 17)),
    (r"清明节?", lambda year: (date(year, 4, 4 if year % 4 == 0 else 5), 1)),
    (r"easter(?: sunday)?", lambda year: (easter(year), 1)),
    (r"五一|劳动节|may day", _fixed(5, 1, 5)),
    (r"mother'?s day|母亲节", lambda year: (_nth_weekday(year, 5, 6, 2), 1)),
    (r"memorial day", lambda year: (_nth_weekday(year, 5, 0, -1), 1)),
    (r"端午节?|dragon boat(?: festival)?", _lunar("dragon", 1)),
    (r"儿童节|六一", _fixed(6, 1)),
    (r"father'?s day|父亲节", lambda year: (_nth_weekday(year, 6, 6, 3), 1)),
    (r"(?:july 4th|4th of july|fourth of july|independence day)", _fixed(7, 4)),
    (r"labou?r day", lambda year: (_nth_weekday(year, 9, 0, 1), 1)),
    (r"中秋节?|mid-?autumn(?: festival)?", _lunar("autumn", 1)),
    (r"国庆(?:节|假期|长假)?|十一长假|十一假期", _fixed(10, 1, 7)),
    (r"halloween|万圣节", _fixed(10, 31)),
    (r"双十一|双11", _fixed(11, 11)),
    (r"thanksgiving(?: day)?|感恩节", lambda year: (_nth_weekday(year, 11, 3, 4), 1)),
    (r"christmas(?: day)?|xmas|圣诞节?", _fixed(12, 25)),
)
_PATTERN = re.compile("|".join(f"(?P<h{n}>{p})" for n, (p, _) in enumerate(_HOLIDAYS)), re.IGNORECASE)
_EDGE = re.compile(r"[A-Za-z0-9]")


@frozen
class Holiday:
    """A holiday named in a text: where, and the period ``[start, end)`` it names."""

    start: int
    end: int
    text: str
    period: tuple[datetime, datetime]


def find(text: str, reference: datetime) -> list[Holiday]:
    """The holidays named in ``text``, each the latest occurrence that began by ``reference`` (its
    zone gives the days); a name whose date is unknown that year (a lunar festival off the table)
    is left out. ``reference`` must be timezone-aware."""
    out = []
    for m in _PATTERN.finditer(text):
        if (m.start() > 0 and _EDGE.match(text[m.start() - 1])) or (m.end() < len(text) and _EDGE.match(text[m.end()])):
            continue  # part of a longer English word
        index = int(next(k for k, v in m.groupdict().items() if v is not None)[1:])
        rule = _HOLIDAYS[index][1]
        local = reference.astimezone(reference.tzinfo)
        for year in (local.year, local.year - 1):
            found = rule(year)
            if found is None:
                continue
            first, days = found
            start = datetime(first.year, first.month, first.day, tzinfo=local.tzinfo)
            if start <= local:
                out.append(Holiday(m.start(), m.end(), m.group(), (start, start + timedelta(days=days))))
                break
    return out
