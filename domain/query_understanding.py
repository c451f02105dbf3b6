"""Query understanding: who a recall query is about and which time it asks for, as filters (pure, deterministic).

:func:`understand` reads a Chinese or English query and returns a :class:`QueryIntent`:

- **time**: 现在/目前/now/currently → ``CURRENT``; 之前/以前/原来/曾经/previously/used to/before the
  move → ``HISTORY`` (the caller returns the superseded values); a calendar expression (4月时, 去年,
  上周, 三个月前, last month, in April 2024, 2023年之前) → ``AT`` with ``valid_range`` and a point
  ``valid_at`` in it; nothing → ``UNSPECIFIED``. "as of <date>", 截至/截止/直到<date>, 到<date>为止 ask
  for the state at the end of the date, a *valid* time (``intent.as_of``; the range is open at its
  start); only a cue of what was known (did I tell you, 说过, 记下, did you know/believe) makes a date
  a knowledge time (``known_at``). Calendar expressions are found and resolved by the
  ``times`` parser the caller passes (:mod:`hlmem.domain.temporal` satisfies
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

The parts live in modules of one concept each: :mod:`hlmem.domain.time_intent` (time words and
modes), :mod:`hlmem.domain.query_entities` (who), :mod:`hlmem.domain.query_cleaning` (the text left
to search); this module puts them together and keeps the public API.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from datetime import datetime

from attrs import evolve, field, frozen

from hlmem.domain.query_cleaning import clean_query
from hlmem.domain.query_entities import (ALIAS, HIGH_CONFIDENCE, KNOWN, NAME, NAME_AT_START, PLACE, PRODUCT, ROLE,
                                         VERSION, NO_SUBJECTS, Entity, SubjectIndex, about_user, find_entities,
                                         index_subjects)
from hlmem.domain.query_lexicon import _FILLER
from hlmem.domain.time_intent import (AS_OF, EventAnchor, TimeMode, TimeParser, TimeSpan, ValidRange, decide_time,
                                      last_sentence_start, point_in, same_sentence, time_hits)

__all__ = ["ALIAS", "HIGH_CONFIDENCE", "KNOWN", "NAME", "NAME_AT_START", "PLACE", "PRODUCT", "REASON_CODES", "ROLE",
           "VERSION", "Entity", "EventAnchor", "QueryIntent", "SubjectIndex", "TimeMode", "TimeParser", "TimeSpan",
           "ValidRange", "index_subjects", "merge", "understand"]

#: Reason codes (each reason is ``"code: detail"``).
REASON_CODES = ("time.current", "time.history", "time.at", "time.bound", "time.as_of", "time.anchor",
                "time.clock_ignored",
                "time.ambiguous", "time.conflict", "time.known_at", "query.elliptical", "entity.found",
                "merge.valid_at", "merge.known_at")


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



def understand(query: str, *, now: datetime, times: TimeParser, known_subjects: Iterable[str] | SubjectIndex = (),
               aliases: Mapping[str, str] | None = None) -> QueryIntent:
    """Read who and when ``query`` is about (see the module docstring).

    :param query: the user's query, any language; normalised with NFKC.
    :param now: the reference time relative expressions resolve against (when the question is
        asked, which for imported history is not the wall clock); must be timezone-aware.
    :param times: a :class:`TimeParser`, e.g. :mod:`hlmem.domain.temporal`.
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
        index = NO_SUBJECTS  # the default: nothing to index
    else:
        index = index_subjects(known_subjects, aliases)
    text = unicodedata.normalize("NFKC", query or "")
    hits = time_hits(text, now, times)
    reasons: list[str] = []
    mode, conf, vrange, earliest, anchor = decide_time(hits, reasons)
    valid_at = point_in(vrange, now) if vrange else None
    known_at = None
    asked = last_sentence_start(text)
    if valid_at is not None and any(same_sentence(text, k, d) and min(k.start, d.start) >= asked
                                    for k in hits if k.kind == "known" for d in hits if d.kind in ("date", "anchor")):
        known_at = valid_at
        reasons.append(f"time.known_at: asks what was known then, known_at={valid_at.isoformat()}")
    as_of = valid_at is not None and known_at is None and any(h.detail.endswith(AS_OF) for h in hits)
    if as_of:
        reasons.append(f"time.as_of: the state at valid_at={valid_at.isoformat()} "
                       "(a valid time; nothing asks what was known)")
    entities = find_entities(text, hits, index)
    reasons += [f"entity.found: {e.kind} {e.key!r} ({e.source}, {e.confidence:.2f})" for e in entities]
    cleaned = clean_query(text, hits)
    elliptical = bool(text.strip()) and not _FILLER.sub("", cleaned)
    if elliptical:
        reasons.append("query.elliptical: nothing but time and filler words; combine with the previous query")
    return QueryIntent(
        query=query, about_user=about_user(text, entities), entities=tuple(entities),
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
