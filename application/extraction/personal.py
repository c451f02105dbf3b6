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

from attrs import evolve, frozen

from hlmem.application.extraction import frames_en, frames_zh
from hlmem.application.extraction.clauses import CONTINUATION_VERBS, Clause, Fact
from hlmem.application.extraction.frames import run
from hlmem.application.extraction.guard import Tagger
from hlmem.application.extraction.lexicon import AUTHORITY_EN, AUTHORITY_ZH, FREQ_EN
from hlmem.application.extraction.patterns_common import person_like
from hlmem.application.extraction.subjects import LEADING_ZH, LEADING_ZH_HABIT, Subject, resolve_en, resolve_zh
from hlmem.domain.slots import SlotRegistry

_REPORT_ZH = re.compile(rf"^\s*(?:我的)?(?P<who>{AUTHORITY_ZH})(?:上)?(?:说|讲|显示|提示|告诉我|诊断|认为|判断)(?:了)?\s*(?:说)?\s*(?=我)")
_REPORT_EN = re.compile(rf"^\s*(?P<who>{AUTHORITY_EN})\s+(?:says|said|told\s+me|tells\s+me|thinks|found|confirmed|showed|show|shows)"
                        rf"\s+(?:that\s+)?(?=I\b|no\s+more\b)", re.I)
_HEDGE_LEAD = re.compile(r"^\s*(?:(?:honestly|actually|well|so|yeah|ok|okay|tbh|说实话|其实)\s*,?\s*)?"
                         r"(?:我觉得|我感觉|我怀疑|我猜|我估计|I\s+think|I\s+believe|I\s+guess|I\s+suspect|(?:I'm\s+)?pretty\s+sure|"
                         r"(?:I'm\s+)?fairly\s+sure)\s*,?\s*|^\s*我(?:应该是|好像是|应该|好像|估计是|估计)",
                         re.I)
_FREQ_LEAD = re.compile(rf"^\s*(?P<f>{FREQ_EN}|(?P<now>these\s+days|nowadays|lately))\s*,?\s*", re.I)
#: A phrase before the subject that only frames the clause ("After ten years with iPhones I've…").
_EN_PREFIX = re.compile(r"^\s*(?:(?:after|since|for|in|during|over|with|before|following|like|as\s+of|starting|ever\s+since|at|on)"
                        r"\s+[^,]{1,40}?|long\s+story\s+short|to\s+be\s+honest|tbh|honestly|anyway|anyways|btw|by\s+the\s+way|"
                        r"fun\s+fact|oh|well|so|yeah|ok|okay|also|plus|update|quick\s+update|good\s+news|big\s+news|guess\s+what|"
                        r"it\s+turns\s+out(?:\s+that)?|turns\s+out|apparently|anyway|anyways|man|ugh|ok\s+so)"
                        r"\s*,?\s+(?=(?:I|we|my|our)(?:\s|'))", re.I)
_ACTIVITY_EN = re.compile(r"\s+(?P<v>(?!am\b|'m|is\b|was\b|have\b|think|feel|like|love|hate|want|wish)[a-z][\w'\-]*(?:\s+[\w'\-]+){0,7}?)"
                          r"(?:\s+(?:with|at|in|for|from|on|because|but|so|which)\b[^.!?]*)?"
                          r"\s*[.!]*\s*$")


@frozen
class Reading:
    """What one clause says, and whom the clauses after it are about when they name no one."""

    facts: list[Fact]
    subject: Subject | None = None  # the subject this clause resolved (named or carried), if any


#: An English clause that opens with a verb continues the subject before it ("…and has diabetes").
_EN_LEAD = r"^\s*(?:(?:and|also|then|plus|but|so|who|which)\s+)*"
_EN_CONTINUES = re.compile(
    rf"{_EN_LEAD}(?:(?:now|still|also|just|recently|mostly|usually|always|often|even|currently|actually|really)\s+)*"
    rf"(?:'s|'m|{CONTINUATION_VERBS})\b", re.I)
