"""The rule extractor: deterministic Chinese and English patterns → candidate claims (no model).

It is the embedded default when no LLM is configured, so it must be safe before it is clever:
it only speaks for clauses it understands, anchored at the clause start, and says nothing about
questions, hypotheticals, uncertain, reported, quoted, required or habitual-past statements. What
no rule covers stays recallable as the verbatim event.

Shape of what it emits (the same as the LLM extractor's):

- first-person facts have the subject ``用户`` in Chinese text and ``user`` in English text when
  the event's role is the user's; an assistant's, tool's or system's "我" states nothing of its
  own. Any other role names a participant (a group chat's "Caroline"): their first person is
  about that name (``Caroline · lives_in · …``, ``Caroline's sister``, ``Caroline的表哥``);
- the predicate is a catalogue predicate where one fits (``preferred_ui_theme``, ``lives_in``,
  ``version``…), else a free one (``boss``, ``status``, or the noun of ``X 的 Y 是 Z``);
- valid time: a resolved time expression (:mod:`hlmem.domain.temporal`; a month or weekday
  without a year or week is the nearest past one) or the event's occurred time. A change (搬去,
  switched to, 升级到, diagnosed) holds from the expression on — "I moved to Seattle in May" is
  valid from May — and is marked ``change``, so it still supersedes what was said before it
  (ADR 0059); a state seen on a past day (补录：6月1日时…) is a late record, which the domain
  closes at the next known claim; a plain state pinned to a past week, month or year (2024 年时…)
  holds during that period only; anything dated in the future becomes a ``plan`` claim
  (temporal scope), never the current state;
- ``暂时``/``for now`` add the qualifier ``temporary`` (and temporal scope): same slot, so a
  temporary choice supersedes the lasting one and keeps saying it is temporary;
- evidence is the event id, and the evidence quote an exact substring of the event text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

from attrs import evolve

from hlmem.application.extraction import patterns_en, patterns_zh, personal, referents
from hlmem.application.extraction.guard import Tagger, value_ok
from hlmem.application.extraction.carry import amount_after, items_after, names_after
from hlmem.application.extraction.clauses import Clause, Fact, leading_entity, split
from hlmem.application.extraction.mentions import devices, homes, relations, teammates
from hlmem.application.extraction.subjects import Subject, resolve_en, resolve_zh
from hlmem.application.extraction.patterns_common import label_index, scope_for
from hlmem.domain.provenance import NON_USER_ROLES
from hlmem.domain.temporal import resolve
from hlmem.domain.candidates import CandidateClaim, SourceEvent
from hlmem.domain.events import Cardinality, Scope
from hlmem.domain.slots import SlotRegistry

#: Roles whose first person is the user.
USER_ROLES = frozenset({"user", "human"})
SPEAKER = {"zh": "用户", "en": "user"}
EXTRACTOR = "rules"
#: What one schedules for later today (今晚加班, meeting Ann tonight): a remark about today is no plan.
_SCHEDULED = re.compile(r"去|回|开会|会议|见|约|加班|上课|考试|面试|出发|飞|接|送|体检|看医生|搬家|聚餐|值班|比赛|演出|"
                        r"(?i:\b(?:meet|meeting|call|see|visit|go|fly|leave|pick|drop|dinner|lunch|appointment|interview|class|"
                        r"exam|game|practice|shift)\b)")
#: A joiner between a fact's value and a later time: the time belongs to what follows.
_LATER_CLAUSE = re.compile(r"(?i:\b(?:so|and|but|because|cause|bc|which|that|until|till|while|though)\b)")
#: What makes a statement about today a plan: a part of the day still to come, or a modal.
_LATER_TODAY = re.compile(r"今晚|今天晚上|今天下午|待会|一会儿|等下|要|得|准备|打算|(?i:\btonight\b|\blater\b|\bthis\s+(?:afternoon|evening)\b)")
#: Multi-valued slots where a value said to hold *now* replaces one of its kind (ADR 0059).
_REPLACEABLE = frozenset({"owns", "uses", "habit", "hobby", "diet"})
_NOW = re.compile(r"现在|如今|目前|这阵子|这段时间|(?i:\bnow\b|these\s+days|nowadays|lately|instead)")
#: A Chinese clause ending in 了 says a new situation (小宝九月份上幼儿园了): a change.
_NEW_STATE = re.compile(r"了[啊呀啦吧哈!！~～]*$")
#: Words that make a time expression a frequency (周末一般…, "on Sundays I usually…").
_USUALLY = re.compile(r"一般|通常|经常|平时|总是|每[天周月年次]|(?i:\b(?:usually|normally|often|always|typically|every)\b)")
#: A third-person pronoun somewhere near a clause's start (a cheap test before resolving its subject again).
_MAYBE_PRONOUN = re.compile(r"[他她它其]|此人|对方|(?i:ta)|\b(?i:he|she|they|his|her|their)\b")
#: Predicates of configuration records: a dated change of one is a late record, not the latest word.
_RECORDS = frozenset({"version", "port", "model", "path", "status"})


def extract(events: Sequence[SourceEvent], registry: SlotRegistry, *,
            tagger: Tagger | None = None) -> list[CandidateClaim]:
    """Candidate claims for a window of events, in event order, without duplicates.

    :param events: the window (any sessions); each is read on its own.
    :param registry: the slot registry; its labels name predicates (生日 → ``birthday``).
    :param tagger: a Chinese part-of-speech tagger for the precision guard (None: lexical checks only).
    """
    labels = label_index(registry)
    out: list[CandidateClaim] = []
    seen: set[tuple[object, ...]] = set()
    named: dict[str, referents.Named] = {}  # session → the third parties its earlier events named (ADR 0094)
    for event in events:
        earlier = named.get(event.session_id, ())
        found, said = _read_event(event, registry, labels, tagger=tagger, before=referents.single(earlier))
        named[event.session_id] = referents.merge(earlier, said)
        for cand in found:
            key = (cand.subject, cand.predicate, cand.value, cand.coordinates, cand.qualifiers, cand.polarity,
                   cand.valid_from, cand.evidence)
            if key not in seen:
                seen.add(key)
                out.append(cand)
    return out


def _read_event(event: SourceEvent, registry: SlotRegistry, labels: Mapping[str, str] | None = None, *,
                tagger: Tagger | None = None, before: str | None = None) -> tuple[list[CandidateClaim], referents.Named]:
    """The candidate claims of one event (see the module docstring for their shape), and the third
    parties it names (None: several).

    :param before: the one third party earlier turns of the session named: a pronoun before the
        event names anyone stands for them (:mod:`.referents`, ADR 0094).
    """
    labels = label_index(registry) if labels is None else labels
    speaker = speaker_of(event.role)
    by_user = speaker is not None
    topic: str | None = None
    topic_start: int | None = None
    person: str | None = before  # the third party last named (for 他, 其, she; :mod:`.referents`)
    named_here: referents.Named = ()  # every third party the event names
    carried: Subject | None = None  # whom the sentence is about so far (a clause naming no one continues it)
    sentence = -1
    in_sentence: referents.Named = ()  # the third parties the sentence names so far
    previous: list[Fact] = []
    said = ""  # the sentence's last clause (for "涨工资了，现在一个月一万八")
    said_before = ""  # the last clause of the sentence before
    owner: dict[str, str | None] = {}  # a pet's name → whose pet it is ("…养了只橘猫叫年糕，还有只柯基叫豆豆")
    known: set[str] = set()  # names the event introduced (咪咪, Eli): a clause opening with one is about them
    out: list[CandidateClaim] = []
    for piece in split(event.text, by_user=by_user):
        clause = piece.clause
        if clause.sentence_start != sentence:
            said_before = said or said_before  # "一个月瘦了十斤!! 现在一百三了": a weight goes on across "!!"
            sentence, carried, previous, said = clause.sentence_start, None, [], ""
            in_sentence = ()
        module = patterns_zh if clause.lang == "zh" else patterns_en
        reading = personal.Reading([]) if clause.planned else personal.match(
            clause, registry, person, blocked=piece.blocked, tagger=tagger, carried=carried, known=known)
        named = None
        if not piece.blocked and by_user:
            named = (names_after(clause, previous) or items_after(clause, previous)) if previous else None
            named = named or amount_after(clause, said) or (amount_after(clause, said_before, weight_only=True)
                                                            if not said else None)
        if named is not None:  # "…，叫咪咪", "…, Miso and Tofu": names for what the last clause introduced
            facts, carried = named.facts, named.subject or carried
            out = _unplaceholder(out, previous[-1] if previous else None, facts, registry)
        else:
            facts = reading.facts
            if reading.subject is not None and not piece.blocked:
                carried = reading.subject
        if piece.blocked and reading.subject is None and named is None:
            lead = (resolve_zh if clause.lang == "zh" else resolve_en)(clause.work, person)
            if lead is not None and (lead.kin or lead.pet) and not lead.pronoun:
                carried = lead  # "我表哥以前在北京，现在在深圳上班": a gate stops the clause, not whom the next is about
        pronoun = _pronoun(clause, reading.subject, person)
        if pronoun is not None and named is None:  # never the speaker's, unless the frame says "me" (they made me…)
            carried = pronoun  # "他以前在北京，现在在深圳上班": the clauses after it are about him too, even after a gate
            facts = [f for f in facts if f.subject is not None or f.rule in personal.SPEAKER_RULES]
            if pronoun.unresolved and not facts:
                said = clause.text
                continue  # 她现在在腾讯上班了 with no referent: no claim
        if piece.blocked and not facts:
            continue
        clause = evolve(clause, topic=topic, topic_start=topic_start)
        if not facts and pronoun is None:
            facts = [f for f in module.match(clause, labels, registry) if _guarded(f, clause, tagger)]
        if not facts and not piece.blocked:
            facts = personal.anchored(clause, reading.subject, registry, tagger)
        if not facts and by_user and pronoun is None:
            facts = _dated_plan(clause, module, event.occurred_at)
            if facts and reading.subject is not None and reading.subject.carried and reading.subject.name:
                facts = [evolve(f, subject=reading.subject.name) for f in facts]  # 我弟在杭州读研，明年毕业
        if named is None and (name := personal.introduced(facts)) is not None:
            carried = Subject(name, 0)  # "我有个女儿叫乐乐，今年五岁": the clauses after it are about 乐乐
        if by_user and not piece.blocked and pronoun is None:
            said_already = {(f.predicate, f.value) for f in facts}
            facts = [*facts, *(f for f in relations(clause) if (f.predicate, f.value) not in said_already)]
            held = {(f.predicate, f.value) for f in facts}
            facts = [*facts, *(f for f in devices(clause) if not any(
                f.value in v for p, v in held if p in ("owns", "uses")))]
            if not any(p == "lives_in" for p, _ in held):
                facts = [*facts, *homes(clause)]
            facts = [*facts, *(f for f in teammates(clause) if ("colleague", f.value) not in held)]
        facts = [evolve(f, subject=owner[f.subject]) if f.predicate == "owns" and f.subject in owner else f for f in facts]
        owner.update(_owners(facts))
        known |= personal.names_in(facts)
        for fact in facts:
            cand = _candidate(fact, clause, event)
            if cand is not None:
                out.append(cand if speaker == "" else evolve(cand, subject=_as_speaker(cand.subject, speaker)))
        clause_named = referents.parties(facts, reading.subject, clause)
        in_sentence = referents.merge(in_sentence, clause_named)  # "My sister Amy and my friend Bob…": two
        person = referents.after(person, clause_named if in_sentence is not None else None)
        named_here = referents.merge(named_here, clause_named)
        previous = previous if named is not None else facts or previous
        said = clause.text
        named = [f.subject for f in facts if f.subject and f.subject in clause.text]
        entity = named[-1] if named else leading_entity(clause.work, clause.lang)
        if entity:
            topic, topic_start = entity, clause.start
    return out, named_here


def _pronoun(clause: Clause, subject: Subject | None, person: str | None) -> Subject | None:
    """The clause's subject when a third-person pronoun opens it (its referent, or none), else None."""
    if subject is not None and subject.pronoun:
        return subject
    if (subject is not None and subject.name is not None) or not _MAYBE_PRONOUN.search(clause.work, 0, 40):
        return None
    lead = (resolve_zh if clause.lang == "zh" else resolve_en)(clause.work, person)
    return lead if lead is not None and lead.pronoun else None



