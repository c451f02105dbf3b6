"""Rules and the learned tagger together (ADR 0078): the rules first, the tagger where they are silent.

``union``: every rule candidate, plus each learned candidate that does not collide with one —
it collides when it is about the same subject and a single-valued slot the rules already filled,
when its value overlaps a rule value of the same slot, or when it overlaps a rule value of the
same subject (the rules read "我女儿朵朵五岁" as 朵朵's age; the tagger's "user · age" loses).
``fallback``: the learned candidates only for events where the rules found nothing.
Each event is combined on its own. Pure: no model or library here; both extractors come in.

The rules' clause gates also hold for the learned candidates (:func:`gated`): a value that lies
in a clause the rules block — a question, a hypothetical or uncertain frame, reported speech, a
rule or permission, a habitual past, a quotation, a joke — or in no clause the rules read (prose
runs over their length limit) is dropped, whatever the tagger's confidence.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from hlmem.application.extraction.clauses import split
from hlmem.application.pipeline import Extractor
from hlmem.domain.candidates import CandidateClaim, SourceEvent
from hlmem.domain.events import Cardinality

MODES = ("union", "fallback")


def _n(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def _subject(text: str) -> str:
    s = _n(text)
    for prefix in ("用户的", "user's"):
        s = s.removeprefix(prefix)
    return "user" if s in ("用户", "user") else s


def _overlap(a: str, b: str) -> bool:
    a, b = _n(a), _n(b)
    return bool(a) and bool(b) and (a in b or b in a)


def collides(learned: CandidateClaim, rules: Sequence[CandidateClaim]) -> bool:
    """Whether a learned candidate says something a rule candidate of the same event already decides."""
    for r in rules:
        same_subject = _subject(r.subject) == _subject(learned.subject)
        same_slot = r.predicate == learned.predicate
        if same_slot and _overlap(r.value, learned.value):
            return True
        if same_subject and _overlap(r.value, learned.value):
            return True
        if same_subject and same_slot and learned.cardinality is not Cardinality.MULTI:
            return True
    return False


def gated(text: str, learned: Sequence[CandidateClaim]) -> list[CandidateClaim]:
    """The learned candidates whose value lies in a clause the rules' gates leave open."""
    if not learned:
        return []
    open_spans = [(s.clause.start, s.clause.start + len(s.clause.text)) for s in split(text, by_user=True)
                  if s.blocked is None]
    folded = text.casefold()
    out = []
    for cand in learned:
        at = folded.find(cand.value.casefold())
        if at >= 0 and any(a <= at and at + len(cand.value) <= b for a, b in open_spans):
            out.append(cand)
    return out


def combine(rules: Sequence[CandidateClaim], learned: Sequence[CandidateClaim], mode: str = "union",
            text: str | None = None) -> list[CandidateClaim]:
    """One event's candidates: the rules', then the learned ones the mode admits (``text``: the
    event's, whose gated clauses the learned candidates must stay out of)."""
    if mode not in MODES:
        raise ValueError(f"unknown combination mode {mode!r} (one of {', '.join(MODES)})")
    if text is not None:
        learned = gated(text, learned)
    if mode == "fallback":
        return list(rules) if rules else list(learned)
    out = list(rules)
    for cand in learned:
        if not collides(cand, out):
            out.append(cand)
    return out


class CombinedExtractor:
    """The pipeline's extractor: rules and the learned tagger, combined per event."""

    def __init__(self, rules: Extractor, learned: Extractor, mode: str = "union") -> None:
        if mode not in MODES:
            raise ValueError(f"unknown combination mode {mode!r} (one of {', '.join(MODES)})")
        self._rules = rules
        self._learned = learned
        self.mode = mode

    @property
    def name(self) -> str:
        return "rules+learned"

    def extract(self, events: Sequence[SourceEvent], *, job_id: str | None = None) -> list[CandidateClaim]:
        out: list[CandidateClaim] = []
        for event in events:
            out.extend(combine(self._rules.extract([event], job_id=job_id),
                               self._learned.extract([event], job_id=job_id), self.mode, event.text))
        return out