#: "…, plus a very dumb but very sweet beagle named Otis": one more thing the subject before has.
_PLUS_ONE = re.compile(r"^\s*(?:plus|and\s+also|as\s+well\s+as|and)\s+(?=(?:a|an|one|two|three|some|another)\s)", re.I)
#: A sentence that is only a state of the speaker's: "single.", "vegetarian since high school".
_BARE_STATE = re.compile(r"^\s*(?:(?:ok|okay|so|and)\s+)?(?:(?:full|fully|full-on|strictly|very|totally|happily|still|aggressively|recently|newly|just|proudly|officially|now|currently)\s+)*"
                         r"(?P<s>single|married|divorced|engaged|widowed|retired|pregnant|vegan|vegetarian|pescatarian|unemployed|"
                         r"sober|gluten[-\s]free|an?\s+[\w\-]+(?:\s+[\w\-]+)?\s+(?:major|student|nurse|teacher|mom|dad|resident|"
                         r"person|local))\b(?:\s+(?:since|for|lol|haha|af|now|again|as\s+of|and)\b[^.!?]*)?\s*[.!]*\s*$", re.I)
#: Casual English drops "I": a clause opening with one of these verbs is the speaker's.
_DROPPED_I = re.compile(r"^\s*(?:just\s+|finally\s+|recently\s+|officially\s+)?(?:been|got|moved|started|bought|sold|quit|went|"
                        r"retired|graduated|switched|adopted|landed|joined|left|turned|became|lost|finished|signed\s+up|transferred|"
                        r"picked\s+up|ordered|dropped|ditched|booked|had|took|came|headed|grew\s+up|traded|sold|gave\s+up|stopped|quit|"
                        r"can't\s+stand|cannot\s+stand|hate|wear|speak|make|earn|bill|pay|paying|signed|tried|tore|broke|sprained|fractured)\b", re.I)
#: "im 15", "Im in 10th grade": I'm typed without its apostrophe.
_IM = re.compile(r"^\s*(?:so\s+|and\s+|but\s+)?[Ii]m\s+(?=\S)")
#: Casual English drops "I'm": a clause opening with a state or a participle is the speaker's
#: ("allergic to penicillin, found out the hard way", "based in Lisbon", "down to 198!!").
_DROPPED_AM = re.compile(r"^\s*(?:(?:still|now|currently|finally|also|just|all)\s+)*(?=(?:allergic|based|living|staying|"
                         r"married\s+to|down\s+to|up\s+to|back\s+(?:up|down)\s+to|back\s+in|back\s+to|not\s+on|done\s+with|doing|working|"
                         r"seeing|dating)\b|on\s+(?:an?\s+|the\s+)?(?-i:[A-Z]|i[A-Z]))", re.I)
#: A bare complement continuing a "be" clause: "I'm 29, single, and…", "My dad is retired, diabetic".
_EN_BARE = re.compile(r"^\s*(?:and\s+)?(?:(?:a|an|happily|recently|newly|still|very|pretty|quite)\s+)?"
                      r"(?=[a-z])(?!(?:the|this|that|it|so|too|very|just|yes|no|ok|okay|lol|haha|thanks)\b)"
                      r"[a-z][\w'\-]*(?:\s+[a-z][\w'\-]*){0,2}\s*[.!]*\s*$", re.I)
#: A Chinese clause that names no one continues the third party before it in its sentence, unless
#: it starts over with the speaker's own words (我觉得… is caught by the subject resolver).
_ZH_CONTINUES = re.compile(r"^\s*(?:还|而且|并且|也|又|都|就|平时|经常|今年|现在|每|已经|一直|目前|最近|在|是|有|会|做|住|"
                           r"不|没|特别|比较|很|挺|刚|[\u4e00-\u9fff])")