def _unplaceholder(out: list[CandidateClaim], target: Fact | None, names: Sequence[Fact],
                   registry: SlotRegistry) -> list[CandidateClaim]:
    """Without the claim a name replaces in a single-valued slot: "I'm seeing someone new, her name
    is Jordan" and "对象是高中同学，叫陈晨" say one partner, by name (not also ``someone``)."""
    if target is None or registry.cardinality(target.predicate) is not Cardinality.SINGLE \
            or not any(f.predicate == target.predicate and f.value != target.value for f in names):
        return out
    return [c for c in out if not (c.predicate == target.predicate and c.value == target.value.strip()
                                   and c.subject == (target.subject or c.subject))]


def _owners(facts: Sequence[Fact]) -> dict[str, str | None]:
    """The named pets these facts give someone (``owns · 橘猫（年糕）`` → 年糕: its owner's subject)."""
    out: dict[str, str | None] = {}
    for f in facts:
        if f.predicate == "owns" and f.polarity and f.value.endswith(("）", ")")):
            name = f.value.rstrip("）)").rsplit("（" if "（" in f.value else "(", 1)[-1].strip()
            if name:
                out[name] = f.subject
    return out


def speaker_of(role: str) -> str | None:
    """Whose first person an event's text is: ``""`` the user's, a participant's name (any role
    that is neither the user's nor in :data:`~hlmem.domain.provenance.NON_USER_ROLES`, as written),
    or None for a role that speaks for no one (assistant, tool, system…)."""
    folded = role.strip().lower()
    if folded in USER_ROLES:
        return ""
    if not folded or folded in NON_USER_ROLES:
        return None
    return " ".join(role.split())


