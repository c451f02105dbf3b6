"""Time intent of a query: the time words and expressions in it, and which time it asks about (pure).

:func:`time_hits` finds 现在/之前/used to, calendar expressions (through the caller's
:class:`TimeParser`, :mod:`hlmem.domain.temporal`), ``N天前``/``N days ago``, bounds (之前/before X),
"as of" and event anchors; :func:`decide_time` reads the :class:`TimeMode` and the range they ask
for. :mod:`hlmem.domain.query_understanding` puts them into a ``QueryIntent``.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Protocol

from attrs import frozen

from hlmem.domain.atoms import cn_number
from hlmem.domain.time_cues import habitual, holiday_periods, month_pairs, value_before
from hlmem.domain.query_lexicon import (  # the word lists and patterns
    _AGO, _ANCHOR_EN, _ANCHOR_ZH, _AS_OF_ZH_AFTER, _AS_OF_ZH_BEFORE, _BEFORE_END, _BOUND_AFTER_ZH, _BOUND_BEFORE_EN,
    _CLOCK, _EN_NUM, _FUTURE_CUE, _KNOWN_CUE, _MARKERS, _MONTH_PART_EN, _MONTH_PART_ZH, _MONTH_WORD, _NOT_EVENT,
    _NOT_HISTORY, _PAST, _SUFFIX, _VAGUE, _YEAR_BOUND,
)


class TimeMode(str, enum.Enum):
    """Which time a query asks about."""

    CURRENT = "current"
    HISTORY = "history"
    AT = "at"
    UNSPECIFIED = "unspecified"



@frozen
class ValidRange:
    """A half-open valid-time range ``[start, end)``; ``None`` leaves that side open."""

    start: datetime | None
    end: datetime | None

    def contains(self, instant: datetime) -> bool:
        """Whether ``instant`` lies in the range."""
        return (self.start is None or self.start <= instant) and (self.end is None or instant < self.end)

    def overlaps(self, valid_from: datetime | None, valid_to: datetime | None) -> bool:
        """Whether a claim valid over ``[valid_from, valid_to)`` held at some instant of the range."""
        return ((valid_to is None or self.start is None or self.start < valid_to)
                and (valid_from is None or self.end is None or valid_from < self.end))



@frozen
class EventAnchor:
    """A time given by an event rather than a date: ``before`` / ``after`` 搬家 / the move."""

    relation: str
    event: str



class TimeSpan(Protocol):
    """A time expression found in a text."""

    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def text(self) -> str: ...


class TimeParser(Protocol):
    """Finds calendar expressions and resolves them against an anchor (:mod:`hlmem.domain.temporal`)."""

    def find(self, text: str) -> Sequence[TimeSpan]:
        """Expressions in ``text``, left to right, without overlaps."""
        ...

    def resolve(self, expression_text: str, anchor: datetime, *, prefer: str = "past") -> tuple[datetime, datetime] | None:
        """The period ``[start, end)`` an expression names, or None (vague or not understood)."""
        ...



@frozen
class Hit:
    """A time word or expression found in a query: where, what kind, and the period it names."""

    start: int
    end: int
    kind: str  # date | current | history | anchor | clock | known
    confidence: float
    period: tuple[datetime | None, datetime | None] | None = None
    detail: str = ""
    keep: tuple[int, int] | None = None  # a part of the span kept in the cleaned query (an anchor's event)


def time_hits(text: str, now: datetime, times: TimeParser) -> list[Hit]:
    hits: list[Hit] = []
    # A question about plans reads a bare weekday or month forwards; any other reads it backwards
    # from the reference time (the latest one not after it).
    prefer = "future" if _FUTURE_CUE.search(text) and not _PAST.search(text) else "nearest_past"
    for start, end, period, said in month_pairs(text, now):  # 四五月份, 4、5月: before the parser's 5月
        hits.append(_bounded(text, Hit(start, end, "date", 0.9, period, said)))
    for m in times.find(text):
        start, end = m.start, m.end
        if _overlaps(hits, start, end):
            continue
        if _VAGUE.fullmatch(m.text.strip()):
            hits.append(Hit(start, end, "current", 0.6, detail=m.text))
            continue
        period = times.resolve(m.text, now, prefer=prefer)
        if period is None or habitual(text, m.text, end):  # 周末都…: every weekend, not one
            continue
        bare_month = bool(_MONTH_WORD.fullmatch(m.text.strip()))
        hit = _month_part(text, Hit(start, end, "date", 0.5 if bare_month else 1.0, period, m.text))
        hits.append(_bounded(text, hit))
    for start, end, period, said in holiday_periods(text, now):  # 五一, Valentine's Day
        if not _overlaps(hits, start, end):
            hits.append(_bounded(text, Hit(start, end, "date", 0.9, period, said)))
    for m in _YEAR_BOUND.finditer(text):  # "before 2023": the parser knows only "in 2023"
        if not _overlaps(hits, m.start("y"), m.end("y")) and (
                period := times.resolve(f"in {m['y']}", now, prefer="nearest_past")):
            hits.append(_bounded(text, Hit(m.start("y"), m.end("y"), "date", 1.0, period, m["y"])))
    for m in _AGO.finditer(text):
        if not _overlaps(hits, m.start(), m.end()) and (period := _ago(m, now)) is not None:
            hits.append(_bounded(text, Hit(m.start(), m.end(), "date", 0.9 if period[2] else 0.6, period[:2], m[0])))
    for m in _CLOCK.finditer(text):
        if not _overlaps(hits, m.start(), m.end()):
            hits.append(Hit(m.start(), m.end(), "clock", 0.0, detail=m[0]))
    for m in _ANCHOR_ZH.finditer(text):
        group, rel = ("ev", m["rel"]) if m["ev"] else ("ev2", m["rel2"])
        ev = m[group].lstrip("在我你他她的就")
        if len(ev) >= 2 and not _NOT_EVENT.match(ev) and not _overlaps(hits, m.start(), m.end()):
            hits.append(Hit(m.start(), m.end(), "anchor", 0.8 if group == "ev" else 0.6,
                             detail=("before" if "前" in rel else "after") + ":" + ev,
                             keep=(m.end(group) - len(ev), m.end(group))))
    for m in _ANCHOR_EN.finditer(text):
        if not _overlaps(hits, m.start(), m.end()) and not _MONTH_WORD.match(m["ev"]):
            rel = "before" if m["rel"].lower() != "after" else "after"
            # "before the move" names an event; "before I go to bed" / "before going out" may be a habit
            # unless the query is in the past tense.
            det = (m["det"] or "").lower()
            past = _PAST.search(text) or (det and re.search(r"\w{3}ed$", m["ev"].split()[1]))
            conf = 0.7 if det in ("the", "my", "our", "his", "her", "their") or past else 0.5
            hits.append(Hit(m.start(), m.end(), "anchor", conf, detail=f"{rel}:{m['ev']}", keep=m.span("ev")))
    for m in _BEFORE_END.finditer(text):
        if not _overlaps(hits, m.start(), m.end()):
            hits.append(Hit(m.start(), m.end(), "history", 0.9, detail=m[0]))
    for start, end in value_before(text):  # "before Costco?" (asked in the past), "my old phone", 涨价前我
        if not _overlaps(hits, start, end):
            hits.append(Hit(start, end, "history", 0.8, detail=text[start:end]))
    blocked = [m.span() for m in _NOT_HISTORY.finditer(text)]
    for kind, conf, regex in _MARKERS:
        for m in regex.finditer(text):
            inside = any(s <= m.start() < e for s, e in blocked)
            if not inside and not _overlaps(hits, m.start(), m.end()):
                if kind == "history" and m[0].lower() in ("before", "prior"):
                    continue  # a bare "before X" that is neither a date, an event nor clause-final
                hits.append(Hit(m.start(), m.end(), kind, conf, detail=m[0]))
    for m in _KNOWN_CUE.finditer(text):
        hits.append(Hit(m.start(), m.start(), "known", 0.0, detail=m[0]))  # zero width: stays in the text
    return sorted(hits, key=lambda h: h.start)


_SENTENCE_END = re.compile(r"[。！？!?；;\n]|\.(?=\s)")


def last_sentence_start(text: str) -> int:
    """Where the sentence that asks begins: after the last sentence end that has words after it.
    known_at hides everything learned since, so only the question itself may ask for it, never
    the chit-chat before it ("昨天还跟朋友提到生日的事情……那个程序员的生日是什么？")."""
    ends = [m.end() for m in _SENTENCE_END.finditer(text) if text[m.end():].strip(" \t\n。！？!?；;.")]
    return ends[-1] if ends else 0


def same_sentence(text: str, a: Hit, b: Hit) -> bool:
    """No sentence end between two hits: "上周我告诉过你什么" asks what was known last week, "昨天我很忙。
    …我还没记下来…" does not."""
    lo, hi = min(a.start, b.start), max(a.end, b.end)
    return _SENTENCE_END.search(text, lo, hi) is None


