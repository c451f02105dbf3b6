"""The relation phrase of a question, purely: "my sister", "Tom's manager", "我老婆的哥哥" (ADR 0085).

:func:`relation_phrases` reads the phrases a question names someone by — an **anchor** (the user,
or a named person) and one or two **hops** (kin or social words) — in English and Chinese, best
reading first. Nothing here knows whether such a person exists: recall walks the accepted edges
(:mod:`hlmem.domain.relation_walk`) and a phrase no accepted edge answers changes nothing.

- English: "my (older) sister", "our cat"-free kin words ("my boss's husband"), a named person's
  ("Tom's manager", "Priya's husband's"), a bare "mom"/"dad"/"grandma".
- Chinese: "我(家)(的)表哥", "我老婆的哥哥" / "我老婆她哥", with a modifier ("我对门邻居", "我原来那个室友",
  "我们年级组长"), a clause ("带我的师傅", "跟我下棋的那个同事，他儿子"), a named person's ("张伟的老婆",
  "小雨的男朋友"), and a question that starts with a kin word ("老妈最近在忙什么？", "大舅哥的女儿").
- English also reads one word before the kin word ("my Army buddy's fiancée").
"""

from __future__ import annotations

import re

from attrs import frozen

from hlmem.domain.kin_words import EN_KIN, ZH_KIN, kin_type
from hlmem.domain.relations import USER_NAME

#: Possessive forms: "Tom's", "Tom’s", "James'".
_POSS = r"(?:'s|’s|'|’)"
_EN_WORDS = "|".join(sorted(map(re.escape, EN_KIN), key=len, reverse=True))
_EN_ADJ = r"(?:(?:older|younger|little|big|elder|twin|best|new|old|dear|baby|kid|eldest|youngest)\s+)?"
_EN_HOP = rf"(?i:{_EN_ADJ})(?P<{{name}}>(?i:{_EN_WORDS}))s?"
#: One word that says which one ("my Army buddy", "my church buddy"), tried after none.
_EN_USER = re.compile(
    rf"\b(?:[Mm]y|[Oo]ur)\s+(?:(?!(?i:{_EN_WORDS})\b)[A-Za-z]+\s+)??{_EN_HOP.format(name='first')}(?:{_POSS}\s+{_EN_HOP.format(name='second')})?\b")
_EN_NAMED = re.compile(
    rf"(?<![\w'’])(?P<anchor>[A-Z][a-z]+(?:\s[A-Z][a-z]+)?){_POSS}\s+{_EN_HOP.format(name='first')}"
    rf"(?:{_POSS}\s+{_EN_HOP.format(name='second')})?\b")
_EN_BARE = re.compile(r"(?<![\w'’])(?P<first>[Mm]om|[Mm]um|[Dd]ad|[Gg]randma|[Gg]randpa|[Nn]ana|[Hh]ubby)\b(?!\s*'s)")
#: Words before a bare "mom" that make it someone else's (or nobody's in particular).
_OWNED_BY = frozenset(("her", "his", "their", "your", "its", "the", "a", "an", "whose", "one's", "our", "my"))
_NOT_ANCHOR = frozenset(("I", "My", "The", "What", "Who", "Where", "When", "How", "Which", "Why", "It", "That",
                         "This", "He", "She", "They", "Our", "Your", "His", "Her", "And", "But", "So", "Is", "Does",
                         "Did", "Do", "Was", "Are", "Can", "Could", "Would", "Should", "Tell", "Remind"))

_ZH_WORDS = "|".join(sorted(map(re.escape, ZH_KIN), key=len, reverse=True))
#: Words between "我" and a kin word that say which one ("我对门邻居", "我原来那个室友", "我们年级组长").
_ZH_MOD = (r"(?:那个|这个|那位|原来(?:那个|的)?|现在(?:的|那个)?|之前(?:的|那个)?|以前(?:的|那个)?|前任|新|大学|高中|初中|小学|"
           r"研究生|合租|对门|隔壁|楼上|楼下|最好的|好|亲|店里(?:的)?|公司(?:的)?|单位(?:的)?|年级|组里(?:的)?|班上(?:的)?)")
#: The second hop: "的哥哥", "她哥", "，他儿子" (a clause about the person just named).
_ZH_SECOND = rf"(?:(?:的|她|他)|[，,]\s*(?:他|她)(?:的)?)(?P<second>{_ZH_WORDS})"
_ZH_USER = re.compile(rf"(?:我们|我)(?:家|组|班|公司|单位|店里|学校|部门|科室)?(?:的)?{_ZH_MOD}?(?P<first>{_ZH_WORDS})(?:{_ZH_SECOND})?")
#: "带我的师傅", "跟我下棋的那个同事": a clause with "我", "的", a kin word.
_ZH_CLAUSE = re.compile(rf"(?:^|(?<=[，。！？；,.!?;\s]))[^，。！？；,.!?;\s他她你]*我[^，。！？；,.!?;\s他她你]*?的(?:那个|那位)?"
                        rf"(?P<first>{_ZH_WORDS})(?:{_ZH_SECOND})?")