def _as_speaker(subject: str, speaker: str) -> str:
    """A subject written from the user (用户, user's sister) rewritten from a named speaker."""
    if subject in SPEAKER.values():
        return speaker
    for prefix, joint in (("用户的", "的"), ("user's ", "'s ")):
        if subject.startswith(prefix):
            return f"{speaker}{joint}{subject[len(prefix):]}"
    return subject


def _guarded(fact: Fact, clause: Clause, tagger: Tagger | None) -> bool:
    """The precision guard on a pattern's fact: a value that does not fit its slot is dropped."""
    return value_ok(fact.predicate, fact.value.strip(), clause.lang, tagger)


def _dated_plan(clause: Clause, module: object, anchor: datetime) -> list[Fact]:
    """A clause with no other reading that is dated in the future is a plan (下周三开会)."""
    if clause.time is None:
        return []
    period = resolve(clause.time.text, anchor, prefer="future")
    if period is None or period[1] <= anchor:
        return []
    value = module.plan_value(clause)  # type: ignore[attr-defined]
    if value and period[0] <= anchor and not (_SCHEDULED.search(value) and _LATER_TODAY.search(clause.text)):
        return []  # 今天北京的天气好闷, 今天加班到十点: a remark about today, not something planned for it
    return [Fact(predicate="plan", value=value, plan=True, cardinality=Cardinality.MULTI,
                 rule=f"{clause.lang}.dated_plan")] if value else []


