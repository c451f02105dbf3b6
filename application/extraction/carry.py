"""What a clause adds to the clause before it: names ("我养了一只猫，叫咪咪", "two cats, Miso and
Tofu") and amounts ("涨工资了，现在一个月一万八", "they raised the rent, it's $1,650 now").

A clause that is only a name, or a list of names, names what the clause before it introduced in
the same sentence: a pet (``owns · cat (Miso)``) or kin the user has (``child · Emma``). "老大叫
乐乐，老二叫安安" after "我有两个孩子" names the children one by one. A single name becomes the
subject of the clauses after it ("我养了一只猫，叫咪咪，今年两岁" → 咪咪 · age). A clause that is
only an amount takes its quantity from the clause before it, when that one names it (工资, rent).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from attrs import evolve

from hlmem.application.extraction.clauses import Clause, Fact
from hlmem.application.extraction.lexicon import NUM_EN, NUM_ZH, PET_SUFFIX_ZH, PETS_EN, PETS_ZH, QUANTITY_EN, QUANTITY_ZH
from hlmem.application.extraction.patterns_common import person_like
from hlmem.application.extraction.personal import Reading
from hlmem.application.extraction.subjects import REL_ALL_EN, REL_ALL_ZH, Subject

_NAME_EN = r"[A-Z][a-z'\-]+"
_LIST_EN = re.compile(rf"^\s*(?:(?:called|named|both\s+named)\s+)?(?P<names>{_NAME_EN}(?:\s*(?:,|and|&)\s*(?:and\s+)?{_NAME_EN})*)"
                      rf"\s*[.!]*\s*$")
_ITS_NAME_EN = re.compile(rf"^\s*(?:(?:his|her|its|their)\s+names?(?:\s+(?:is|are)|'s)|(?:he|she|it)(?:'s|\s+is)\s+(?:called|named))"
                          rf"\s+(?P<names>{_NAME_EN}(?:\s*(?:,|and|&)\s*(?:and\s+)?{_NAME_EN})*)\s*[.!]*\s*$", re.I)
_ZH_NAME = r"[\u4e00-\u9fffA-Za-z]{1,5}?"
_LIST_ZH = re.compile(rf"^\s*(?:就|我们|我)?(?:它|他|她|它们|他们|她们)?\s*(?:分别)?(?:叫它|给它取名叫?|叫做?|名叫|名字叫|取名叫?|的名字是)\s*"
                      rf"(?P<names>{_ZH_NAME}(?:\s*(?:和|跟|、)\s*{_ZH_NAME})*)\s*(?:了|呢|哦|啊)?\s*$")
_ONE_OF_ZH = re.compile(rf"^\s*(?:老大|老二|老三|老小|老幺|大的|小的|一个|另一个|其中一个|一只|另一只|一条|另一条|大儿子|小儿子|"
                        rf"大女儿|小女儿|儿子|女儿|哥哥|弟弟|姐姐|妹妹)"
                        rf"\s*(?:是个?(?:儿子|女儿|男孩|女孩)\s*[，,]?\s*)?(?:叫做?|名叫)\s*"
                        rf"(?P<names>{_ZH_NAME}(?:\s*[，,]?\s*(?:另)?一[只个条]\s*叫做?\s*{_ZH_NAME})?)\s*(?:了|呢)?\s*$")
#: A value that is a kin phrase ("two kids", "孩子"), not yet a name.
_KIN_PHRASE = re.compile(rf"(?:{REL_ALL_ZH})|\b(?i:{REL_ALL_EN})s?$|^(?:someone|somebody)(?:\s+new)?$")
_SPLIT = re.compile(r"\s*(?:,|\band\b|\bor\b|&|和|跟|、|还有|[，,]?\s*(?:另)?一[只个条]\s*叫做?)\s*")
_PET_WORDS_EN = frozenset(PETS_EN) - {"pet", "pets"}
_PET_ZH = re.compile(rf"(?:{'|'.join(sorted(PETS_ZH, key=len, reverse=True))}|{PET_SUFFIX_ZH})$")
_KIN_PREDICATES = frozenset({"child", "sibling", "cousin", "grandchild", "niece", "nephew", "friend", "colleague",
                             "roommate", "neighbor", "classmate", "partner"})


#: A bare list of things continuing a listed value: "…allergic to cats, dust and penicillin".
_ITEMS_EN = re.compile(r"^\s*(?:and\s+|or\s+)?(?P<names>[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?(?:\s*(?:,|and|or)\s*[a-z][\w\-]*"
                       r"(?:\s+[a-z][\w\-]*)?)*)\s*[.!]*\s*$")
_ITEMS_ZH = re.compile(r"^\s*(?:还有(?!点|些|一点)|以及|和|跟)?\s*(?P<names>[\u4e00-\u9fff]{1,6}(?:\s*(?:、|和|跟|还有)\s*[\u4e00-\u9fff]{1,6})*)\s*(?:也是|都是)?\s*$")
_JOINED = re.compile(r"^\s*(?:and|or|还有(?!点|些|一点)|以及|和|跟)\b|\s(?:and|or)\s|、|和|跟|还有(?!点|些|一点)", re.I)
#: "…, and some Spanish from school": one more language after a list of them.
_MORE_LANG_EN = re.compile(r"^\s*(?:and|or|plus)\s+(?:(?:a\s+little(?:\s+bit\s+of)?|a\s+bit\s+of|some|basic|broken|conversational|"
                           r"decent|fluent|passable)\s+)?(?P<v>(?-i:[A-Z][a-z]+))(?:\s+(?:from|at|with|too|as\s+well|because|since|"
                           r"when|but)\b[^.!?]*)?\s*[.!]*\s*$", re.I)
_ITEM_SLOTS = frozenset({"allergy", "speaks", "health_condition"})
_VERBISH = re.compile(r"\b(?:is|are|was|am|be|have|has|had|do|does|did|go|get|got|like|love|want|need|think|feel|make|"
                      r"take|see|said|says)\b|[是有在要会想说去做了吗呢吧]", re.I)


def items_after(clause: Clause, previous: Sequence[Fact]) -> Reading | None:
    """More items of a listed slot after a comma ("allergic to cats, dust and penicillin"; "I speak
    Tagalog and English, and some Spanish from school")."""
    if not previous or previous[-1].predicate not in _ITEM_SLOTS:
        return None
    if previous[-1].predicate == "speaks" and clause.lang == "en" and (more := _MORE_LANG_EN.match(clause.work)):
        return Reading([evolve(previous[-1], value=more["v"], span=more.span("v"))])
    m = (_ITEMS_EN if clause.lang == "en" else _ITEMS_ZH).match(clause.work)
    if m is None or _VERBISH.search(m["names"]) or not _JOINED.search(clause.work):
        return None  # "…过敏，春天特别难受" goes on about it; only a list ("cats, dust and pollen") adds items
    target = previous[-1]
    names = [n for n in _SPLIT.split(clause.text[m.start("names"):m.end("names")]) if n and n not in ("and", "or")]
    return Reading([evolve(target, value=n.strip(), span=m.span("names"), rule=target.rule) for n in names])


def names_after(clause: Clause, previous: Sequence[Fact]) -> Reading | None:
    """Facts naming what ``previous`` (the last clause's facts, same sentence) introduced, or None."""
    if not previous:
        return None
    if clause.lang == "en":
        m = _LIST_EN.match(clause.work) or _ITS_NAME_EN.match(clause.work)
    else:
        m = _LIST_ZH.match(clause.work) or _ONE_OF_ZH.match(clause.work)
    if m is None:
        return None
    names = [n for n in _SPLIT.split(clause.text[m.start("names"):m.end("names")]) if n and n != "and"]
    if not names or (clause.lang == "en" and not all(person_like(n) for n in names)):
        return None
    target = previous[-1]
    facts: list[Fact] = []
    if target.predicate == "owns" and (_is_pet(target.value, clause.lang) or "pet" in target.rule) and not _named(target.value):
        pet = _singular(target.value) if clause.lang == "en" else target.value
        facts = [evolve(target, value=f"{pet} ({n})" if clause.lang == "en" else f"{pet}（{n}）", span=m.span("names"),
                        rule=f"{clause.lang}.pet_names") for n in names]
    elif target.predicate in _KIN_PREDICATES and _KIN_PHRASE.search(target.value):
        facts = [evolve(target, value=n, polarity=True, span=m.span("names"), rule=f"{clause.lang}.kin_names")
                 for n in names]
    if not facts:
        return None
    return Reading(facts, Subject(names[0], m.end()) if len(names) == 1 else None)


def _is_pet(value: str, lang: str) -> bool:
    if lang == "en":
        return value.lower().split()[-1] in _PET_WORDS_EN or value.lower() in _PET_WORDS_EN
    return _PET_ZH.search(value) is not None


def _named(value: str) -> bool:
    return value.endswith((")", "）"))


def _singular(word: str) -> str:
    w = word.strip()
    if w.lower().endswith("ies"):
        return w[:-3] + "y"
    if w.lower().endswith(("ches", "shes", "xes")):
        return w[:-2]
    return w[:-1] if w.endswith("s") and not w.endswith("ss") else w


_KEY_ZH = re.compile("|".join(sorted(QUANTITY_ZH, key=len, reverse=True)))
_KEY_EN = re.compile(rf"\b(?:{'|'.join(sorted(QUANTITY_EN, key=len, reverse=True))})\b", re.I)
_AMOUNT_ZH = re.compile(rf"^\s*(?:现在|目前|已经|每个?月|一个月|是|涨到了?|涨到|降到了?|变成了?|到了?|有)*\s*"
                        rf"(?P<v>{NUM_ZH}\s*(?:元|块钱|块|万元|万|千|k|K)?(?:左右|多)?)\s*(?:一个月|每月|一年)?\s*(?:了|啦)?\s*$")
_AMOUNT_EN = re.compile(rf"^\s*(?:and\s+|so\s+)?(?:it'?s|it\s+is|it\s+went\s+up\s+to|now\s+it'?s|that'?s)\s+(?:now\s+)?"
                        rf"(?P<v>{NUM_EN})(?:\s+(?:a|per)\s+(?:month|year|week))?(?:\s+now)?\s*[.!]*\s*$", re.I)


#: A clause about losing or gaining weight: the bare amount after it is the new weight.
_WEIGHT_ZH = re.compile(r"[瘦胖]了|减肥|减重|掉了[\d一二三四五六七八九十两几]+斤|长了[\d一二三四五六七八九十两几]+斤")
_RENTED_ZH = re.compile(r"租了|租的|租个|合租|整租")
_WEIGHT_EN = re.compile(r"\b(?:lost|gained|dropped|put\s+on)\s+(?:\d+|\w+)\s+(?:pounds|lbs?|kilos?|kg)\b", re.I)


def amount_after(clause: Clause, before: str, *, weight_only: bool = False) -> Reading | None:
    """A bare amount after a clause that names a quantity: the quantity's new value (a change).

    :param weight_only: ``before`` ends the sentence before: only a weight carries over.
    """
    if not before:
        return None
    key = None if weight_only else (_KEY_ZH if clause.lang == "zh" else _KEY_EN).search(before)
    m = (_AMOUNT_ZH if clause.lang == "zh" else _AMOUNT_EN).match(clause.work)
    if m is None:
        return None
    if key is None:  # "一个月瘦了十斤，现在一百三了", "lost 12 pounds, I'm 184 now": a weight
        if (_WEIGHT_ZH if clause.lang == "zh" else _WEIGHT_EN).search(before):
            predicate = "weight"
        elif not weight_only and clause.lang == "zh" and _RENTED_ZH.search(before):
            predicate = "rent"  # "我自己租了个开间，一个月3200": what the place rents for
        else:
            return None
    else:
        table = QUANTITY_ZH if clause.lang == "zh" else QUANTITY_EN
        predicate = table[key.group().lower()]
    value = " ".join(clause.text[m.start("v"):m.end("v")].split())
    return Reading([Fact(predicate=predicate, value=value, span=m.span("v"), change=True, holds_now=True,
                         rule=f"{clause.lang}.amount_after")])
