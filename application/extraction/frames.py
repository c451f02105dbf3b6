"""Frames: the rule extractor's table-driven rules for personal facts, and the engine that runs them.

A frame rule reads the *rest* of a clause, after its subject (:mod:`.subjects`), and names one
slot. Its regular expression has a value group ``v``, and may have ``neg`` (the statement is
negated), ``old`` ("switched from A to B": A is retired too), ``k`` (a key word naming the
predicate: 身高 → ``height``), ``kin`` (a kin word naming a relation), ``n`` (a pet's name) and
``job`` (a job title stated with the employer).
Each rule carries its name, what it matches and an example; docs/extraction.md lists them all
(generated from these tables, kept equal by a test, and every example must fire its own rule).

The value is the original words of ``v`` (times included), cleaned of quantifiers, articles and
particles, then checked by the slot's precision guard (:mod:`.guard`): a value that does not look
like what the slot holds is dropped, so it can never supersede a good one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from attrs import evolve, field, frozen

from hlmem.application.extraction import coordination
from hlmem.application.extraction.clauses import Fact
from hlmem.application.extraction.guard import Tagger, value_ok
from hlmem.application.extraction.lexicon import KIN_CANON, ORG_ZH
from hlmem.application.extraction.prefilter import Index
from hlmem.application.extraction.patterns_common import ABSTRACT_KEYS, CONFIG_KEYS, ORG_RE, label_index
from hlmem.application.extraction.subjects import relation_of
from hlmem.domain.events import Cardinality, Scope
from hlmem.domain.slots import SlotRegistry, normalize_key

_M, _S = Cardinality.MULTI, Cardinality.SINGLE
_ORG_ZH = re.compile(ORG_ZH)
_ORG_IN_ZH = re.compile(r"公司|集团|企业|银行|医院|学校|大学|学院|研究所|研究院|事务所|工厂|[^\s]厂$|超市|酒店|餐厅|中心")
#: English employers: a capitalised name (Stripe, the City Council) — places are told apart by the guard.
EN_ORG = re.compile(r"^(?:the\s+)?[A-Z][\w&.\-]*(?:\s+[A-Z][\w&.\-]*){0,3}$|\b(?:council|bank|university|hospital|school|"
                    r"company|firm|agency|startup|ministry|department)$", re.I)


@frozen(kw_only=True)
class Rule:
    """One frame rule (see the module docstring)."""

    name: str
    lang: str
    slot: str  # a predicate, or "@k" / "@kin": the key or kin group names it
    what: str
    example: str
    regex: re.Pattern[str]
    polarity: bool = True
    change: bool = False
    hedged: bool = False  # may fire in a hedged clause (大概, 好像, about): adds confidence=hedged
    reported: bool = False  # may fire in an authority's report about the user (医生说我…)
    keys: Mapping[str, str] = field(factory=dict)
    on_text: bool = False  # match the clause text (time words kept), not the time-masked work
    cardinality: Cardinality | None = None
    scope: Scope | None = None
    importance: float = 0.6
    clean: Callable[[str], str] | None = None
    third_party: bool = False  # only about someone else (其教育背景是博士), never the speaker
    opening: bool = False  # reads the clause from its start ("My rent is…", "预算大概两万"): the subject is in it
    to_user: bool = False  # the fact is the user's: "my cousin is called Marco" → user · cousin · Marco
    also: tuple[str, ...] = ()  # the same value and polarity in these slots too (戒了奶茶: habit and diet)
    also_not: tuple[str, ...] = ()  # the same value, negated, in these slots ("I can't stand X": dislikes, not likes)
    check: str | None = None  # the slot whose value shape the guard checks (default: the rule's own)
    when: re.Pattern[str] | None = None  # the clause must also say this (I'm in Denver *now*)
    speaker: bool = False  # the fact is the speaker's whatever opens the clause ("Notion runs my whole life")
    place_slot: str = "works_in"  # the slot of the ``place`` group (在通州买了套房: lives_in)
    org_slot: str | None = None  # the slot of the ``org`` group when the frame says what it is (drive *for* Uber: employer)


def rx(pattern: str) -> re.Pattern[str]:
    """Compile a frame pattern (case-insensitive keywords)."""
    return re.compile(pattern, re.I)


_ZH_TRIM_HEAD = re.compile(r"^(?:一只|一条|一辆|一台|一部|一套|一个|一位|一名|一头|一匹|一把|一块|一家|"
                           r"一些|新的|新|这|那|了|个|只|条|辆|台|部|套|的|是|有)+")
#: Places keep a leading 新 (新西兰, 新加坡, 新乡): only quantifiers and particles go.
_ZH_TRIM_HEAD_PLACE = re.compile(r"^(?:一个|一座|一家|一所|一间|这家|那家|这|那|了|的|是|在)+")
#: Slots whose values are places.
PLACE_SLOTS = frozenset({"lives_in", "works_in", "hometown", "@where", "neighborhood", "visited", "education"})
_ZH_TRIM_TAIL = re.compile(r"(?:了|啦|呢|吧|哦|呀|啊|的|而已|罢了|哈哈+|嘿嘿)+$")
#: A place said loosely: 番禺那边, 老家沈阳 (the place is 番禺, 沈阳).
_ZH_PLACE_LOOSE = re.compile(r"^老家(?=[\u4e00-\u9fff]{2})|(?<=[\u4e00-\u9fff]{2})(?:那边|这边|那块|那一带|一带|附近|周边)$")
_EN_TRIM_HEAD = re.compile(r"^(?:(?i:a|an|the|some|any|my|our|brand\s+new|both)\s+|new\s+(?=[a-z]))")  # New York stays
_EN_TRIM_TAIL = re.compile(r"\s+(?:anymore|any\s+more|now|too|as\s+well|these\s+days|nowadays|lately|again|already|"
                           r"at\s+the\s+moment|right\s+now|for\s+now|haha|lol)$", re.I)


def clean_value(value: str, lang: str, *, place: bool = False) -> str:
    """The value without leading quantifiers or articles and trailing particles, one space apart
    (``place``: a place name, whose leading 新 is part of it)."""
    value = " ".join(value.split()).strip(" ，,。.!！~～")
    head = _ZH_TRIM_HEAD_PLACE if place else _ZH_TRIM_HEAD
    for _ in range(3):
        if lang == "zh":
            value = _ZH_TRIM_TAIL.sub("", head.sub("", value)).strip()
            value = _ZH_PLACE_LOOSE.sub("", value) if place else value
        else:
            value = _EN_TRIM_TAIL.sub("", _EN_TRIM_HEAD.sub("", value)).strip(" ,.")
    return value


def _predicate(rule: Rule, m: re.Match[str], value: str, kin: str | None, registry: SlotRegistry) -> str | None:
    if rule.slot == "@k":
        return rule.keys.get(" ".join(m["k"].lower().split()))
    if rule.slot == "@kin":
        word = m.groupdict().get("kin") or kin
        return relation_of(word.strip()) if word else None
    if rule.slot == "@attr":
        labels = label_index(registry)
        key = m["k"].strip()
        if key.lower() in CONFIG_KEYS | ABSTRACT_KEYS:
            return None
        return labels.get(normalize_key(key)) or registry.canonical(normalize_key(key))
    if rule.slot == "@where":
        if rule.lang == "en" and m.groupdict().get("prep", "").lower() == "in":
            return "works_in"
        if rule.lang == "en" and m.groupdict().get("prep", "").lower() in ("at", "for") and value[:1].isupper():
            return "employer"  # "I work at the Trader Joe's on Hawthorne": an employer by its name
        if rule.lang == "zh" and _ORG_IN_ZH.search(value):
            return "employer"  # 医院药房: a place of work named by its organisation
        return "employer" if ORG_RE.search(value) or EN_ORG.search(value) else "works_in"
    return rule.slot


#: Each rule table's required words (:class:`.prefilter.Index`), built on first use.
_INDEX: dict[int, tuple[object, Index]] = {}


def _index(rules: Sequence[Rule]) -> Index:
    found = _INDEX.get(id(rules))
    if found is None or found[0] is not rules:
        found = _INDEX[id(rules)] = (rules, Index(rules))
    return found[1]


def _value(rule: Rule, raw: str) -> str:
    value = clean_value(raw, rule.lang, place=rule.slot in PLACE_SLOTS)
    return rule.clean(value) if rule.clean is not None and value else value


def _listed(rule: Rule, fact: Fact, m: re.Match[str], text: str, tagger: Tagger | None) -> list[Fact]:
    """The other items of a listed value (:mod:`.coordination`), each a fact like ``fact``."""
    spans = coordination.split(text, *m.span("v"))
    out = []
    for a, b in spans:
        value = _value(rule, text[a:b])
        if value and value_ok(rule.check or fact.predicate, value, rule.lang, tagger):
            out.append(evolve(fact, value=value, span=(a, b)))
    return out


def _where(value: str, lang: str, tagger: Tagger | None) -> str | None:
    """``employer`` for an organisation (Stripe, 一家广告公司), ``works_in`` for a place, else None."""
    if ORG_RE.search(value) or (lang == "en" and EN_ORG.search(value)) or (lang == "zh" and _ORG_ZH.fullmatch(value)):
        return "employer" if value_ok("employer", value, lang, tagger) else None
    return "works_in" if value_ok("works_in", value, lang, tagger) else None


def run(rules: Sequence[Rule], text: str, work: str, start: int, *, subject: str | None, kin: str | None = None,
        registry: SlotRegistry, hedged: bool = False, reported: bool = False,
        unnamed: bool = False, tagger: Tagger | None = None, text_start: int | None = None) -> list[Fact]:
    """Facts of the first rule that matches the rest of a clause (``text[start:]``), guard passed;
    then, when "and …" follows the value, what the rules read from the clause with that value cut
    out ("We've got three kids and a golden retriever" → the kids, then the dog).
    """
    kw = dict(subject=subject, kin=kin, registry=registry, hedged=hedged, reported=reported, unnamed=unnamed,
              tagger=tagger, text_start=text_start)
    facts, end = _run_once(rules, text, work, start, **kw)  # type: ignore[arg-type]
    for _ in range(2):
        if not facts or end is None or rules[0].lang != "en":
            break
        cut = coordination.cut(work, facts[0].span[0] if facts[0].span else end, end)
        if cut is None:
            break
        head, resume = cut
        shift = resume - head
        more, more_end = _run_once(rules, text[:head] + text[resume:], work[:head] + work[resume:],
                                   start, **kw)  # type: ignore[arg-type]
        known = {(f.predicate, f.value) for f in facts}
        new = [evolve(f, span=(f.span[0] + shift, f.span[1] + shift)) if f.span and f.span[0] >= head else f
               for f in more if (f.predicate, f.value) not in known]
        if not new:
            break
        facts = [*facts, *new]
        end = more_end + shift if more_end is not None else None
    return facts


def _run_once(rules: Sequence[Rule], text: str, work: str, start: int, *, subject: str | None, kin: str | None = None,
              registry: SlotRegistry, hedged: bool = False, reported: bool = False,
              unnamed: bool = False, tagger: Tagger | None = None,
              text_start: int | None = None) -> tuple[list[Fact], int | None]:
    """The facts of the first rule that matches (guard passed), and where its value ends.

    :param hedged: the clause is hedged: only rules marked ``hedged`` may fire.
    :param reported: the clause is an authority's report about the user: only ``reported`` rules.
    :param kin: the kin word of a kin subject (表哥 of 我表哥), which ``@kin`` rules name.
    :param tagger: a Chinese part-of-speech tagger for the precision guard (None: lexical checks).
    :param text_start: where ``on_text`` rules start (before masked words the subject's blanks hide).
    :param unnamed: the clause names no subject (the user's, by the caller): in English only
        ``opening`` rules may read it, in Chinese (which drops subjects) every rule but the
        attribute and job rules.
    """
    index = _index(rules)
    present = index.present(text.lower())
    for rule, needs in zip(rules, index.needs):
        if needs is not None and needs.isdisjoint(present):
            continue  # a word every match contains is missing (prefilter.py)
        if (hedged and not rule.hedged) or (reported and not rule.reported) or (rule.third_party and subject is None):
            continue
        if unnamed and not rule.opening and (rule.lang == "en" or rule.slot == "@attr" or rule.slot == "job_title"):
            continue
        if rule.when is not None and not rule.when.search(text):
            continue
        source = text if rule.on_text else work
        m = rule.regex.match(source, 0 if rule.opening else start if not rule.on_text or text_start is None else text_start)
        if m is None:
            continue
        lang = rule.lang
        vs, ve = m.span("v")
        value = _value(rule, text[vs:ve])
        groups = m.groupdict()
        predicate = _predicate(rule, m, value, kin, registry)
        if predicate is None or (rule.to_user and kin is None):
            continue
        if rule.to_user or rule.speaker:
            subject = None
        if groups.get("okin"):  # 把我爸接到北京来了, "we moved Mom into a place in Mesa": about the one moved
            word = groups["okin"].strip().lower()
            canon = KIN_CANON.get(word, word)
            subject = f"用户的{canon}" if lang == "zh" else f"user's {canon}"
        if groups.get("n"):
            value = f"{value}（{m['n'].strip()}）" if lang == "zh" else f"{value} ({m['n'].strip()})"
        if not value or not value_ok(rule.check or predicate, value, lang, tagger):
            continue
        polarity = rule.polarity and not groups.get("neg")
        card = rule.cardinality or registry.cardinality(predicate)
        qualifiers = (("confidence", "hedged"),) if hedged or groups.get("hedge") else ()
        fact = Fact(predicate=predicate, value=value, subject=subject, polarity=polarity, cardinality=card,
                    scope=rule.scope, importance=rule.importance, change=rule.change, span=(vs, ve),
                    rule=rule.name, qualifiers=qualifiers, holds_now=rule.change, plan=predicate == "plan")
        out = [fact, *_listed(rule, fact, m, text, tagger)] if predicate in coordination.LIST_SLOTS else [fact]
        if groups.get("v2") and (second := _value(rule, text[m.start("v2"):m.end("v2")])):
            out.append(evolve(fact, value=second, span=m.span("v2")))  # 不抽烟不喝酒: two values, one frame
        if len(out) > 1 and coordination.split(text, vs, ve):
            out = out[1:]  # the whole list was the first value: its items replace it
        out = [*out, *(evolve(f, predicate=slot, cardinality=registry.cardinality(slot)) for f in out for slot in rule.also),
               *(evolve(f, predicate=slot, cardinality=registry.cardinality(slot), polarity=not f.polarity)
                 for f in out for slot in rule.also_not)]
        job = clean_value(groups.get("job") or "", lang)
        if job and value_ok("job_title", job, lang):
            js, je = m.span("job")
            out.append(Fact(predicate="job_title", value=job, subject=subject, cardinality=_S, importance=rule.importance,
                            change=rule.change, span=(js, je), rule=rule.name))
        place = clean_value(groups.get("place") or "", lang, place=True)
        if place and value_ok(rule.place_slot, place, lang, tagger):
            out.append(Fact(predicate=rule.place_slot, value=place, subject=subject, cardinality=_S, importance=rule.importance,
                            change=rule.change, span=m.span("place"), rule=rule.name))
        org = clean_value(groups.get("org") or "", lang, place=True)
        if org:
            where = rule.org_slot if rule.org_slot and value_ok(rule.org_slot, org, lang, tagger) else _where(org, lang, tagger)
            if where:
                os_, oe = m.span("org")
                out.append(Fact(predicate=where, value=org, subject=subject, cardinality=_S, importance=rule.importance,
                                change=rule.change, span=(os_, oe), rule=rule.name, polarity=polarity))
        old = clean_value(groups.get("old") or "", lang)
        if old and card is _M and value_ok(predicate, old, lang, tagger) and old.casefold() != value.casefold():
            os_, oe = m.span("old")
            out.append(Fact(predicate=predicate, value=old, subject=subject, polarity=False, cardinality=card,
                            importance=rule.importance, change=True, span=(os_, oe), rule=rule.name))
        return out, ve
    return [], None


def inventory(tables: Sequence[Sequence[Rule]]) -> list[tuple[str, str, str, str, str]]:
    """``(name, language, what it matches, slot, example)`` of every rule, in table order."""
    return [(r.name, r.lang, r.what, r.slot if not r.slot.startswith("@") else "by key word", r.example)
            for table in tables for r in table]