def _validity(fact: Fact, clause: Clause, anchor: datetime) -> tuple[datetime, datetime | None, bool] | None:
    """``(valid_from, valid_to, is_plan)``, or None when the time says the fact is not a current one."""
    mention = clause.time
    if mention is None or (fact.span and fact.span[0] <= mention.start < fact.span[1]):
        return anchor, None, fact.plan
    if fact.predicate in ("habit", "hobby") and fact.polarity and _USUALLY.search(clause.text):
        return anchor, None, False  # 周末一般去钓鱼, "weekends I usually climb": the time is how often, not when
    if fact.span and mention.start >= fact.span[1] and _LATER_CLAUSE.search(clause.text, fact.span[1], mention.start):
        return anchor, None, fact.plan  # "I'm a charge nurse, so this week is nights until Sunday": another clause's time
    prefer = "future" if fact.plan or clause.planned else "nearest_past"
    period = resolve(mention.text, anchor, prefer=prefer)
    if period is None:
        return anchor, None, fact.plan
    start, end = period
    if clause.time_relation == "before":
        return (anchor, start, True) if fact.plan and start > anchor else None
    if fact.plan or start > anchor:
        return start, end, True
    if start <= anchor < end and not fact.change:
        # 今年三岁了: the statement's own period says when, not since when; 这周在上海出差 ends with it
        return anchor, end if fact.scope is Scope.TEMPORAL or clause.temporary else None, False
    if fact.change or clause.time_relation == "since" or end > anchor or end - start <= timedelta(days=1):
        return start, None, False  # from then on (a late record of a day: the domain closes it at the next claim)
    return start, end, False  # a state pinned to a past week, month or year held during it


