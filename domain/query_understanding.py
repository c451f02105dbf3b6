"""Query understanding: who a recall query is about and which time it asks for, as filters (pure, deterministic).

:func:`understand` reads a Chinese or English query and returns a :class:`QueryIntent`:

- **time**: 现在/目前/now/currently → ``CURRENT``; 之前/以前/原来/曾经/previously/used to/before the
  move → ``HISTORY`` (the caller returns the superseded values); a calendar expression (4月时, 去年,
  上周, 三个月前, last month, in April 2024, 2023年之前) → ``AT`` with ``valid_range`` and a point
  ``valid_at`` in it; nothing → ``UNSPECIFIED``. "as of <date>", 截至/截止/直到<date>, 到<date>为止 ask
  for the state at the end of the date, a *valid* time (``intent.as_of``; the range is open at its
  start); only a cue of what was known (did I tell you, 说过, 记下, did you know/believe) makes a date
  a knowledge time (``known_at``). Calendar expressions are found and resolved by the
  ``times`` parser the caller passes (the application's ``extraction.temporal`` module satisfies
  :class:`TimeParser`), so one grammar serves extraction and recall; this module adds the words
  for current/history, ``N天前``/``N days ago``, bounds (之前/before X) and event anchors.
- **who**: known subjects and aliases from stored claims (high confidence), kinship and role words
  (我表弟, my sister), then name-shaped words: Chinese surname + 1–2 characters, capitalised English
  words, places, product identifiers and versions (lower confidence). Each :class:`Entity` carries
  its confidence; :meth:`QueryIntent.confident_subjects` is what an entity constraint should use.

Explicit arguments always win: the caller applies them with :func:`merge`. The text is NFKC-
normalised first; spans refer to the normalised text. No clock is read: ``now`` is an argument,
the *reference time* the question is asked at (an imported 2023 conversation is read against a
2023 date, not the wall clock), and day/month boundaries are taken in ``now``'s own zone (pass it
in the user's zone when known). A month, date or weekday without a year or week is the latest one
not after ``now`` ("in August" asked on 2023-05-20 is August 2022; 周三 asked on a Monday is the
Wednesday before; the parser's ``prefer="nearest_past"``), except in a question about a plan
(要/打算, will/going to: ``prefer="future"``, the next one).

How a recall uses it::

    intent = merge(understand(query, now=now, times=temporal, known_subjects=index),
                   valid_at=valid_at, known_at=known_at)         # explicit arguments win
    CURRENT / UNSPECIFIED: filter at (intent.valid_at or now, intent.known_at or now), as before;
    HISTORY: also the superseded/ended values of the matched slots, the one just before the
             current value first (the first value when ``intent.earliest``);
    AT:      claims whose validity overlaps ``intent.valid_range`` (:meth:`ValidRange.overlaps`),
             the one holding at ``intent.valid_at`` first;
    search with ``intent.cleaned_query``; when ``intent.elliptical`` ("现在呢？"), with the previous
    query's words; constrain on ``intent.confident_subjects()``.
"""

from __future__ import annotations

import enum
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Protocol

from attrs import evolve, field, frozen

from hlmem.domain.atoms import cn_number, protected_atoms
from hlmem.domain.query_lexicon import (  # the word lists and patterns
    _AGO, _ANCHOR_EN, _ANCHOR_ZH, _AS_OF_ZH_AFTER, _AS_OF_ZH_BEFORE, _BEFORE_END,
    _BOUND_AFTER_ZH, _BOUND_BEFORE_EN, _CLOCK, _EN_NAME, _EN_NUM,
    _EN_STOP, _FILLER, _FIRST_PERSON, _HAN, _KNOWN_CUE, _MARKERS, _MONTH_WORD, _NAME_END, _NAME_TAIL,
    _FUTURE_CUE, _NOT_EVENT, _NOT_HISTORY, _NOT_NAME, _PAST, _ROLE, _SUFFIX, _VAGUE, _YEAR_BOUND,
)
from hlmem.domain.state import SELF_SUBJECTS

