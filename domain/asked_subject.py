"""Whose fact a question asks for, purely: the user, a named person, or someone named by kin (ADR 0089).

"what am I allergic to?" asks for the **user's** allergy, "where does Bob live?" for **Bob's**
city, "我妹住哪" for the **sister's** (the 我 there owns the sister: it is not the subject), and
"Tom's manager's email" for the manager's. :func:`asked_subject` reads that subject as an anchor
(:data:`~hlmem.domain.relations.USER_NAME` or a name) and the kin words that lead from it;
:func:`is_asked` tells whether a claim's subject, as extraction writes it (``用户``, ``Bob``,
``user's sister``, ``用户的妹妹``, ``Tom's manager``), is that person. Recall then ranks the asked
subject's claims above the same kind of claim about someone else
(:mod:`hlmem.application.recall.subject_order`).

The subject is the first one the question's asking clause names: "what did I give my sister?"
asks about the user, "remind me who my sis works for" about the sister (the "me" of "remind me",
like 帮我/告诉我 and "I forgot …", only frames the question), "Alice对什么过敏来着，我家有宠物" about
Alice (the second clause asks nothing). Two subjects joined ("Bob and I", 我和我妹) or a pronoun
first ("where does she live?": whoever that is) read as no subject: recall is left as it is.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from attrs import frozen

from hlmem.domain.kin_words import EN_PETS, ZH_PETS, kin_type
from hlmem.domain.query_parts import is_question
from hlmem.domain.relation_query import relation_phrases
from hlmem.domain.relations import USER_NAME
from hlmem.domain.state import SELF_SUBJECTS

__all__ = ["AskedSubject", "asked_subject", "is_asked", "same_kin", "speaks_of_another", "subject_chain"]


@frozen
class AskedSubject:
    """The person a question asks about: ``anchor`` (:data:`USER_NAME` or a name) and the kin words
    (``hops``, as said) that lead from it ("我妹" -> (user, ("妹",))); ``span`` as the question says it."""

    anchor: str
    hops: tuple[str, ...] = ()
    span: str = ""

    def describe(self) -> str:
        """``user``, ``Bob``, ``user's 妹``, ``Tom's manager``."""
        return "".join([self.anchor, *(f"'s {h}" for h in self.hops)])


# --- kin words that may name the same person, across the two languages ---------------------------

#: The finer persons a kin word may name: "sister" is an older or a younger sister (姐姐 or 妹妹),
#: 姐姐 only the older; words of a type not listed name every person of their type.
_FINE_GROUPS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("sister", "sis", "stepsister", "姐妹"), ("older_sister", "younger_sister")),
    (("姐姐", "姐", "老姐", "大姐", "二姐"), ("older_sister",)),
    (("妹妹", "妹", "老妹", "小妹"), ("younger_sister",)),
    (("brother", "bro", "stepbrother", "兄弟"), ("older_brother", "younger_brother")),
    (("哥哥", "哥", "老哥", "大哥", "二哥"), ("older_brother",)),
    (("弟弟", "弟", "老弟", "小弟"), ("younger_brother",)),
    (("表哥",), ("表哥",)), (("表姐",), ("表姐",)), (("表弟",), ("表弟",)), (("表妹",), ("表妹",)),
    (("堂哥",), ("堂哥",)), (("堂姐",), ("堂姐",)), (("堂弟",), ("堂弟",)), (("堂妹",), ("堂妹",)),
    (("wife", "missus", "老婆", "妻子", "太太", "媳妇", "媳妇儿"), ("wife",)),
    (("husband", "hubby", "老公", "丈夫", "先生"), ("husband",)),
    (("girlfriend", "gf", "fiancee", "fiancée", "女朋友", "女友", "未婚妻"), ("girlfriend",)),
    (("boyfriend", "bf", "fiance", "fiancé", "男朋友", "男友", "未婚夫"), ("boyfriend",)),
    (("son", "stepson", "儿子"), ("son",)), (("daughter", "stepdaughter", "女儿", "闺女"), ("daughter",)),
    (("grandma", "grandmother", "granny", "nana"), ("paternal_grandmother", "maternal_grandmother")),
    (("grandpa", "grandfather"), ("paternal_grandfather", "maternal_grandfather")),
    (("奶奶",), ("paternal_grandmother",)), (("外婆", "姥姥"), ("maternal_grandmother",)),
    (("爷爷",), ("paternal_grandfather",)), (("外公", "姥爷"), ("maternal_grandfather",)),
)
_FINE: Mapping[str, frozenset[str]] = MappingProxyType(
    {w: frozenset(keys) for words, keys in _FINE_GROUPS for w in words})
#: Every finer person of an edge type that has some ("sibling": the four), for words of the type alone.
_OF_TYPE: dict[str, set[str]] = {}
for _words, _keys in _FINE_GROUPS:
    _type = kin_type(_words[0])
    if _type is not None:
        _OF_TYPE.setdefault(_type, set()).update(_keys)


def _fine(word: str) -> frozenset[str]:
    text = word.strip()
    folded = text.casefold()
    found = _FINE.get(folded) or _FINE.get(text)
    if found is not None:
        return found
    kind = kin_type(text) or kin_type(folded.rstrip("s"))
    if kind is None:
        return frozenset()
    return frozenset(_OF_TYPE.get(kind, {kind}))


def same_kin(asked: str, stored: str) -> bool:
    """Whether the kin word a question says and the one a subject holds may name the same person:
    "sis" and "sister", "sister" and 妹妹 (an English sister is either), not 姐姐 and 妹妹, not
    "sister" and "brother"; any other word only as itself (case-folded)."""
    a, b = asked.strip().casefold(), stored.strip().casefold()
    if a == b:
        return True
    fa, fb = _fine(asked), _fine(stored)
    return bool(fa and fb and fa & fb)


# --- a claim's subject as an anchor and kin words ------------------------------------------------

_CHAIN_SPLIT = re.compile(r"\s*(?:'s|’s|')\s+|的")
_USER_WORDS = frozenset({*SELF_SUBJECTS, "my", "mine", "我们", "咱", "咱们", "俺"})


def _fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).split()).casefold()


def subject_chain(subject: str) -> tuple[str, tuple[str, ...]]:
    """A subject as extraction writes it, as (anchor, kin words): ``user's sister`` -> (user,
    ("sister",)), ``用户的老婆的哥哥`` -> (user, ("老婆", "哥哥")), ``Bob`` -> (Bob, ())."""
    parts = [p for p in _CHAIN_SPLIT.split(unicodedata.normalize("NFKC", subject).strip()) if p.strip()]
    if not parts:
        return subject, ()
    anchor = parts[0].strip()
    if _fold(anchor) in _USER_WORDS:
        anchor = USER_NAME
    return anchor, tuple(p.strip() for p in parts[1:])


def _same_anchor(asked: str, stored: str) -> bool:
    if asked == USER_NAME or stored == USER_NAME:
        return asked == stored
    a, b = _fold(asked), _fold(stored)
    if a == b:
        return True
    if a.isascii() and b.isascii():  # "Bob" is "Bob Smith": one name's words start the other's
        wa, wb = a.split(), b.split()
        short, long_ = sorted((wa, wb), key=len)
        return long_[:len(short)] == short
    return False


def is_asked(asked: AskedSubject, subject: str) -> bool:
    """Whether a claim's ``subject`` is the person ``asked`` (same anchor, same kin words)."""
    anchor, hops = subject_chain(subject)
    return (len(hops) == len(asked.hops) and _same_anchor(asked.anchor, anchor)
            and all(same_kin(a, b) for a, b in zip(asked.hops, hops)))