def _overlaps(hits: Sequence[Hit], start: int, end: int) -> bool:
    return any(h.start < end and start < h.end for h in hits if h.kind != "known")


AS_OF = " (as of)"
_AS_OF_EN = re.compile(r"(?i)(?:^|\s)(as)\s+$")


def _bounded(text: str, hit: Hit) -> Hit:
    """A date hit widened over 时/的时候 and turned into an open range by 之前/以后/before/since; "as of"
    (截至, 到…为止) makes it the range up to its end, marked so that the caller reads a valid time."""
    start, end = hit.start, hit.end
    if (suffix := _SUFFIX.match(text[end:])) is not None:
        end += suffix.end()
    lo, hi = hit.period or (None, None)
    word = hit.detail.split()[0].lower() if hit.detail.split() else ""
    zh_before, tail = _AS_OF_ZH_BEFORE.search(text[:start]), _AS_OF_ZH_AFTER.match(text[end:])
    closed = tail is not None and "止" in tail[0]  # 为止: 到5月为止 is "as of", 到5月 alone is not
    en_of = _AS_OF_EN.search(text[:start]) if word == "of" else None  # "as of 2023": the parser took "of 2023"
    if (zh_before is not None and (zh_before[1] != "到" or closed)) or closed or en_of:
        start = en_of.start(1) if en_of else zh_before.start(1) if zh_before is not None else start
        end += tail.end() if tail is not None and not en_of else 0
        return Hit(start, end, "date", hit.confidence, (None, hi), text[start:end] + AS_OF)
    after = _BOUND_AFTER_ZH.match(text[end:])
    before = _BOUND_BEFORE_EN.search(text[:start])
    if after is not None:
        end += after.end()
        lo, hi = ((None, lo) if "前" in after[1] else (lo, None))
    elif before is not None or word == "since":
        rel = before[1].lower() if before is not None else "since"
        if before is not None:
            start = before.start(1)
        lo, hi = {"before": (None, lo), "prior to": (None, lo), "until": (None, hi), "till": (None, hi),
                  "after": (hi, None), "since": (lo, None), "from": (lo, None), "as of": (None, hi)}[rel]
        if rel == "as of":
            return Hit(start, end, "date", hit.confidence, (lo, hi), text[start:end] + AS_OF)
    return Hit(start, end, "date", hit.confidence, (lo, hi), text[start:end])


