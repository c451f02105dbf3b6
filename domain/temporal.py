"""Time expressions in Chinese and English, found in text and resolved against an anchor instant.

``resolve(expression, anchor)`` turns 昨天 / 下周三 / 上个月 / 去年5月 / 2026年6月1日 / last May /
next Friday / in 2023 / 2026-06-01 … into a half-open period ``[start, end)``. Day, week, month
and year boundaries are computed in the *anchor's own zone* (its ``tzinfo``: an offset or a
zone): 00:30 on 2 June at +08:00 is still "2 June", although it is 1 June in UTC. Pass the anchor
in the zone the speaker lives in when it is known; the store keeps instants in UTC.

Conventions (pure, no clock): weeks start on Monday. 周三/星期三 alone is the Wednesday of the
anchor's week (the latest Wednesday not after the anchor's day with ``prefer="nearest_past"``,
the first one not before it with ``prefer="future"``: a plan made on Thursday for 周三),
下周三 the Wednesday of the next week. English "next Friday" is the first Friday
after the anchor's day, "last Friday" the last one before it, bare "Friday" follows ``prefer``.
A month or date without a year (5月, 6月1日, May, June 1) is the latest one not after the anchor
when ``prefer="past"`` (the default: 其实5月就搬去北京了) or ``"nearest_past"``, the next one not
before it when ``prefer="future"`` (plans). ``"nearest_past"`` is how a question is read against
its reference time (recall): every expression without a year or a week, 周三 included, names the
latest one not after the anchor, so "in March" asked on 2023-05-20 is March 2023, "in August"
August 2022, 周三 the latest Wednesday up to that day. "last May" is the latest May before the
anchor's month. Vague words
(最近, recently) are recognised as time words but resolve to None.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, timedelta

from attrs import frozen

Period = tuple[datetime, datetime]
#: What a month, date or weekday without a year or week refers to (see the module docstring).
PREFER = ("past", "future", "nearest_past")
Resolver = Callable[[re.Match[str], datetime, str], "tuple[date, date] | None"]

_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
              "八": 8, "九": 9}
_ZH_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_EN_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_EN_MONTHS = {"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
              "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
              "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
              "oct": 10, "nov": 11, "dec": 12}
_REL = {"上上": -2, "上": -1, "这": 0, "本": 0, "今": 0, "下": 1, "下下": 2,
        "前": -2, "去": -1, "明": 1, "后": 2, "last": -1, "this": 0, "next": 1}
_REL_DAY = {"大前天": -3, "前天": -2, "昨天": -1, "昨日": -1, "昨晚": -1, "今天": 0, "今日": 0, "今晚": 0,
            "今早": 0, "明天": 1, "明日": 1, "明晚": 1, "明早": 1, "后天": 2, "大后天": 3,
            "yesterday": -1, "today": 0, "tonight": 0, "tomorrow": 1}


def cn_int(text: str) -> int | None:
    """An integer written in digits or in Chinese numerals up to 99 (五, 十二, 二十五), else None."""
    text = text.strip()
    if text.isdigit():
        return int(text)
    if not text or any(ch not in _CN_DIGITS and ch != "十" for ch in text):
        return None
    if "十" not in text:
        return _CN_DIGITS[text] if len(text) == 1 else None
    tens, _, ones = text.partition("十")
    if len(tens) > 1 or len(ones) > 1:
        return None
    return (_CN_DIGITS[tens] if tens else 1) * 10 + (_CN_DIGITS[ones] if ones else 0)


# -- calendar helpers (dates; zone applied at the end) ---------------------------------------------

def _month(year: int, month: int) -> tuple[date, date]:
    year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    nxt = date(year + (month == 12), month % 12 + 1, 1)
    return date(year, month, 1), nxt


def _day(d: date) -> tuple[date, date]:
    return d, d + timedelta(days=1)


def _safe_date(year: int, month: int | None, day: int | None) -> date | None:
    try:
        return date(year, month or 1, day or 1)
    except (ValueError, TypeError):
        return None


def _pick_year(anchor: date, month: int, day: int | None, prefer: str) -> int | None:
    """The year of a month/date given without one: latest not after (past) or next not before (future)."""
    if not 1 <= month <= 12 or (day is not None and _safe_date(2000, month, day) is None):
        return None  # 2000 is a leap year, so 2月29日 is accepted here
    key, now = (month, day or 0), (anchor.month, anchor.day if day else 0)
    if prefer == "future":
        return anchor.year if key >= now else anchor.year + 1
    return anchor.year if key <= now else anchor.year - 1


def _week_start(d: date, offset: int) -> date:
    return d - timedelta(days=d.weekday()) + timedelta(weeks=offset)


# -- resolvers ---------------------------------------------------------------------------------------

def _ymd(m: re.Match[str], a: datetime, prefer: str) -> tuple[date, date] | None:
    year = int(m["y"]) if m["y"] else None
    month = cn_int(m["m"]) if m["m"] else None
    day = cn_int(m["d"]) if m["d"] else None
    if month is None:  # a whole year
        return (date(year, 1, 1), date(year + 1, 1, 1)) if year else None
    if year is None:
        year = _pick_year(a.date(), month, day, prefer)
        if year is None:
            return None
    start = _safe_date(year, month, day)
    if start is None:
        return None
    return _day(start) if day else _month(year, month)


def _rel_year(m: re.Match[str], a: datetime, prefer: str) -> tuple[date, date] | None:
    year = a.year + _REL[m["ry"]]
    month = cn_int(m["m"]) if m["m"] else None
    day = cn_int(m["d"]) if m["d"] else None
    if month is None:
        return date(year, 1, 1), date(year + 1, 1, 1)
    start = _safe_date(year, month, day)
    if start is None:
        return None
    return _day(start) if day else _month(year, month)


def _this_year(m: re.Match[str], a: datetime, prefer: str) -> tuple[date, date] | None:
    """年初 / 年底 said alone: this year (the whole year; the part is a qualifier, not a boundary)."""
    return date(a.year, 1, 1), date(a.year + 1, 1, 1)


def _rel_month(m: re.Match[str], a: datetime, prefer: str) -> tuple[date, date] | None:
    start, end = _month(a.year, a.month + _REL[m["rm"]])
    if m["d"]:
        day = cn_int(m["d"])
        d = _safe_date(start.year, start.month, day) if day else None
        return _day(d) if d else None
    return start, end


def _rel_week(m: re.Match[str], a: datetime, prefer: str) -> tuple[date, date] | None:
    monday = _week_start(a.date(), _REL[m["rw"]])
    if m["wd"]:
        return _day(monday + timedelta(days=_ZH_WEEKDAY[m["wd"]]))
    return monday, monday + timedelta(weeks=1)


def _weekend(m: re.Match[str], a: datetime, prefer: str) -> tuple[date, date] | None:
    saturday = _week_start(a.date(), _REL[m["rw"]] if m["rw"] else 0) + timedelta(days=5)
    return saturday, saturday + timedelta(days=2)


def _zh_weekday(m: re.Match[str], a: datetime, prefer: str) -> tuple[date, date] | None:
    day = _week_start(a.date(), 0) + timedelta(days=_ZH_WEEKDAY[m["wd"]])
    if prefer == "nearest_past" and day > a.date():  # a question asked on Monday about 周三 means the last one
        day -= timedelta(weeks=1)
    elif prefer == "future" and day < a.date():  # a plan made on Thursday for 周三 is next week's
        day += timedelta(weeks=1)
    return _day(day)


def _rel_day(m: re.Match[str], a: datetime, prefer: str) -> tuple[date, date] | None:
    return _day(a.date() + timedelta(days=_REL_DAY[m[0].lower()]))


def _day_around(m: re.Match[str], a: datetime, prefer: str) -> tuple[date, date] | None:
    return _day(a.date() + timedelta(days=-2 if "before" in m[0].lower() else 2))


def _en_unit(m: re.Match[str], a: datetime, prefer: str) -> tuple[date, date] | None:
    offset, unit = _REL[m["r"].lower()], m["u"].lower()
    if unit == "week":
        monday = _week_start(a.date(), offset)
        return monday, monday + timedelta(weeks=1)
    if unit == "weekend":
        saturday = _week_start(a.date(), offset) + timedelta(days=5)
        return saturday, saturday + timedelta(days=2)
    if unit == "month":
        return _month(a.year, a.month + offset)
    return date(a.year + offset, 1, 1), date(a.year + offset + 1, 1, 1)


def _en_weekday(m: re.Match[str], a: datetime, prefer: str) -> tuple[date, date] | None:
    target, today = _EN_WEEKDAYS.index(m["wd"].lower()), a.date()
    rel = (m["r"] or "").lower()
    if rel == "this":
        return _day(_week_start(today, 0) + timedelta(days=target))
    ahead = (target - today.weekday()) % 7
    if rel == "next" or (rel != "last" and prefer == "future"):
        return _day(today + timedelta(days=ahead or (7 if rel == "next" else 0)))
    behind = (today.weekday() - target) % 7
    return _day(today - timedelta(days=behind or (7 if rel == "last" else 0)))


def _en_month(m: re.Match[str], a: datetime, prefer: str) -> tuple[date, date] | None:
    month = _EN_MONTHS[m["mon"].lower().rstrip(".")]
    day = int(m["d"]) if m["d"] else None
    rel = (m["r"] or "").lower()
    if m["y"]:
        year = int(m["y"])
    elif rel == "last":
        year = a.year if month < a.month else a.year - 1
    elif rel == "next":
        year = a.year if month > a.month else a.year + 1
    elif rel == "this":
        year = a.year
    else:
        picked = _pick_year(a.date(), month, day, prefer)
        if picked is None:
            return None
        year = picked
    start = _safe_date(year, month, day)
    if start is None:
        return None
    return _day(start) if day else _month(year, month)


def _vague(m: re.Match[str], a: datetime, prefer: str) -> None:
    return None


_N = r"(?:\d{1,2}|[零〇一二两三四五六七八九十]{1,3})"
_WD = "[一二三四五六日天]"
_MON = "|".join(sorted(_EN_MONTHS, key=len, reverse=True))
_DAYS_EN = "|".join(_EN_WEEKDAYS)

#: (pattern, resolver, case-insensitive). Longer matches win over shorter ones at one position.
_PATTERNS: tuple[tuple[str, Resolver, bool], ...] = (
    (r"(?<![\d\-/A-Za-z_.])(?P<y>\d{4})[-/](?P<m>\d{1,2})[-/](?P<d>\d{1,2})(?![\d\-/])", _ymd, False),
    (rf"(?P<y>\d{{4}})\s*年\s*(?:(?P<m>{_N})\s*月份?\s*(?:(?P<d>{_N})\s*[日号])?)?(?!代|级)", _ymd, False),
    (rf"(?P<ry>前|去|今|明|后)年\s*(?:(?P<m>{_N})\s*月份?\s*(?:(?P<d>{_N})\s*[日号])?|年?[底初末中])?(?!级)", _rel_year, False),
    (rf"(?<![\d年])(?P<y>)(?P<m>{_N})\s*月份?\s*(?:(?P<d>{_N})\s*[日号])?", _ymd, False),
    (r"(?<![前去今明后\d年])(?P<ry>)年[初底中末]", _this_year, False),
    (rf"(?P<rm>上上|下下|上|下|这|本)个?月(?:份)?(?:\s*(?P<d>{_N})\s*[日号])?", _rel_month, False),
    (rf"(?P<rw>上上|下下|上|下|这|本)个?(?:周|星期|礼拜)(?!末)(?P<wd>{_WD})?", _rel_week, False),
    (r"(?P<rw>上上|下下|上|下|这|本)?个?周末", _weekend, False),
    (rf"(?:周|星期|礼拜)(?P<wd>{_WD})", _zh_weekday, False),
    (r"大前天|大后天|前天|昨天|昨日|昨晚|今天|今日|今晚|今早|明天|明日|明晚|明早|后天", _rel_day, False),
    (r"最近|近来|近期|recently|lately|these days", _vague, True),
    (r"\b(?:the\s+)?day\s+(?:before\s+yesterday|after\s+tomorrow)\b", _day_around, True),
    (r"\b(?:yesterday|today|tonight|tomorrow)\b", _rel_day, True),
    (r"\b(?P<r>last|this|next)\s+(?P<u>week|weekend|month|year)\b", _en_unit, True),
    (rf"\b(?:(?P<r>last|this|next|on)\s+)?(?P<wd>{_DAYS_EN})\b", _en_weekday, True),
    (rf"\b(?:(?P<r>last|this|next|in|on|since|during)\s+)?(?P<mon>{_MON})\.?(?:\s+(?P<d>\d{{1,2}})"
     rf"(?:st|nd|rd|th)?)?(?:,?\s+(?P<y>\d{{4}}))?\b", _en_month, True),
    (rf"\b(?:on\s+)?(?:the\s+)?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon>{_MON})\b"
     rf"(?:,?\s+(?P<y>\d{{4}}))?(?P<r>)", _en_month, True),
    (r"\b(?:in|during|since|of)\s+(?P<y>(?:19|20)\d{2})\b(?P<m>)(?P<d>)", _ymd, True),
)
_COMPILED = tuple((re.compile(p, re.I if ci else 0), fn) for p, fn, ci in _PATTERNS)
#: Every expression contains one of these; text without any is skipped cheaply.
_TRIGGER = re.compile(rf"[年月周星礼天日号末]|[今明昨][晚早]|最近|近来|近期|\d{{4}}[-/]|\b(?:yesterday|today|tonight|tomorrow|week|month|year|"
                      rf"weekend|recently|lately|these days|{_DAYS_EN}|{_MON}|in \d{{4}}|during \d{{4}}|since \d{{4}}|"
                      rf"of \d{{4}})\b", re.I)


@frozen
class TimeMention:
    """A time expression found in text: its span and its words."""

    start: int
    end: int
    text: str


def _acceptable(m: re.Match[str]) -> bool:
    groups = m.re.groupindex
    if "mon" in groups and m["mon"] and m["mon"].lower() == "may" and not (m["r"] or m["d"] or m["y"]):
        return m["mon"] == "May" and not re.match(r"\s+(?:I|we|you|be|not)\b", m.string[m.end():])
    if "mon" in groups and m["mon"] and m["mon"].lower() in ("mar", "sep", "jan", "dec") and not m["d"]:
        return False  # "mar", "sep"… as bare words are too often something else
    return True


def find(text: str) -> list[TimeMention]:
    """Time expressions in ``text``, left to right, without overlaps (the longest wins)."""
    if not _TRIGGER.search(text):
        return []
    found: list[tuple[int, int]] = []
    for regex, _ in _COMPILED:
        for m in regex.finditer(text):
            if m.end() > m.start() and _acceptable(m):
                found.append((m.start(), m.end()))
    found.sort(key=lambda se: (se[0], -(se[1] - se[0])))
    out: list[TimeMention] = []
    for start, end in found:
        if out and start < out[-1].end:
            continue
        out.append(TimeMention(start, end, text[start:end]))
    return out


def resolve(expression_text: str, anchor: datetime, *, prefer: str = "past") -> Period | None:
    """The period ``[start, end)`` an expression names, as aware datetimes in the anchor's zone.

    :param expression_text: one time expression (as returned by :func:`find`, or typed by hand).
    :param anchor: when the statement was made (the event's occurred time); must be aware.
    :param prefer: ``"past"`` or ``"future"``: which year a month or date without one refers to;
        ``"nearest_past"``: like ``"past"``, and a bare 周三 is the latest one not after the anchor
        (how recall reads a question against its reference time).
    :returns: None for vague words (最近), for anything not understood, and for periods past the
        calendar's ends (year 0, 9999年's end).
    :raises ValueError: when ``anchor`` is naive or ``prefer`` is none of the three.
    """
    if anchor.tzinfo is None or anchor.utcoffset() is None:
        raise ValueError("anchor must be timezone-aware")
    if prefer not in PREFER:
        raise ValueError(f"prefer must be one of {PREFER}, not {prefer!r}")
    text = expression_text.strip()
    for regex, fn in _COMPILED:
        m = regex.fullmatch(text)
        if m is None or not _acceptable(m):
            continue
        try:
            days = fn(m, anchor, prefer)
            if days is None:
                return None
            zone = anchor.tzinfo
            return (datetime(days[0].year, days[0].month, days[0].day, tzinfo=zone),
                    datetime(days[1].year, days[1].month, days[1].day, tzinfo=zone))
        except (ValueError, OverflowError):
            return None  # a calendar Python cannot represent (9999年 ends in year 10000): not understood
    return None
