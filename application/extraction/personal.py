"""Personal facts of one clause: resolve the subject, unwrap hedges and reports, run the frame rules.

This is the first reader of every clause (before the configuration and speaker patterns of
``patterns_zh``/``patterns_en``): health, habits, possessions, diet, quantities, residence and
work of the user, of a kin relation, or of a named third party.

- A hedge (大概, 好像, "I think", about) keeps the fact but marks it ``confidence=hedged``; only
  rules whose slot a hedge does not void may fire (allergy, health, quantities, age).
- An authority's report about the user (医生说我血压偏高, "my doctor says I have asthma") is the
  user's health fact with ``source=<authority>``; anyone else's report stays blocked.
- The assistant's first person is not the user: without the user's role only third parties count.
"""

from __future__ import annotations

import re

from attrs import evolve

from hlmem.application.extraction import frames_en, frames_zh
from hlmem.application.extraction.clauses import Clause, Fact
from hlmem.application.extraction.frames import run
from hlmem.application.extraction.guard import Tagger
from hlmem.application.extraction.lexicon import AUTHORITY_EN, AUTHORITY_ZH, FREQ_EN
from hlmem.application.extraction.subjects import LEADING_ZH, resolve_en, resolve_zh
from hlmem.domain.slots import SlotRegistry

_REPORT_ZH = re.compile(rf"^\s*(?:我的)?(?P<who>{AUTHORITY_ZH})(?:上)?(?:说|讲|显示|提示|告诉我|诊断|认为|判断)(?:了)?\s*(?:说)?\s*(?=我)")
_REPORT_EN = re.compile(rf"^\s*(?P<who>{AUTHORITY_EN})\s+(?:says|said|told\s+me|tells\s+me|thinks|found|confirmed|showed|show|shows)"
                        rf"\s+(?:that\s+)?(?=I\b)", re.I)
_HEDGE_LEAD = re.compile(r"^\s*(?:我觉得|我感觉|我怀疑|我猜|I\s+think|I\s+believe|I\s+guess|I\s+suspect|pretty\s+sure)\s*,?\s*",
                         re.I)
_FREQ_LEAD = re.compile(rf"^\s*(?P<f>{FREQ_EN})\s*,?\s*", re.I)
_ACTIVITY_EN = re.compile(r"\s+(?P<v>(?!am\b|'m|is\b|was\b|have\b|think|feel|like|love|hate|want|wish)[a-z][\w'\-]*(?:\s+[\w'\-]+){0,5})"
                          r"\s*[.!]*\s*$")


def match(clause: Clause, registry: SlotRegistry, topic: str | None, *, blocked: str | None = None,
          tagger: Tagger | None = None) -> list[Fact]:
    """Personal facts of one clause (empty when no frame applies).

    :param topic: the third party the event last named (for 他, 其, she).
    :param blocked: the gate that stops the clause, if any: ``uncertain`` lets hedge-proof rules
        through, ``reported`` an authority's report about the user; any other gate yields nothing.
    :param tagger: the guard's Chinese part-of-speech tagger, if any.
    """
    hedged, reported, source = blocked == "uncertain", False, None
    if blocked not in (None, "uncertain", "reported"):
        return []
    report = (_REPORT_ZH if clause.lang == "zh" else _REPORT_EN).match(clause.text) if clause.by_user else None
    if blocked == "reported" and report is None:
        return []
    if report is not None:
        clause, reported = _from(clause, report.end()), True
        source = " ".join(report["who"].split())
    lead = _HEDGE_LEAD.match(clause.text)
    if lead and not reported:
        clause, hedged = _from(clause, lead.end()), True
    freq = _FREQ_LEAD.match(clause.text) if clause.lang == "en" else None
    if freq:
        clause = _from(clause, freq.end())
    subject = (resolve_zh if clause.lang == "zh" else resolve_en)(clause.work, topic)
    table = frames_zh.RULES if clause.lang == "zh" else frames_en.RULES
    if subject is None:
        if not clause.by_user or freq or reported:
            return []
        start = LEADING_ZH.match(clause.work).end() if clause.lang == "zh" else 0  # 不过现在在北京工作
        facts = run(table, clause.text, clause.work, start, subject=None, registry=registry, hedged=hedged, unnamed=True,
                    tagger=tagger)
        return [evolve(f, qualifiers=(*f.qualifiers, ("source", source))) for f in facts] if source else facts
    if (subject.name is None and not clause.by_user) or (subject.kin and not clause.by_user):
        return []
    if reported and subject.name is not None:
        return []
    if freq:
        m = _ACTIVITY_EN.match(clause.text, subject.end)
        if not m:
            return []
        value = f"{m['v']} {freq['f']}".strip()
        return [Fact(predicate="habit", value=value, subject=subject.name, span=m.span("v"), rule="en.habit_lead",
                     cardinality=registry.cardinality("habit"))]
    facts = run(table, clause.text, clause.work, subject.end, subject=subject.name, kin=subject.kin,
                registry=registry, hedged=hedged, reported=reported, tagger=tagger, text_start=subject.bare_end)
    if source:
        facts = [evolve(f, qualifiers=(*f.qualifiers, ("source", source))) for f in facts]
    if subject.relation and clause.by_user and facts:
        predicate, value = subject.relation
        facts.append(Fact(predicate=predicate, value=value, cardinality=registry.cardinality(predicate),
                          rule=f"{clause.lang}.kin_apposition", importance=0.6))
    return facts


def _from(clause: Clause, offset: int) -> Clause:
    """The clause from ``offset`` on (a time mention before it no longer applies)."""
    time = clause.time if clause.time is not None and clause.time.start >= offset else None
    if time is not None:
        time = evolve(time, start=time.start - offset, end=time.end - offset)
    return evolve(clause, text=clause.text[offset:], work=clause.work[offset:], start=clause.start + offset, time=time)


def named_person(facts: list[Fact]) -> str | None:
    """The third party these facts are about, or name (张伟 of 张伟是我的同事), for later pronouns."""
    for fact in reversed(facts):
        if fact.subject and fact.subject not in ("用户", "user"):
            return fact.subject
        if fact.subject is None and fact.predicate in _RELATION_PREDICATES:
            return fact.value
    return None


_RELATION_PREDICATES = frozenset({
    "boss", "spouse", "partner", "father", "mother", "advisor", "colleague", "friend", "sibling", "child", "roommate",
    "classmate", "neighbor", "collaborator", "cousin", "uncle", "aunt", "grandparent", "mother_in_law", "father_in_law",
    "sister_in_law", "brother_in_law", "niece", "nephew", "grandchild",
})