def _one_day(clause: Clause, anchor: datetime) -> bool:
    """Whether the clause is dated to a single day (今天, tomorrow, 周三)."""
    if clause.time is None:
        return False
    period = resolve(clause.time.text, anchor, prefer="nearest_past")
    return period is not None and period[1] - period[0] <= timedelta(days=1)


def _candidate(fact: Fact, clause: Clause, event: SourceEvent) -> CandidateClaim | None:
    if not fact.value.strip():
        return None
    validity = _validity(fact, clause, event.occurred_at)
    if validity is None:
        return None
    valid_from, valid_to, is_plan = validity
    if not fact.polarity and fact.predicate == "habit" and _one_day(clause, event.occurred_at):
        return None  # 今天不上课了: a day off, not a habit that ended
    # "我上个月搬到了苏州" said today holds from last month and is the speaker's latest word: it
    # supersedes what was said before it, even after last month (ADR 0059). Configuration records
    # (a version rolled back on a past day) stay late records that land between known claims.
    change = not is_plan and bool(fact.holds_now or (fact.change and fact.predicate not in _RECORDS)
                              or (fact.predicate in _REPLACEABLE and fact.polarity and _NOW.search(clause.text) is not None)
                              or (clause.lang == "zh" and fact.predicate not in _RECORDS and _NEW_STATE.search(clause.text)))
    if is_plan and not fact.plan:
        value = (patterns_zh if clause.lang == "zh" else patterns_en).plan_value(clause)
        if not value or not clause.by_user:
            return None
        fact = Fact(predicate="plan", value=value, plan=True, cardinality=Cardinality.MULTI, rule=f"{clause.lang}.plan")
    subject = fact.subject or SPEAKER[clause.lang]
    qualifiers = (("temporary", clause.temporary),) if clause.temporary and not fact.plan else ()
    qualifiers = (*qualifiers, *fact.qualifiers)
    return CandidateClaim(
        subject=subject, predicate=fact.predicate, value=fact.value.strip(), qualifiers=qualifiers,
        coordinates=fact.coordinates, polarity=fact.polarity, importance=fact.importance,
        scope=fact.scope or scope_for(clause.temporary, fact.predicate, fact.plan),
        cardinality=fact.cardinality, valid_from=valid_from, valid_to=valid_to,
        evidence_quote=_quote(fact, clause, event.text),
        evidence=(event.event_id,), extractor=EXTRACTOR, rule=fact.rule, change=change,
    )


def _quote(fact: Fact, clause: Clause, text: str) -> str:
    """The clause, reaching back to the clause that named the subject when this one leaves it out."""
    start = clause.start
    if fact.subject and fact.subject not in clause.text and clause.topic_start is not None:
        start = clause.topic_start
    return text[start:clause.start + len(clause.text)]