#: Confidence of each way an entity is found. An entity constraint should act only on entities at
#: or above :data:`HIGH_CONFIDENCE`: matches against stored subjects, aliases and literal versions.
KNOWN, ALIAS, VERSION, ROLE, PLACE, PRODUCT, NAME, NAME_AT_START = 0.95, 0.9, 0.9, 0.8, 0.7, 0.7, 0.6, 0.5
HIGH_CONFIDENCE = 0.85
#: Reason codes (each reason is ``"code: detail"``).
REASON_CODES = ("time.current", "time.history", "time.at", "time.bound", "time.as_of", "time.anchor",
                "time.clock_ignored",
                "time.ambiguous", "time.conflict", "time.known_at", "query.elliptical", "entity.found",
                "merge.valid_at", "merge.known_at")


class TimeMode(str, enum.Enum):
    """Which time a query asks about."""

    CURRENT = "current"
    HISTORY = "history"
    AT = "at"
    UNSPECIFIED = "unspecified"


@frozen
class Entity:
    """An entity named in the query: surface ``text``, canonical ``key`` (the stored subject when known)."""

    text: str
    key: str
    kind: str  # subject | role | person | place | product | version
    confidence: float
    source: str  # known_subject | alias | role | name_zh | name_en | place | identifier | version
    start: int = -1
    end: int = -1


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


@frozen
class QueryIntent:
    """What :func:`understand` read from a query. ``None`` filters mean "the caller's default (now)"."""

    query: str
    about_user: bool
    subjects: tuple[str, ...]
    entities: tuple[Entity, ...]
    time_mode: TimeMode
    valid_at: datetime | None = None
    known_at: datetime | None = None
    valid_range: ValidRange | None = None
    time_confidence: float = 0.0
    earliest: bool = False  # 一开始/originally: the first value, not the one just before the current
    as_of: bool = False  # "as of <date>"/截至…: ``valid_at`` is the instant asked about, in valid time
    anchor: EventAnchor | None = None
    cleaned_query: str = ""
    elliptical: bool = False  # nothing but time and filler words ("现在呢？"): needs the previous query
    reasons: tuple[str, ...] = field(default=())

    def confident_subjects(self, threshold: float = HIGH_CONFIDENCE) -> tuple[str, ...]:
        """Keys of the entities named with at least ``threshold`` confidence (for an entity constraint)."""
        return tuple(dict.fromkeys(e.key for e in self.entities if e.confidence >= threshold))


@frozen
class SubjectIndex:
    """Known subjects and aliases, normalised once: build it with :func:`index_subjects` and reuse it.

    ``by_start`` maps the first two characters of each folded surface to its ``(surface, key,
    confidence, source)`` entries, longest surface first.
    """

    by_start: Mapping[str, tuple[tuple[str, str, float, str], ...]] = field(factory=lambda: MappingProxyType({}))
    size: int = 0


def index_subjects(known_subjects: Iterable[str] = (), aliases: Mapping[str, str] | None = None) -> SubjectIndex:
    """Index stored subjects (matched with :data:`KNOWN` confidence) and ``alias -> subject`` names (:data:`ALIAS`).

    Names of the user (用户, user, 我…) and one-character names are left out: they would match everywhere.
    """
    names: dict[str, tuple[str, float, str]] = {}
    for subject in known_subjects:
        names.setdefault(_fold(" ".join(unicodedata.normalize("NFKC", subject).split())), (subject, KNOWN, "known_subject"))
    for alias, subject in (aliases or {}).items():
        names.setdefault(_fold(" ".join(unicodedata.normalize("NFKC", alias).split())), (subject, ALIAS, "alias"))
    grouped: dict[str, list[tuple[str, str, float, str]]] = {}
    for surface, (key, conf, source) in names.items():
        if len(surface) >= 2 and surface not in SELF_SUBJECTS:
            grouped.setdefault(surface[:2], []).append((surface, key, conf, source))
    by_start = {c: tuple(sorted(v, key=lambda e: (-len(e[0]), e[0]))) for c, v in grouped.items()}
    return SubjectIndex(MappingProxyType(by_start), sum(len(v) for v in by_start.values()))