def match(clause: Clause, registry: SlotRegistry, topic: str | None, *, blocked: str | None = None,
          tagger: Tagger | None = None, carried: Subject | None = None, known: frozenset[str] | set[str] = frozenset()
          ) -> Reading:
    """Personal facts of one clause (empty when no frame applies), and its subject.

    :param topic: the third party the event last named (for 他, 其, she).
    :param blocked: the gate that stops the clause, if any: ``uncertain`` lets hedge-proof rules
        through, ``reported`` an authority's report about the user; any other gate yields nothing.
    :param tagger: the guard's Chinese part-of-speech tagger, if any.
    :param carried: the subject of the clause before it in the same sentence: a clause that names
        no one is about them ("我老公在外企做财务，经常加班", "My mom is 67 and has diabetes").
    :param known: names the event introduced before this clause (pets, kin): a clause opening
        with one is about them ("我家两只猫 大的叫可乐 … 可乐去年查出来有糖尿病").
    """
    hedged, reported, source = blocked == "uncertain", False, None
    if blocked not in (None, "uncertain", "reported"):
        return Reading([])
    report = (_REPORT_ZH if clause.lang == "zh" else _REPORT_EN).match(clause.text) if clause.by_user else None
    if blocked == "reported" and report is None:
        return Reading([])
    if report is not None:
        clause, reported = _from(clause, report.end()), True
        source = " ".join(report["who"].split())
    lead = _HEDGE_LEAD.match(clause.text)
    if lead and not reported:
        clause, hedged = _from(clause, lead.end()), True
    freq = _FREQ_LEAD.match(clause.text) if clause.lang == "en" else None
    if freq:
        clause = _from(clause, freq.end())
    elif clause.lang == "en" and (prefix := _EN_PREFIX.match(clause.work)) and resolve_en(clause.work, topic) is None:
        clause = _from(clause, prefix.end())
    subject = (resolve_zh if clause.lang == "zh" else resolve_en)(clause.work, topic) or _known(clause, known)
    table = frames_zh.RULES if clause.lang == "zh" else frames_en.RULES
    if subject is None and carried is not None and not reported and not freq:
        subject = _carry(clause, carried)
    if subject is None and clause.lang == "en" and clause.by_user and not reported and not freq and _DROPPED_I.match(clause.work):
        subject = _carry(clause, Subject(None, 0))  # "Been vegetarian for ten years", "Got a new job!": the speaker
    if subject is None and clause.lang == "en" and clause.by_user and not reported and not freq \
            and (am := _DROPPED_AM.match(clause.work) or _IM.match(clause.work)) is not None:
        subject = Subject(None, am.end(), bare_end=-3, carried=True)  # "based in Lisbon": I'm based in Lisbon
    if subject is None and clause.lang == "en" and clause.by_user and not reported and not freq and carried is None \
            and (bare := _BARE_STATE.match(clause.work)) is not None:
        subject = Subject(None, bare.start("s"), bare_end=-1, carried=True)  # "single. very single lol"
    if subject is not None and subject.unresolved:  # 她现在在腾讯上班了 with no one named before: never the speaker's,
        speaker_rules = _SPEAKER_ZH if clause.lang == "zh" else _SPEAKER_EN  # unless the frame says "me" ("they made me…")
        return Reading(run(speaker_rules, clause.text, clause.work, 0, subject=None, registry=registry, hedged=hedged,
                           tagger=tagger) if clause.by_user and not reported and speaker_rules else [], subject)
    if subject is None:
        if not clause.by_user or freq or (reported and clause.lang == "zh"):
            return Reading([])
        start = LEADING_ZH.match(clause.work).end() if clause.lang == "zh" else 0  # 不过现在在北京工作
        text_start = LEADING_ZH_HABIT.match(clause.work).end() if clause.lang == "zh" else None
        facts = run(table, clause.text, clause.work, start, subject=None, registry=registry, hedged=hedged, unnamed=True,
                    tagger=tagger, text_start=text_start)
        facts = [evolve(f, qualifiers=(*f.qualifiers, ("source", source))) for f in facts] if source else facts
        return Reading(facts)
    if (subject.name is None and not clause.by_user) or ((subject.kin or subject.pet) and not clause.by_user):
        return Reading([])
    if reported and subject.name is not None:
        return Reading([])
    if freq:
        if freq["now"]:  # "These days I keep my notes in Obsidian": a rule may read it, as a change
            facts = run(table, clause.text, clause.work, subject.end, subject=subject.name, kin=subject.kin,
                        registry=registry, tagger=tagger, text_start=subject.bare_end)
            if facts:
                return Reading([evolve(f, change=True, holds_now=True) for f in facts], subject)
        m = _ACTIVITY_EN.match(clause.text, subject.end)
        if not m:
            return Reading([], subject)
        value = m["v"] if freq["now"] else f"{m['v']} {freq['f']}".strip()
        return Reading([Fact(predicate="habit", value=value, subject=subject.name, span=m.span("v"), rule="en.habit_lead",
                             cardinality=registry.cardinality("habit"), change=bool(freq["now"]),
                             holds_now=bool(freq["now"]))], subject)
    if subject.pet and (named := pet_named(clause, subject)) is not None:
        return named
    if (gone := pet_gone(clause, subject)) is not None:
        return gone
    facts = _run_carried(table, clause, subject, registry, hedged, reported, tagger) if subject.carried else run(
        table, clause.text, clause.work, subject.end, subject=subject.name, kin=subject.kin,
        registry=registry, hedged=hedged, reported=reported, tagger=tagger, text_start=subject.bare_end)
    if subject.pet and subject.counted and clause.by_user and subject.name and subject.name.startswith(("用户的", "user's ")) \
            and not any(f.predicate == "owns" for f in facts):
        # "我家两只猫…", "My cat is 3": the user has the pet, whatever else the clause says
        facts = [*facts, Fact(predicate="owns", value=subject.pet, rule=f"{clause.lang}.pet_subject", importance=0.5,
                              cardinality=registry.cardinality("owns"), span=(0, 0))]
    if source:
        facts = [evolve(f, qualifiers=(*f.qualifiers, ("source", source))) for f in facts]
    if subject.relation and clause.by_user and facts and not subject.carried:
        predicate, value = subject.relation
        kind = "pet" if subject.pet else "kin"
        facts.append(Fact(predicate=predicate, value=value, cardinality=registry.cardinality(predicate),
                          rule=f"{clause.lang}.{kind}_apposition", importance=0.6))
    return Reading(facts, subject)