#: The days of a month's part: early (1–10), middle (11–20), late (21 to the end).
_PART_DAYS = {"上旬": 0, "初": 0, "early": 0, "beginning": 0, "start": 0,
              "中旬": 1, "中": 1, "mid": 1, "middle": 1, "下旬": 2, "底": 2, "末": 2, "late": 2, "end": 2}


def _month_part(text: str, hit: Hit) -> Hit:
    """A whole-month hit narrowed to the part of the month named around it (3月中旬, 4月初, 5月底,
    mid-March, early April, the end of May): days 1–10, 11–20 or 21 to the end; the span grows
    over the words, so that they are not searched as content."""
    if hit.period is None or None in hit.period:
        return hit
    lo, hi = hit.period
    if lo.day != 1 or hi.day != 1 or not 27 <= (hi - lo).days <= 31:  # type: ignore[operator]
        return hit
    start, end = hit.start, hit.end
    if (zh := _MONTH_PART_ZH.match(text[end:])) is not None:
        word, end = zh["part"].lstrip("月"), end + zh.end()
    elif (en := _MONTH_PART_EN.search(text[:start])) is not None:
        word, start = re.sub(r"^the\s+|\s+of$|-$", "", en["part"].lower()), en.start("part")
    else:
        return hit
    part = _PART_DAYS.get(word)
    if part is None:
        return hit
    first = lo + timedelta(days=10 * part)  # type: ignore[operator]
    last = hi if part == 2 else lo + timedelta(days=10 * (part + 1))  # type: ignore[operator]
    return Hit(start, end, hit.kind, hit.confidence, (first, last), text[start:end])


def _ago(m: re.Match[str], now: datetime) -> tuple[datetime, datetime, bool] | None:
    """``N units ago`` as the whole day/week/month/year it falls in; vague counts (几, a few) span 2–6 units."""
    raw = (m["n"] or m["n2"] or m["n3"]).lower()
    unit = m["u"] or m["u2"] or m["u3"]
    unit = {"天": "day", "日": "day", "周": "week", "星期": "week", "月": "month", "年": "year"}.get(
        unit.lstrip("个").replace("礼拜", "周"), unit.lower())
    if raw == "半":
        count, unit = (6, "month") if unit == "year" else (15, "day") if unit == "month" else (None, unit)
    elif m["n2"] or raw in ("几", "a few", "few", "several"):  # 前两天 is "a few days ago", not exactly two
        count = None
    elif raw in ("a", "an"):
        count = 1
    elif raw in ("a couple of", "couple of"):
        count = 2
    else:
        count = int(raw) if raw.isdigit() else _EN_NUM.get(raw, cn_number(raw))
    if count is None:
        if raw == "半":
            return None
        return _unit_start(now, unit, 6), _unit_start(now, unit, 2, end=True), False
    return _unit_start(now, unit, count), _unit_start(now, unit, count, end=True), True