_NO_SUBJECTS = SubjectIndex()


class TimeSpan(Protocol):
    """A time expression found in a text."""

    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def text(self) -> str: ...


class TimeParser(Protocol):
    """Finds calendar expressions and resolves them against an anchor (``hlmem.application.extraction.temporal``)."""

    def find(self, text: str) -> Sequence[TimeSpan]:
        """Expressions in ``text``, left to right, without overlaps."""
        ...

    def resolve(self, expression_text: str, anchor: datetime, *, prefer: str = "past") -> tuple[datetime, datetime] | None:
        """The period ``[start, end)`` an expression names, or None (vague or not understood)."""
        ...


@frozen
class _Hit:
    start: int
    end: int
    kind: str  # date | current | history | anchor | clock | known
    confidence: float
    period: tuple[datetime | None, datetime | None] | None = None
    detail: str = ""
    keep: tuple[int, int] | None = None  # a part of the span kept in the cleaned query (an anchor's event)


def understand(query: str, *, now: datetime, times: TimeParser, known_subjects: Iterable[str] | SubjectIndex = (),
               aliases: Mapping[str, str] | None = None) -> QueryIntent:
    """Read who and when ``query`` is about (see the module docstring).

    :param query: the user's query, any language; normalised with NFKC.
    :param now: the reference time relative expressions resolve against (when the question is
        asked, which for imported history is not the wall clock); must be timezone-aware.
    :param times: a :class:`TimeParser`, e.g. ``hlmem.application.extraction.temporal``.
    :param known_subjects: subjects of stored claims, matched exactly (case-insensitive, NFKC),
        longest first; or a :class:`SubjectIndex` of them built once by :func:`index_subjects`
        (about 6 µs per name to build, so reuse it across queries on a large store).
    :param aliases: other names of stored subjects, ``alias -> subject`` (with a plain iterable only).
    :raises ValueError: when ``now`` is naive, or ``aliases`` come with a :class:`SubjectIndex`.
    """
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("now must be timezone-aware")
    if isinstance(known_subjects, SubjectIndex):
        if aliases:
            raise ValueError("pass aliases to index_subjects, not with a SubjectIndex")
        index = known_subjects
    elif isinstance(known_subjects, tuple) and not known_subjects and not aliases:
        index = _NO_SUBJECTS  # the default: nothing to index
    else:
        index = index_subjects(known_subjects, aliases)
    text = unicodedata.normalize("NFKC", query or "")
    hits = _time_hits(text, now, times)
    reasons: list[str] = []
    mode, conf, vrange, earliest, anchor = _decide(hits, reasons)
    valid_at = _point(vrange, now) if vrange else None
    known_at = None
    asked = _last_sentence_start(text)
    if valid_at is not None and any(_same_sentence(text, k, d) and min(k.start, d.start) >= asked
                                    for k in hits if k.kind == "known" for d in hits if d.kind in ("date", "anchor")):
        known_at = valid_at
        reasons.append(f"time.known_at: asks what was known then, known_at={valid_at.isoformat()}")
    as_of = valid_at is not None and known_at is None and any(h.detail.endswith(_AS_OF) for h in hits)
    if as_of:
        reasons.append(f"time.as_of: the state at valid_at={valid_at.isoformat()} "
                       "(a valid time; nothing asks what was known)")
    entities = _entities(text, hits, index)
    reasons += [f"entity.found: {e.kind} {e.key!r} ({e.source}, {e.confidence:.2f})" for e in entities]
    cleaned = _clean(text, hits)
    elliptical = bool(text.strip()) and not _FILLER.sub("", cleaned)
    if elliptical:
        reasons.append("query.elliptical: nothing but time and filler words; combine with the previous query")
    return QueryIntent(
        query=query, about_user=_about_user(text, entities), entities=tuple(entities),
        subjects=tuple(dict.fromkeys(e.key for e in entities if e.kind != "version")), time_mode=mode,
        valid_at=valid_at, known_at=known_at, valid_range=vrange, time_confidence=conf, earliest=earliest,
        as_of=as_of, anchor=anchor, cleaned_query=cleaned, elliptical=elliptical, reasons=tuple(reasons))


