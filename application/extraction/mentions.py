"""Relations named in passing: "…same as my sister Nina's", "我那个室友小周啊", "我们老板叫王建国".

Wherever a user's clause says "my <relation> <Name>" (我的<关系><名字>), it states the relation
(``user · sibling · Nina``), whatever else the clause is about. The subject phrase of a clause
already yields this when it opens the clause (``en.kin_apposition``); this reads the rest.
"""

from __future__ import annotations

import re

from hlmem.application.extraction.clauses import Clause, Fact
from hlmem.application.extraction.patterns_common import person_like
from hlmem.application.extraction.subjects import REL_ALL_EN, REL_ALL_ZH, SURNAMES, relation_of

_EN = re.compile(rf"\b(?:[Mm]y|[Oo]ur)\s+(?:(?:best|oldest|youngest|older|younger|little|big|baby|twin|step|new|old)\s+)?(?P<rel>(?i:{REL_ALL_EN}))"
                 rf"\s*,?\s+(?:(?:Mr|Mrs|Ms|Dr|Miss|Aunt|Uncle|Auntie|Grandma|Grandpa)\.?\s+)?(?P<name>[A-Z][a-z'\-]+(?:\s+[A-Z][a-z'\-]+)?)"
                 rf"(?!['’]s\s+(?:house|place|car|dog|cat))")
_ZH_NAME = rf"(?:[{SURNAMES}][\u4e00-\u9fff]{{1,2}}|[老小][{SURNAMES}])"
_ZH = re.compile(rf"我(?:们)?(?:的|那个|这个|家|家的)?(?P<rel>{REL_ALL_ZH})(?:(?:叫做?|名叫|是)\s*)?(?P<name>{_ZH_NAME})"
                 rf"(?=$|[\s，,。啊呀呢吧的是在跟和就他她也都还]|(?:人|今年|住|说|每))")
#: "my Pixel 6", "my Galaxy S21 Ultra": a device named by its model is one the speaker has.
_DEVICE_EN = re.compile(r"\b(?:[Mm]y|[Oo]ur)\s+(?:(?:old|new|trusty|ancient|current)\s+)?(?P<name>(?!(?:Python|Windows|Node|Java|Ubuntu|"
                        r"Fedora|Debian|Android|PHP|Ruby|Go|Rust|Swift|Office|Excel|Photoshop)\b)(?:i[A-Z]|[A-Z])[a-zA-Z]+"
                        r"(?:\s+[A-Z][a-z]+)?\s+[A-Z]{0,2}\d{1,4}[a-z]?(?:\s+(?:Pro|Max|Plus|Ultra|Mini|Air|Lite|XL))?)\b")
_NOT_NAME_EN = re.compile(r"^(?:Is|Was|And|But|So|Has|Had|The|This|That|Who|Which|When|Just|Also|Still|Lives|Works)$")


def relations(clause: Clause) -> list[Fact]:
    """Relation facts (the user's) for every "my <relation> <Name>" in the clause."""
    regex = _EN if clause.lang == "en" else _ZH
    out: list[Fact] = []
    for m in regex.finditer(clause.work):
        name = re.sub(r"['’]s$", "", clause.text[m.start("name"):m.end("name")].strip())
        if clause.lang == "en":
            first = name.split()[0]
            if _NOT_NAME_EN.match(first):
                continue
            if len(name.split()) == 2 and _NOT_NAME_EN.match(name.split()[1]):
                name = first
        if not person_like(name):
            continue
        predicate = relation_of(m["rel"])
        if predicate is None or predicate in ("child", "sibling") and name.lower() in ("kids", "children"):
            continue
        out.append(Fact(predicate=predicate, value=name, span=m.span("name"), rule=f"{clause.lang}.kin_mention",
                        cardinality=None, importance=0.6))
    return out


#: "my apartment in Fishtown", "the flat in Hackney": where the speaker lives, said in passing.
_HOME_EN = re.compile(r"\b(?:[Mm]y|[Oo]ur|[Tt]he)\s+(?:(?:new|old|little|tiny|rented)\s+)?(?:apartment|flat|studio|condo|place)\s+(?:in|on)\s+"
                      r"(?P<name>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)(?!['’]s)\b(?!\s+(?:Street|St|Avenue|Ave|Road|Rd)\b)")


#: "Kevin from my team", "Ana from work": a colleague named in passing.
_TEAMMATE_EN = re.compile(r"\b(?P<name>[A-Z][a-z]+)\s+from\s+(?:my|our)?\s*(?:team|office|work|department|dept|lab|squad|shift|unit)\b")


def teammates(clause: Clause) -> list[Fact]:
    """``colleague`` facts (the user's) for "<Name> from my team / work" in an English clause."""
    if clause.lang != "en" or not clause.by_user:
        return []
    return [Fact(predicate="colleague", value=m["name"], span=m.span("name"), rule="en.teammate_mention", importance=0.5)
            for m in _TEAMMATE_EN.finditer(clause.work) if not _NOT_NAME_EN.match(m["name"]) and person_like(m["name"])]


def homes(clause: Clause) -> list[Fact]:
    """``lives_in`` facts (the user's) for "my apartment in X" in an English clause."""
    if clause.lang != "en" or not clause.by_user:
        return []
    return [Fact(predicate="lives_in", value=m["name"], span=m.span("name"), rule="en.home_mention", importance=0.5)
            for m in _HOME_EN.finditer(clause.work)]


#: 我这个 iPhone 13, 我的红米K60: a phone or computer by its model, the speaker's.
_DEVICE_ZH = re.compile(r"我(?:这个|的|这台|这部|那个|那台)?\s*(?P<name>(?:iPhone|iPad|MacBook|华为|小米|红米|OPPO|vivo|荣耀|三星|Pixel|一加|魅族|ThinkPad)"
                        r"\s*(?:Mate|Pro|Max|Note|Find|Reno|Galaxy|P|K|X|S|Air|Nova|nova)?\s*\d{1,3}[A-Za-z]*(?:\s*(?:Pro|Max|Plus|Ultra|mini|Air))?)")


def devices(clause: Clause) -> list[Fact]:
    """``owns`` facts (the user's) for every "my <device model>" in a clause ("my Pixel 6 is acting up", 我这个iPhone 13)."""
    if clause.lang == "zh":
        return [Fact(predicate="owns", value=m["name"], span=m.span("name"), rule="zh.device_mention", importance=0.5)
                for m in _DEVICE_ZH.finditer(clause.work)]
    if clause.lang != "en":
        return []
    return [Fact(predicate="owns", value=m["name"], span=m.span("name"), rule="en.device_mention", importance=0.5)
            for m in _DEVICE_EN.finditer(clause.work)]