_ZH_NAMED = re.compile(rf"(?P<anchor>[\u4e00-\u9fff]{{2,3}}|[A-Z][a-z]+)的(?P<first>{_ZH_WORDS})"
                       rf"(?:的(?P<second>{_ZH_WORDS}))?")
_ZH_LEAD = re.compile(rf"^(?:那|那么|请问|你知道|你还记得|还记得)?(?P<first>{_ZH_WORDS})(?:{_ZH_SECOND})?")
#: Words that would read as a kin word at the start of a question but are not one there.
_ZH_NOT_LEAD = ("先生", "老师", "姐妹", "兄弟", "对象")


@frozen
class Hop:
    """One step of a relation phrase: the ``word`` as said ("sis", "表哥") and its edge ``relation``."""

    word: str
    relation: str


@frozen
class RelationPhrase:
    """``span`` (as it stands in the question) names whoever ``hops`` lead to from ``anchor``
    (:data:`~hlmem.domain.relations.USER_NAME` for the user, else a person's name); ``chinese``
    says how to name a relative in the recall that follows ("用户的表哥" or "user's cousin")."""

    span: str
    anchor: str
    hops: tuple[Hop, ...]
    chinese: bool

    def kin_name(self, owner: str) -> str:
        """How the extractor names the last hop's person by ``owner``: "用户的妹妹", "Priya's husband"."""
        word = self.hops[-1].word
        if owner == USER_NAME:
            return f"用户的{word}" if self.chinese else f"user's {word.casefold()}"
        return f"{owner}的{word}" if self.chinese else f"{owner}'s {word.casefold()}"


def _hops(*words: str | None) -> tuple[Hop, ...]:
    out = []
    for word in words:
        if word:
            relation = kin_type(word) or kin_type(word.rstrip("s"))
            if relation is None:
                return ()
            out.append(Hop(word, relation))
    return tuple(out)


def _zh_anchors(raw: str) -> list[str]:
    """The names the characters before "的" may end with: two, then three characters (ASCII as is)."""
    if raw.isascii():
        return [raw]
    return [raw[-size:] for size in (2, 3) if len(raw) >= size and not raw[-size:].startswith(("我", "你", "他", "她"))
            and "我" not in raw[-size:] and not any(raw[-size:].endswith(w) for w in ZH_KIN)]


def relation_phrases(question: str) -> list[RelationPhrase]:
    """Every relation phrase ``question`` may name someone by, best reading first, each once."""
    text = question.strip()
    out: list[RelationPhrase] = []

    def add(span: str, anchor: str, hops: tuple[Hop, ...], chinese: bool) -> None:
        phrase = RelationPhrase(span.strip(), anchor, hops, chinese)
        for i, seen in enumerate(out):  # "带我的师傅" over "我的师傅": the whole phrase is replaced by a name
            if (seen.anchor, seen.hops) == (anchor, hops) and seen.span in phrase.span:
                out[i] = phrase
                return
        if hops and phrase not in out:
            out.append(phrase)

    for m in _EN_USER.finditer(text):
        add(m.group(0), USER_NAME, _hops(m.group("first"), m.group("second")), False)
    for m in _EN_NAMED.finditer(text):
        anchor = m.group("anchor")
        if anchor.split()[0] in _NOT_ANCHOR:
            anchor = " ".join(anchor.split()[1:])
            if not anchor:
                continue
        span = m.group(0)[m.group(0).index(anchor):]
        add(span, anchor, _hops(m.group("first"), m.group("second")), False)
    for m in _EN_BARE.finditer(text):
        before = text[:m.start()].split()
        if not before or before[-1].casefold() not in _OWNED_BY:  # "her dad" is not the user's
            add(m.group(0), USER_NAME, _hops(m.group("first").casefold()), False)
    for m in _ZH_USER.finditer(text):
        add(m.group(0), USER_NAME, _hops(m.group("first"), m.group("second")), True)
    for m in _ZH_CLAUSE.finditer(text):  # not "我老婆的哥哥" (a chain, read above) as "my brother"
        clause = m.group(0)[:m.start("first") - m.start()].removesuffix("那个").removesuffix("那位")[:-1]
        if not any(clause.endswith(w) for w in ZH_KIN):
            add(m.group(0), USER_NAME, _hops(m.group("first"), m.group("second")), True)
    for m in _ZH_NAMED.finditer(text):
        for anchor in _zh_anchors(m.group("anchor")):
            span = m.group(0)[len(m.group("anchor")) - len(anchor):]
            add(span, anchor, _hops(m.group("first"), m.group("second")), True)
    lead = _ZH_LEAD.match(text)
    if lead and not out and not lead.group("first").startswith(_ZH_NOT_LEAD):
        span = lead.group(0)[lead.start("first") - lead.start():]
        add(span, USER_NAME, _hops(lead.group("first"), lead.group("second")), True)
    return out