def _unit_start(now: datetime, unit: str, back: int, *, end: bool = False) -> datetime:
    """Start (or end) of the day/week/month/year ``back`` units before ``now``, in ``now``'s zone."""
    zone, today = now.tzinfo, now.date()
    if unit == "day":
        d = today - timedelta(days=back - (1 if end else 0))
        return datetime(d.year, d.month, d.day, tzinfo=zone)
    if unit == "week":
        d = today - timedelta(days=today.weekday()) - timedelta(weeks=back - (1 if end else 0))
        return datetime(d.year, d.month, d.day, tzinfo=zone)
    if unit == "month":
        index = today.year * 12 + today.month - 1 - back + (1 if end else 0)
        return datetime(index // 12, index % 12 + 1, 1, tzinfo=zone)
    return datetime(today.year - back + (1 if end else 0), 1, 1, tzinfo=zone)


def decide_time(hits: Sequence[Hit], reasons: list[str]) -> tuple[TimeMode, float, ValidRange | None, bool,
                                                                 EventAnchor | None]:
    by = {k: [h for h in hits if h.kind == k] for k in ("date", "current", "history", "earliest", "anchor", "clock")}
    for h in by["clock"]:
        reasons.append(f"time.clock_ignored: {h.detail!r} is a time of day without a date; no filter")
    anchor = None
    if by["anchor"]:
        relation, event = by["anchor"][0].detail.split(":", 1)
        anchor = EventAnchor(relation, event)
        reasons.append(f"time.anchor: {relation} {event!r}, an event without a date")
        if by["anchor"][0].confidence < 0.6:
            reasons.append(f"time.ambiguous: {relation} {event!r} may be a habit, not a past event; no time filter")
    anchors = [h for h in by["anchor"] if h.confidence >= 0.6]
    earliest = bool(by["earliest"])
    history = by["history"] + by["earliest"] + [h for h in anchors if h.detail.startswith("before")]
    current = by["current"] + [h for h in anchors if h.detail.startswith("after")]
    if by["date"]:
        starts = [h.period[0] for h in by["date"] if h.period]
        ends = [h.period[1] for h in by["date"] if h.period]
        lo = None if None in starts else min(starts)  # type: ignore[type-var]
        hi = None if None in ends else max(ends)  # type: ignore[type-var]
        conf = max(h.confidence for h in by["date"])
        for h in by["date"]:
            reasons.append(f"time.{'bound' if None in (h.period or ()) else 'at'}: {h.detail!r} -> "
                           f"[{_iso(h.period[0] if h.period else None)}, {_iso(h.period[1] if h.period else None)})")
            if h.confidence < 0.6:
                reasons.append(f"time.ambiguous: {h.detail!r} may not be a time (a bare month name)")
        if history or current:
            reasons.append("time.conflict: a date and current/history words; the date wins")
        return TimeMode.AT, conf, ValidRange(lo, hi), earliest, anchor
    if history:
        if current:
            reasons.append("time.conflict: current and history words; history (which includes the current value)")
        reasons += [f"time.history: {h.detail!r}" for h in history if h.kind != "anchor"]
        return TimeMode.HISTORY, max(h.confidence for h in history), None, earliest, anchor
    if current:
        reasons += [f"time.current: {h.detail!r}" for h in current if h.kind != "anchor"]
        if anchor is not None:
            reasons.append("time.current: after an event, taken as the value that followed it (usually the current one)")
        return TimeMode.CURRENT, max(h.confidence for h in current), None, earliest, anchor
    return TimeMode.UNSPECIFIED, 0.0, None, earliest, anchor


def point_in(vrange: ValidRange, now: datetime) -> datetime | None:
    """The latest instant of the range not after ``now``; its start when the range lies in the future."""
    if vrange.end is not None and vrange.end <= now:
        return vrange.end - timedelta(microseconds=1)
    if vrange.start is not None and vrange.start > now:
        return vrange.start
    return now


def _iso(value: datetime | None) -> str:
    return "open" if value is None else value.isoformat()