def _carry(clause: Clause, carried: Subject) -> Subject | None:
    """The carried subject, starting where this clause's words start, when the clause continues it."""
    if clause.lang == "en":
        m = _EN_CONTINUES.match(clause.work) or _DROPPED_I.match(clause.work)
        if m is None and (more := _PLUS_ONE.match(clause.work)) is not None:
            return evolve(carried, end=more.end(), bare_end=-2, carried=True, relation=None)
        if m is None:
            bare = _EN_BARE.match(clause.work)
            lead = re.match(r"^\s*(?:and\s+)?", clause.work)
            return evolve(carried, end=lead.end() if lead else 0, bare_end=-1, carried=True, relation=None) if bare else None
        lead = re.match(_EN_LEAD, clause.work, re.I)
        start = lead.end() if lead else 0
    else:
        if not _ZH_CONTINUES.match(clause.work) or "我" in clause.work[:10]:
            return None  # "…，每天放学我去接他": the speaker's own clause
        start = LEADING_ZH.match(clause.work).end()
    return evolve(carried, end=start, bare_end=start, carried=True, relation=None)


def _run_carried(table, clause: Clause, subject: Subject, registry: SlotRegistry, hedged: bool, reported: bool,
                 tagger: Tagger | None) -> list[Fact]:
    """The frame rules on a clause that continues a subject: English rules expect a space before the verb."""
    if clause.lang == "zh":
        text_start = LEADING_ZH_HABIT.match(clause.work).end()
        return run(table, clause.text, clause.work, subject.end, subject=subject.name, kin=subject.kin,
                   registry=registry, hedged=hedged, reported=reported, tagger=tagger, text_start=text_start)
    glue = " is " if subject.bare_end == -1 else " "  # "I'm 29, single": a bare complement of the clause before
    if re.match(r"\s*been\b", clause.work[subject.end:], re.I):
        glue = "'ve "  # "Been vegetarian for ten years" → I've been…
    if subject.bare_end == -2:
        glue = " have "  # "…, plus a very sweet beagle named Otis": another thing the subject has
    if subject.bare_end == -3:
        glue = "'m "  # "allergic to penicillin", "down to 198": the speaker's state, "I'm" left out
    start = subject.end if subject.bare_end in (-1, -2, -3) and subject.end else 0 if subject.bare_end == -1 else subject.end
    text, work = glue + clause.text[start:], glue + clause.work[start:]
    facts = run(table, text, work, 0, subject=subject.name, kin=subject.kin, registry=registry, hedged=hedged,
                reported=reported, tagger=tagger, text_start=0)
    shift = start - len(glue)
    return [evolve(f, span=(f.span[0] + shift, f.span[1] + shift)) if f.span else f for f in facts]