# --- reading the question ------------------------------------------------------------------------

#: A clause: up to a comma, a sentence end or a dash, its ending mark kept (it may say "question").
_CLAUSE = re.compile(r"[^，,。；;！!？?\n—…]+[，,。；;！!？?…—]*")
#: The first person ("用户"/"the user" too: questions are written about the user that way).
_EN_SELF = re.compile(r"(?<![A-Za-z0-9'’])(?i:i|me|my|mine|myself|the user|user)(?![A-Za-z0-9])")
_ZH_SELF = re.compile(r"我们|我|咱们|咱|俺|本人|用户")
#: First person that only frames the question: "remind me", "I forgot", 帮我, 我想问, 你跟我说过.
_EN_FRAME_BEFORE = re.compile(r"(?i)\b(?:remind|tell|show|give|let|help|ask|brief|update|fill|catch|for)\s+$")
_EN_FRAME_AFTER = re.compile(
    r"(?i)^\s*(?:forgot|forget|(?:was\s+|am\s+|'m\s+)?wonder(?:ing)?|(?:want|need|wanna)\s+to\s+know|wanna\s+know|"
    r"(?:can't|cannot|don't|do\s+not)\s+(?:remember|recall)|(?:'m|am)\s+(?:trying\s+to\s+remember|not\s+sure|curious)"
    r"|(?:have|got)\s+a\s+question|(?:just\s+)?(?:blanked|blanking))\b")