def merge(intent: QueryIntent, *, valid_at: datetime | None = None, known_at: datetime | None = None) -> QueryIntent:
    """``intent`` with the caller's explicit instants, which always win over inferred ones.

    An explicit ``valid_at`` makes the mode ``AT`` and drops an inferred range (and "as of"); ``None``
    keeps the inferred value.
    """
    reasons = list(intent.reasons)
    changes: dict[str, object] = {}
    if valid_at is not None:
        reasons.append(f"merge.valid_at: explicit {valid_at.isoformat()} replaces inferred {intent.time_mode.value}")
        changes.update(valid_at=valid_at, valid_range=None, time_mode=TimeMode.AT, time_confidence=1.0, as_of=False)
    if known_at is not None:
        reasons.append(f"merge.known_at: explicit {known_at.isoformat()}")
        changes["known_at"] = known_at
    return evolve(intent, reasons=tuple(reasons), **changes) if changes else intent


# --- time ----------------------------------------------------------------------------------------

def _time_hits(text: str, now: datetime, times: TimeParser) -> list[_Hit]:
    hits: list[_Hit] = []
    # A question about plans reads a bare weekday or month forwards; any other reads it backwards
    # from the reference time (the latest one not after it).
    prefer = "future" if _FUTURE_CUE.search(text) and not _PAST.search(text) else "nearest_past"
    for m in times.find(text):
        start, end = m.start, m.end
        if _VAGUE.fullmatch(m.text.strip()):
            hits.append(_Hit(start, end, "current", 0.6, detail=m.text))
            continue
        period = times.resolve(m.text, now, prefer=prefer)
        if period is None:
            continue
        bare_month = bool(_MONTH_WORD.fullmatch(m.text.strip()))
        hits.append(_bounded(text, _Hit(start, end, "date", 0.5 if bare_month else 1.0, period, m.text)))
    for m in _YEAR_BOUND.finditer(text):  # "before 2023": the parser knows only "in 2023"
        if not _overlaps(hits, m.start("y"), m.end("y")) and (
                period := times.resolve(f"in {m['y']}", now, prefer="nearest_past")):
            hits.append(_bounded(text, _Hit(m.start("y"), m.end("y"), "date", 1.0, period, m["y"])))
    for m in _AGO.finditer(text):
        if not _overlaps(hits, m.start(), m.end()) and (period := _ago(m, now)) is not None:
            hits.append(_bounded(text, _Hit(m.start(), m.end(), "date", 0.9 if period[2] else 0.6, period[:2], m[0])))
    for m in _CLOCK.finditer(text):
        if not _overlaps(hits, m.start(), m.end()):
            hits.append(_Hit(m.start(), m.end(), "clock", 0.0, detail=m[0]))
    for m in _ANCHOR_ZH.finditer(text):
        group, rel = ("ev", m["rel"]) if m["ev"] else ("ev2", m["rel2"])
        ev = m[group].lstrip("在我你他她的就")
        if len(ev) >= 2 and not _NOT_EVENT.match(ev) and not _overlaps(hits, m.start(), m.end()):
            hits.append(_Hit(m.start(), m.end(), "anchor", 0.8 if group == "ev" else 0.6,
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
            hits.append(_Hit(m.start(), m.end(), "anchor", conf, detail=f"{rel}:{m['ev']}", keep=m.span("ev")))
    for m in _BEFORE_END.finditer(text):
        if not _overlaps(hits, m.start(), m.end()):
            hits.append(_Hit(m.start(), m.end(), "history", 0.9, detail=m[0]))
    blocked = [m.span() for m in _NOT_HISTORY.finditer(text)]
    for kind, conf, regex in _MARKERS:
        for m in regex.finditer(text):
            inside = any(s <= m.start() < e for s, e in blocked)
            if not inside and not _overlaps(hits, m.start(), m.end()):
                if kind == "history" and m[0].lower() in ("before", "prior"):
                    continue  # a bare "before X" that is neither a date, an event nor clause-final
                hits.append(_Hit(m.start(), m.end(), kind, conf, detail=m[0]))
    for m in _KNOWN_CUE.finditer(text):
        hits.append(_Hit(m.start(), m.start(), "known", 0.0, detail=m[0]))  # zero width: stays in the text
    return sorted(hits, key=lambda h: h.start)


_SENTENCE_END = re.compile(r"[。！？!?；;\n]|\.(?=\s)")


def _last_sentence_start(text: str) -> int:
    """Where the sentence that asks begins: after the last sentence end that has words after it.
    known_at hides everything learned since, so only the question itself may ask for it, never
    the chit-chat before it ("昨天还跟朋友提到生日的事情……那个程序员的生日是什么？")."""
    ends = [m.end() for m in _SENTENCE_END.finditer(text) if text[m.end():].strip(" \t\n。！？!?；;.")]
    return ends[-1] if ends else 0


def _same_sentence(text: str, a: _Hit, b: _Hit) -> bool:
    """No sentence end between two hits: "上周我告诉过你什么" asks what was known last week, "昨天我很忙。
    …我还没记下来…" does not."""
    lo, hi = min(a.start, b.start), max(a.end, b.end)
    return _SENTENCE_END.search(text, lo, hi) is None


def _overlaps(hits: Sequence[_Hit], start: int, end: int) -> bool:
    return any(h.start < end and start < h.end for h in hits if h.kind != "known")


_AS_OF = " (as of)"
_AS_OF_EN = re.compile(r"(?i)(?:^|\s)(as)\s+$")


def _bounded(text: str, hit: _Hit) -> _Hit:
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
        return _Hit(start, end, "date", hit.confidence, (None, hi), text[start:end] + _AS_OF)
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
            return _Hit(start, end, "date", hit.confidence, (lo, hi), text[start:end] + _AS_OF)
    return _Hit(start, end, "date", hit.confidence, (lo, hi), text[start:end])


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


def _decide(hits: Sequence[_Hit], reasons: list[str]) -> tuple[TimeMode, float, ValidRange | None, bool,
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


def _point(vrange: ValidRange, now: datetime) -> datetime | None:
    """The latest instant of the range not after ``now``; its start when the range lies in the future."""
    if vrange.end is not None and vrange.end <= now:
        return vrange.end - timedelta(microseconds=1)
    if vrange.start is not None and vrange.start > now:
        return vrange.start
    return now


def _iso(value: datetime | None) -> str:
    return "open" if value is None else value.isoformat()


def _clean(text: str, hits: Sequence[_Hit]) -> str:
    out, cursor = [], 0
    for h in sorted((h for h in hits if h.kind not in ("clock", "known")), key=lambda h: h.start):
        if h.start < cursor:
            continue
        out.append(text[cursor:h.start])
        if h.keep is not None:
            out.append(" " + text[h.keep[0]:h.keep[1]] + " ")
        cursor = h.end
    out.append(text[cursor:])
    joined = " ".join("".join(out).split())
    joined = re.sub(r"\s+([?？!！,，.。;；:：])", r"\1", joined)
    return re.sub(rf"(?<={_HAN}) (?={_HAN})|(?<={_HAN}) (?=[A-Za-z0-9])|(?<=[A-Za-z0-9]) (?={_HAN})", "", joined).strip()


# --- entities ------------------------------------------------------------------------------------

def _fold(text: str) -> str:
    """Lower-case without changing the length (positions in the folded text are positions in ``text``)."""
    if text.isascii():  # ASCII letters lower-case one to one
        return text.lower()
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def _entities(text: str, hits: Sequence[_Hit], index: SubjectIndex) -> list[Entity]:
    folded = _fold(text)
    taken = [(h.start, h.end) for h in hits if h.kind == "date" and h.confidence >= 0.6]
    found: list[Entity] = []

    def add(span: tuple[int, int], key: str, kind: str, conf: float, source: str) -> None:
        start, end = span
        if start < end and all(e <= start or end <= s for s, e in taken):
            taken.append((start, end))
            found.append(Entity(text[start:end], key, kind, conf, source, start, end))

    atoms = protected_atoms(text)
    # Chinese name shapes, trimmed of the verb they swallowed; a known subject that one of them
    # extends (张伟 in 张伟华) is another person.
    zh_names = [(span, name) for raw in atoms.names if (name := _trim_name(raw))
                and re.fullmatch(f"{_HAN}{{2,4}}", name) and not _NOT_NAME.search(name)
                for span in _occurrences(text, name)]
    by_start = index.by_start
    starts = {folded[i:i + 2] for i in range(len(folded) - 1)} if by_start else ()
    candidates = [e for pair in starts for e in by_start.get(pair, ())]
    for surface, key, conf, source in sorted(candidates, key=lambda e: (-len(e[0]), e[0])):
        for start, end in _occurrences(folded, surface):
            if not any(s == start and e > end for (s, e), _ in zh_names):
                add((start, end), key, "subject", conf, source)
    for m in _ROLE.finditer(text):
        word = m["zh"] or m["en"]
        owned = bool(m["own"] or m["own2"])
        add(m.span("zh") if m["zh"] else m.span("en"), word.lower(), "role", ROLE if owned else NAME, "role")
    for version in atoms.versions:
        hit = re.search(rf"(?i)(?<![A-Za-z0-9_.])(?:v|version\s*|版本号?\s*)?{re.escape(version)}(?![A-Za-z0-9_]|\.\d)", text)
        if hit is not None:
            add(hit.span(), version, "version", VERSION, "version")
    for kind, source, conf, values in (("place", "place", PLACE, atoms.places),
                                       ("product", "identifier", PRODUCT, atoms.entities)):
        for value in values:
            for span in _occurrences(folded, value):
                add(span, value, kind, conf, source)
    for m in _EN_NAME.finditer(text):
        words = m[0].split()
        while words and words[0].lower() in _EN_STOP:
            words.pop(0)
        if words:
            start = m.start() + m[0].index(words[0])
            at_start = not text[:start].strip() or text[:start].rstrip()[-1:] in ".?!。？！"
            add((start, start + len(" ".join(words))), " ".join(words), "person",
                NAME_AT_START if at_start else NAME, "name_en")
    for span, name in zh_names:
        add(span, name, "person", NAME, "name_zh")
    return sorted(found, key=lambda e: e.start)


def _occurrences(haystack: str, needle: str, most: int = 8) -> Iterable[tuple[int, int]]:
    """The first ``most`` non-overlapping spans of ``needle``; an ASCII letter or digit at an edge must be a word edge."""
    start = haystack.find(needle)
    while needle and start >= 0 and most > 0:
        end = start + len(needle)
        head_ok = not (needle[0].isascii() and needle[0].isalnum() and start and haystack[start - 1].isascii()
                       and haystack[start - 1].isalnum())
        tail_ok = not (needle[-1].isascii() and needle[-1].isalnum() and end < len(haystack)
                       and haystack[end].isascii() and haystack[end].isalnum())
        if head_ok and tail_ok:
            yield start, end
            most -= 1
        start = haystack.find(needle, end if head_ok and tail_ok else start + 1)


def _trim_name(name: str) -> str:
    """A Chinese name candidate without the verb or particle the name heuristic swallowed (张伟住 → 张伟)."""
    while len(name) > 2 and name[-1] in _NAME_TAIL:
        name = name[:-1]
    return "" if len(name) >= 2 and name[1] in _NAME_END else name


def _about_user(text: str, entities: Sequence[Entity]) -> bool:
    """First person is present and is not only the owner of a named role (我表弟, my sister)."""
    owners = {e.start for e in entities if e.kind == "role"}
    for m in _FIRST_PERSON.finditer(text):
        rest = m.end() + (1 if text[m.end():m.end() + 1] == "的" else 0)
        rest += len(text[rest:]) - len(text[rest:].lstrip())
        if rest not in owners:
            return True
    return False