_PET_CALLED_ZH = re.compile(r"\s*(?:的名字)?\s*(?:叫做?|名叫|名字叫|取名叫?|的名字是)\s*(?P<n>[\u4e00-\u9fffA-Za-z]{1,6}?)\s*(?:了|呢|哦|啊)?\s*$")
_PET_CALLED_EN = re.compile(r"\s*(?:is\s+called|is\s+named|'s\s+called|'s\s+name\s+is|goes\s+by)\s+(?P<n>[A-Z][\w'\-]+)\s*[.!]*\s*$")


_GONE_EN = re.compile(r"\s*(?:(?:just|sadly|finally)\s+)?(?:passed\s+away|passed|died|was\s+put\s+down|ran\s+away|went\s+missing|"
                      r"crossed\s+the\s+rainbow\s+bridge)\b[^.!?]*$", re.I)
_GONE_ZH = re.compile(r"\s*(?:已经|前几天|上周|昨天)?\s*(?:走丢了|走了|去世了|死了|没了|丢了|跑丢了|跑了|被送人了)\s*$")


#: The frame rules whose fact is the speaker's whoever opens the clause ("they made me shift supervisor"):
#: one table per language (built once: the engine indexes each table it is given).
_SPEAKER_ZH = tuple(r for r in frames_zh.RULES if r.speaker)
_SPEAKER_EN = tuple(r for r in frames_en.RULES if r.speaker)
SPEAKER_RULES = frozenset(r.name for r in (*_SPEAKER_ZH, *_SPEAKER_EN))


def pet_gone(clause: Clause, subject: Subject) -> Reading | None:
    """"Luna passed away", "我家狗狗走了": a pet (a named subject that is no one's kin) is no longer the user's."""
    if subject.kin or (subject.relation and not subject.pet) or subject.name is None:
        return None
    if not subject.pet and not (subject.carried or person_like(subject.name)):
        return None
    m = (_GONE_ZH if clause.lang == "zh" else _GONE_EN).match(clause.work, subject.end)
    if m is None:
        return None
    value = subject.name if not subject.name.startswith(("用户的", "user's ")) else subject.pet or subject.name
    return Reading([Fact(predicate="owns", value=value, polarity=False, change=True, holds_now=True, span=m.span(),
                         rule=f"{clause.lang}.pet_gone", importance=0.6)], subject)


def pet_named(clause: Clause, subject: Subject) -> Reading | None:
    """"我家那只橘猫叫年糕", "Our dog's name is Rex": the user owns the pet, and later clauses are about it."""
    m = (_PET_CALLED_ZH if clause.lang == "zh" else _PET_CALLED_EN).match(clause.work, subject.end)
    if m is None or subject.pet is None:
        return None
    name = clause.text[m.start("n"):m.end("n")]
    value = f"{subject.pet}（{name}）" if clause.lang == "zh" else f"{subject.pet} ({name})"
    fact = Fact(predicate="owns", value=value, span=m.span("n"), rule=f"{clause.lang}.pet_called", importance=0.6)
    return Reading([fact], Subject(name, m.end(), pet=subject.pet))