_ZH_FRAME_BEFORE = re.compile(r"(?:帮|告诉|提醒|给|跟|替|让|问|叫)$")
_ZH_FRAME_AFTER = re.compile(r"^(?:想问|想知道|问一下|问下|问你|要问|再问|忘了|忘记|记不得|记不清|想不起|不记得|不太记得|好奇|想确认|确认一下)")
#: Someone the question names by a pronoun: whoever that is, it is not known here.
_PRONOUN = re.compile(r"(?<![A-Za-z0-9'’])(?i:he|she|they|him|her|his|them|their|hers)(?![A-Za-z0-9'’])|他们|她们|他|她")
#: Capitalised words that are not someone (an English name the store does not know still is).
_NOT_NAME = frozenset(
    "i a an the my our your his her its their we he she it they you this that these those there here what what's "
    "whats when where where's who who's whom whose why how which is are was were do does did have has had can could "
    "would should will shall may might must user yes no ok okay hi hey hello please thanks also and but or if so "
    "then tell show remember remind list give find describe explain summarize summarise recall name quick any anything "
    "in on at for from to of with since during today yesterday tomorrow last next before after now btw lol "
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july august "
    "september october november december christmas easter wait um hmm oh ah well actually honestly sorry just yo "
    "dude sure quick question".split())
_EN_CAPITAL = re.compile(r"(?<![A-Za-z0-9'’])[A-Z][a-z]+(?:[ -][A-Z][a-z]+)?(?![A-Za-z0-9])")
_JOINED = re.compile(r"^\s*(?:and|&|plus|or|和|跟|与|及|以及|还有|、)\s*", re.IGNORECASE)
_PETS = frozenset((*EN_PETS, *ZH_PETS))


@frozen
class _Mention:
    start: int
    end: int
    asked: AskedSubject | None  # None: a pronoun (someone not known)


def _question_clause(text: str) -> str:
    """The first clause that asks something (the whole text when none seems to)."""
    clauses = [m.group(0) for m in _CLAUSE.finditer(text)]
    for clause in clauses:
        if is_question(clause):
            return clause
    return text


def _occurrences(text: str, name: str) -> Iterable[tuple[int, int]]:
    if not name:
        return
    if name.isascii():
        pattern = re.compile(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])", re.IGNORECASE)
        for m in pattern.finditer(text):
            yield m.span()
        return
    start = text.find(name)
    while start >= 0:
        yield start, start + len(name)
        start = text.find(name, start + len(name))


def _self_mentions(clause: str) -> list[_Mention]:
    out = []
    for m in _EN_SELF.finditer(clause):
        word = m.group(0)
        if word == "i" and clause[m.end():m.end() + 1] == ".":  # "i.e."
            continue
        if word.casefold() == "me" and _EN_FRAME_BEFORE.search(clause[:m.start()]):
            continue
        if word.casefold() == "i" and _EN_FRAME_AFTER.match(clause[m.end():]):
            continue
        out.append(_Mention(m.start(), m.end(), AskedSubject(USER_NAME, (), word)))
    for m in _ZH_SELF.finditer(clause):
        if m.group(0) != "用户" and (_ZH_FRAME_BEFORE.search(clause[:m.start()])
                                     or _ZH_FRAME_AFTER.match(clause[m.end():])):
            continue
        out.append(_Mention(m.start(), m.end(), AskedSubject(USER_NAME, (), m.group(0))))
    return out


def _kin_mentions(clause: str) -> list[_Mention]:
    # 用户的妹妹 / the user's sister are read as 我家的妹妹 / my sister (same length: positions hold).
    text = re.sub(r"(?i)(?<![A-Za-z])(?:the\s+)?user['’]s(?=\s)", lambda m: "my" + " " * (len(m.group(0)) - 2), clause)
    text = text.replace("用户", "我家")
    out, seen = [], set()
    for phrase in relation_phrases(text):
        start = text.find(phrase.span)
        if start < 0 or start in seen:  # a Chinese name's longer reading of the same phrase: the first one
            continue
        seen.add(start)
        anchor = USER_NAME if phrase.anchor == USER_NAME or _fold(phrase.anchor) in _USER_WORDS else phrase.anchor
        span = clause[start:start + len(phrase.span)]
        out.append(_Mention(start, start + len(phrase.span), AskedSubject(anchor, tuple(h.word for h in phrase.hops),
                                                                          span)))
    return out


