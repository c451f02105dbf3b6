"""Whom a third-person pronoun stands for (他, 她, 它, 其, 此人, 对方, ta, he, she, they): never the speaker.

A clause opening with a third-person pronoun is about someone else. The rule extractor gives it
to the third party named last **in the same event** (an earlier clause or sentence: "My brother
Tom moved to Tokyo. He works at Sony." → ``Tom · employer · Sony``), else to the one third party
the **earlier events of the same session in the window** named, when they named exactly one
(ADR 0094). With no referent, or with two candidates named side by side ("我哥和我姐都来了，他…",
"my sister Amy and my friend Bob…", two people across the earlier turns), the clause yields no
claim at all — and the clauses that continue it in its sentence none either: the event stays
recallable verbatim, and the user's own facts are never superseded by someone else's.

A pronoun before a kin word (他老婆, 她的同事, "his wife") is someone of someone unnamed: no claim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hlmem.application.extraction.clauses import Clause, Fact
from hlmem.application.extraction.lexicon import KIN_CANON, PETS_EN, PETS_ZH
from hlmem.application.extraction.patterns_common import person_like
from hlmem.application.extraction.personal import RELATION_PREDICATES
from hlmem.application.extraction.subjects import NOT_NAME_EN, REL_ALL_EN, REL_ALL_ZH, Subject

#: Kin the speaker names in a clause ("我哥和我姐", "my sister … my friend"): two make a pronoun ambiguous.
_MY_KIN_ZH = re.compile(rf"(?:我|俺)(?:的)?({REL_ALL_ZH})")
_MY_KIN_EN = re.compile(rf"\b(?:my|our)\s+(?:(?:younger|older|little|big|elder|baby)\s+)?({REL_ALL_EN})\b", re.I)
#: The speaker's family said without "my" (talked to mom, 给儿子买了…): a party when the clause names no other.
_BARE_KIN_ZH = re.compile(r"(儿子|女儿|闺女|老公|老婆|媳妇|爸妈)")
_BARE_KIN_EN = re.compile(r"\b(mom|mum|dad|grandma|grandpa)\b", re.I)
#: Kin of someone else ("his wife", 她老公, 其女儿): another person beside the one named.
_THEIR_KIN = re.compile(rf"\b(?:his|her|their)\s+(?:(?:younger|older|little|big|elder|baby)\s+)?(?:{REL_ALL_EN})\b|"
                        rf"(?:他|她|其|ta|TA)(?:的)?(?:{REL_ALL_ZH})", re.I)
#: Two names side by side ("Tom and Amy", "Tom, Amy"): the clause names two people.
_TWO_NAMES_EN = re.compile(r"\b([A-Z][a-z]+)\s*(?:,|\band\b|&)\s*([A-Z][a-z]+)\b")
_SPEAKERS = frozenset({"用户", "user"})
#: A pronoun's referent named ("Her name's Pixie", 它叫咪咪).
_CALLED = re.compile(r"\b(?i:her|his|its|their)\s+name(?:'s|\s+is)\s+([A-Z][a-z]+)|(?:她|他|它)(?:的名字)?叫([\u4e00-\u9fff]{1,3}?)(?=[，。,.!！\s]|$)")

#: The third parties named, in order; None: several, so a pronoun has no single referent.
Named = tuple[str, ...] | None


def parties(facts: Sequence[Fact], subject: Subject | None, clause: Clause) -> Named:
    """The third parties one clause names, in order, or None when a pronoun after it would be
    ambiguous: the subjects of its facts other than the speaker, the people its relation facts
    name (张伟 of 张伟是我的同事), its own named subject (a pronoun's referent is no new one), else
    the one relative it mentions ("talked to mom tonight"); kin or names side by side (我哥和我姐,
    "Tom and Amy", "his wife") make it ambiguous."""
    found: list[str] = []
    for fact in facts:
        name = fact.subject or (fact.value if fact.predicate in RELATION_PREDICATES and fact.polarity
                                and person_like(fact.value) else None)
        if fact.predicate == "owns" and fact.polarity and fact.subject is None:
            name = _pet(fact.value, clause.lang)  # "we adopted a greyhound", 养了只猫叫咪咪: the pet is someone too
        if name and name not in _SPEAKERS and name not in found:
            found.append(name)
    if (called := _CALLED.search(clause.text)) is not None and (called[1] or called[2]) not in found:
        found.append(called[1] or called[2])  # "Her name's Pixie", 它叫咪咪: the one just spoken of, by name
    named_kin = subject is not None and subject.kin and any(  # 我同事小陈…: the colleague is 小陈
        f.subject is None and f.predicate in RELATION_PREDICATES for f in facts)
    own = re.sub(r"['’]s$", "", subject.name) if subject is not None and subject.name else None  # "Lily's home…"
    if own and subject is not None and not subject.pronoun and own not in found and not named_kin:
        found.append(own)
    zh = clause.lang == "zh"
    kin = {KIN_CANON.get(w.lower(), w.lower()) for w in (_MY_KIN_ZH if zh else _MY_KIN_EN).findall(clause.text)}
    pairs = [] if zh else _TWO_NAMES_EN.findall(clause.text)
    if len(found) > 1 or len(kin) > 1 or _THEIR_KIN.search(clause.text) or any(
            not NOT_NAME_EN.match(a) and not NOT_NAME_EN.match(b) for a, b in pairs):
        return None
    if not found:  # "talked to mom tonight, she…": the one relative the clause mentions
        bare = {KIN_CANON.get(w.lower(), w.lower()) for w in (_BARE_KIN_ZH if zh else _BARE_KIN_EN).findall(clause.text)}
        if len(kin | bare) > 1:
            return None
        found = [("用户的" if zh else "user's ") + k for k in kin | bare]
    return tuple(found)


def _pet(value: str, lang: str) -> str | None:
    """The pet an ``owns`` value is, as a subject (橘猫（年糕） → 年糕, greyhound → user's greyhound), else None."""
    if (named := re.search(r"[（(]([^)）]{1,12})[)）]$", value)) is not None:
        return named[1]
    if lang == "en":
        word = value.lower().split()[-1] if value.split() else ""
        return f"user's {word}" if word in PETS_EN and word not in ("pet", "pets") else None
    pet = next((p for p in sorted(PETS_ZH, key=len, reverse=True) if value.endswith(p)), None)
    return f"用户的{pet}" if pet else None


def after(person: str | None, named: Named) -> str | None:
    """The referent for the next pronoun, after a clause that named ``named``: the one it named,
    none when it named several, else still ``person``."""
    if named is None:
        return None
    return named[-1] if named else person


def merge(before: Named, named: Named) -> Named:
    """What several clauses or turns named together: None once they name more than one."""
    if before is None or named is None:
        return None
    out = tuple(dict.fromkeys((*before, *named)))
    return out if len(out) <= 1 else None


def single(named: Named) -> str | None:
    """The referent earlier turns give: their one third party, if they named exactly one."""
    return named[0] if named is not None and len(named) == 1 else None