def _from(clause: Clause, offset: int) -> Clause:
    """The clause from ``offset`` on (a time mention before it no longer applies)."""
    time = clause.time if clause.time is not None and clause.time.start >= offset else None
    if time is not None:
        time = evolve(time, start=time.start - offset, end=time.end - offset)
    return evolve(clause, text=clause.text[offset:], work=clause.work[offset:], start=clause.start + offset, time=time)


#: Chinese verbs a fact starts with, wherever it stands in a long clause ("咬咬牙换了个苹果15").
_ANCHOR_ZH = re.compile(r"(?:换了|买了|入手了|搬到|搬去|搬回|住在|养了|卖了|辞职|离职|退休|开了|考上了|确诊|查出|戒了|改用|在准备|"
                        r"跳槽|入职|在[^，,\s]{1,10}?(?:上班|工作|读|当|做)|对[^，,\s]{1,8}?过敏|每(?:天|周|个?星期)|不再|已经不)")


def anchored(clause: Clause, subject: Subject | None, registry: SlotRegistry, tagger: Tagger | None) -> list[Fact]:
    """The frame rules read from a verb later in a Chinese clause (咬咬牙换了个苹果15), when no
    rule or pattern read the clause from its start."""
    if clause.lang != "zh" or not clause.by_user:
        return []
    start = subject.end if subject is not None else 0
    name, kin = (subject.name, subject.kin) if subject is not None else (None, None)
    for m in _ANCHOR_ZH.finditer(clause.work, start + 1):
        facts = run(frames_zh.RULES, clause.text, clause.work, m.start(), subject=name, kin=kin, registry=registry,
                    tagger=tagger, text_start=m.start())
        if facts:
            return facts
    return []


def _known(clause: Clause, known: frozenset[str] | set[str]) -> Subject | None:
    """A name the event introduced, opening the clause."""
    for name in sorted(known, key=len, reverse=True):
        if clause.work.startswith(name) and (len(clause.work) == len(name) or not clause.work[len(name)].isalpha()
                                             or clause.lang == "zh"):
            return Subject(name, len(name))
    return None


def names_in(facts: list[Fact]) -> set[str]:
    """Names the facts introduce: kin named (乐乐) and pets named (cat (Miso) → Miso)."""
    out = set()
    for fact in facts:
        if fact.subject is None and fact.predicate in RELATION_PREDICATES and fact.polarity and person_like(fact.value):
            out.add(fact.value)
        elif fact.predicate == "owns" and (m := re.search(r"[（(]([^)）]{1,12})[)）]$", fact.value)):
            out.add(m[1])
    return out


def introduced(facts: list[Fact]) -> str | None:
    """The person or pet the speaker just named (我有个女儿叫乐乐, 张伟是我的同事, 我家有只橘猫叫年糕), else None."""
    for fact in facts:
        if fact.subject is None and fact.predicate in RELATION_PREDICATES and fact.polarity and person_like(fact.value):
            return fact.value
        if fact.subject is None and fact.predicate == "owns" and fact.polarity and \
                (m := re.search(r"[（(]([^)）]{1,12})[)）]$", fact.value)):
            return m[1]
    return None


RELATION_PREDICATES = frozenset({
    "boss", "spouse", "partner", "father", "mother", "advisor", "colleague", "friend", "sibling", "child", "roommate",
    "classmate", "neighbor", "collaborator", "cousin", "uncle", "aunt", "grandparent", "mother_in_law", "father_in_law",
    "sister_in_law", "brother_in_law", "niece", "nephew", "grandchild", "parent", "subordinate",
})