def _named_mentions(clause: str, names: Iterable[str]) -> list[_Mention]:
    out = []
    for name in names:
        anchor, hops = subject_chain(name)
        if anchor == USER_NAME and len(hops) == 1 and (hops[0] in _PETS or kin_type(hops[0]) is None):
            # A thing or pet of the user's the store knows ("用户的猫", "user's car"): "my cat", 我的猫, 我家猫.
            word = re.escape(hops[0])
            pattern = (rf"(?i)(?<![\w])(?:my|our)\s+(?:\w+\s+)?{word}(?![\w])" if hops[0].isascii()
                       else rf"(?:我们|我|咱)(?:家|的|家的)?{word}")
            out += [_Mention(m.start(), m.end(), AskedSubject(USER_NAME, hops, m.group(0)))
                    for m in re.finditer(pattern, clause)]
            continue
        if hops or anchor == USER_NAME or len(anchor.strip()) < 2:
            continue
        out += [_Mention(s, e, AskedSubject(anchor, (), clause[s:e])) for s, e in _occurrences(clause, anchor.strip())]
    for m in _EN_CAPITAL.finditer(clause):  # a name the store may not know: still someone else
        if m.group(0).split()[0].casefold() not in _NOT_NAME:
            out.append(_Mention(m.start(), m.end(), AskedSubject(m.group(0), (), m.group(0))))
    return out


def _read(clause: str, names: Iterable[str]) -> tuple[AskedSubject | None, bool]:
    """(the first person ``clause`` names, whether it settles the question): a pronoun first, or no
    one, leaves it open (the clause before may name them); two people joined settle it as None."""
    mentions = [*_kin_mentions(clause), *_named_mentions(clause, names), *_self_mentions(clause)]
    mentions += [_Mention(m.start(), m.end(), None) for m in _PRONOUN.finditer(clause)]
    if not mentions:
        return None, False
    # The first mention wins; one inside a longer one that starts no later (我 in 我妹) is part of it.
    mentions.sort(key=lambda m: (m.start, -(m.end - m.start), m.asked is None))
    first = mentions[0]
    if first.asked is None:
        return None, False
    rest = [m for m in mentions[1:] if m.start >= first.end]
    joined = _JOINED.match(clause[first.end:])
    after = first.end + joined.end() if joined else -1
    if joined and (any(m.start == after for m in rest) or _ZH_SELF.match(clause, after)
                   or _EN_SELF.match(clause, after)):
        return None, True  # "Bob and I", 我和我妹: two people
    if first.asked.hops:  # "my friend Tom", 我同事小王: the name says who
        gap = re.match(r"[\s,，]*", clause[first.end:]).end()
        named = next((m for m in rest if m.start == first.end + gap and m.asked is not None
                      and not m.asked.hops and m.asked.anchor != USER_NAME), None)
        if named is not None:
            return named.asked, True
    return first.asked, True


def asked_subject(question: str, names: Iterable[str] = ()) -> AskedSubject | None:
    """The person ``question`` asks a fact of, or None when it names none (or two, or a pronoun
    no clause before it resolves: "My sister — where does she live?" asks of the sister).

    :param names: subjects the store knows (claims' subjects as written): names found in the
        question ("小明住哪儿", "Which city is 小明 in?"), and the user's things ("用户的猫": 我的猫).
    """
    text = unicodedata.normalize("NFKC", question or "").strip()
    if not text:
        return None
    names = list(names)
    clause = _question_clause(text)
    found, settled = _read(clause, names)
    if settled or clause == text:
        return found
    before = text[:text.find(clause)]
    return _read(before, names)[0] if before.strip() else None


def speaks_of_another(text: str) -> bool:
    """Whether ``text`` speaks of someone by a pronoun and never in the first person ("开学第二天，他
    已经能自己背书包进校门了，上一年级了"): a claim about the user that rests only on such turns may
    have been given the user for want of the person the pronoun stands for."""
    folded = unicodedata.normalize("NFKC", text or "")
    return bool(_PRONOUN.search(folded)) and not (_ZH_SELF.search(folded) or _EN_SELF.search(folded))
