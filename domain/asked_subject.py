"""Whom a question asks about, purely: the one reading of the asked subject (ADR 0089, ADR 0098).

"what am I allergic to?" asks for the **user's** allergy, "where does Bob live?" for **Bob's**
city, "我妹住哪" for the **sister's** (the 我 there owns the sister: it is not the subject), and
"Tom's manager's email" for the manager's. :func:`asked_subject` reads that subject as an anchor
(:data:`~hlmem.domain.relations.USER_NAME` or a name) and the kin words that lead from it;
:func:`~hlmem.domain.subject_match.is_asked` tells whether a claim's subject, as extraction writes
it (``用户``, ``Bob``, ``user's sister``, ``用户的妹妹``, ``Tom's manager``), is that person. Both
readings of whom a question is about use this one: recall's whose-fact stage
(:mod:`hlmem.application.recall.subject_order`) and the profile question's subject
(:func:`hlmem.domain.profile_reading.read_subject`, through :func:`people_named`).

The subject is the first one the question's asking clause names: "what did I give my sister?"
asks about the user, "remind me who my sis works for" about the sister (the "me" of "remind me",
like 帮我/告诉我, "I forgot …" and "what should I know", only frames the question),
"Alice对什么过敏来着，我家有宠物" about Alice (the second clause asks nothing). Around that clause:

- **a wrapper before a dash or a colon** that names no one ("hey, remind me — who do I work for?",
  "quick question: …", "帮我想想：…") hands the asking to the clause after it;
- **a pronoun** ("下周要跟 Bob 吃饭，帮我回忆下他的情况", "My sister — where does she live?") is the
  person a clause before it names — never the user (he/she/他/她 is someone else), and only when
  those clauses name one person besides the user;
- an asking clause that names no one takes the person a clause before it introduces, the user only
  when no one else is named there ("I'm seeing Leo tomorrow, what should I know?" is about Leo).

Two subjects joined ("Bob and I", 我和我妹) or a pronoun no clause resolves ("where does she
live?": whoever that is) read as no subject: recall is left as it is.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from attrs import frozen

from hlmem.domain.kin_words import EN_PETS, ZH_PETS, kin_type
from hlmem.domain.query_parts import is_question
from hlmem.domain.relation_query import relation_phrases
from hlmem.domain.relations import USER_NAME
from hlmem.domain.subject_match import USER_WORDS, AskedSubject, fold_name, is_asked, same_kin, subject_chain

__all__ = ["AskedSubject", "asked_clause", "asked_subject", "is_asked", "is_plural_self", "people_named", "refers_back", "same_kin",
           "speaks_of_another", "strip_first_person", "subject_chain"]


# --- reading the question ------------------------------------------------------------------------

#: A clause: up to a comma, a sentence end, a dash or a colon (not one inside "3:30"), its ending
#: mark kept (it may say "question", or that a wrapper ends there).
_CLAUSE = re.compile(r"(?:[^，,。；;！!？?\n—…：:–.]|:(?=\S)|\.(?!\s|$))+(?:[，,。；;！!？?…—：–]|:(?!\S)|\.(?=\s|$))*")
#: Where one clause ends and another may begin (a full stop before a space ends a sentence; 1.5, v1.2 do not).
_CLAUSE_BREAK = re.compile(r"[，,。；;！!？?\n—…：–]|:(?!\S)|\.(?=\s)")
#: A clause that ends as a wrapper does: a dash or a colon ("remind me —", "quick question:").
_WRAPPER_END = re.compile(r"[—–:：]\s*$|\s-\s*$")
#: The first person ("用户"/"the user" too: questions are written about the user that way).
_EN_SELF = re.compile(r"(?<![A-Za-z0-9'’])(?i:i|me|my|mine|myself|the user|user)(?![A-Za-z0-9])")
_ZH_SELF = re.compile(r"我们|我|咱们|咱|俺|本人|用户")
#: First person that only frames the question: "remind me", "I forgot", 帮我, 我想问, 你跟我说过.
_EN_FRAME_BEFORE = re.compile(
    r"(?i)\b(?:remind|tell|show|give|let|help|ask|brief|update|fill|catch|for|get|send|walk|refresh|jog)\s+$")
_EN_FRAME_AFTER = re.compile(
    r"(?i)^\s*(?:forgot|forget|(?:was\s+|am\s+|'m\s+)?wonder(?:ing)?|(?:want|need|wanna)\s+to\s+know|wanna\s+know|"
    r"(?:can't|cannot|don't|do\s+not)\s+(?:remember|recall)|(?:'m|am)\s+(?:trying\s+to\s+remember|not\s+sure|curious)"
    r"|(?:have|got)\s+a\s+question|(?:just\s+)?(?:blanked|blanking)"
    r"|(?:should|must|ought\s+to|gotta|have\s+to|need\s+to)\s+(?:know|remember|keep\s+in\s+mind)"
    # a plan that names whom it is about: "I'm meeting Bob", "I'm picking a gift for Alice"
    r"|(?:['’]m|am|will|['’]ll)\s+(?:be\s+)?(?:meeting|seeing|picking|inviting|cooking|buying|visiting|calling|hosting"
    r"|having|taking|getting|making)(?=\s))\b")
#: "what should I know", "do I need to remember": I as the one asking (with the word before I).
_EN_ASK_KNOW = re.compile(r"(?i)^\s+(?:know|remember|keep\s+in\s+mind|be\s+aware\s+of|need\s+to\s+(?:know|remember))\b")
_EN_MODAL_BEFORE = re.compile(r"(?i)\b(?:should|must|shall|do|would|might|can)\s+$")
#: Someone who put a question to the user ("朋友问我在哪高就", "Bob asked me where …"): the one
#: asking, not the one asked about (the question put to the user is the user's).
_ASKER_AFTER = re.compile(r"\s*(?:问过|问了|问)(?=我)|\s+(?:asked|asks|was\s+asking|is\s+asking|keeps\s+asking)\s+me\b",
                          re.IGNORECASE)
#: "my memory", "my mind": the asker's, not what is asked about.
_EN_MY_MIND = re.compile(r"(?i)^\s+(?:memory|mind|head)\b")
#: (Not 问: "朋友问我在哪高就" reports a question put to the user, about the user.)
_ZH_FRAME_BEFORE = re.compile(r"(?:帮|告诉|提醒|给|跟|替|让|叫)$")
_ZH_FRAME_AFTER = re.compile(r"^(?:想问|想知道|问一下|问下|问你|要问|再问|忘了|忘记|记不得|记不清|想不起|不记得|不太记得|好奇|想确认|确认一下)")
#: Someone the question names by a pronoun: whoever that is, it is not known here.
_PRONOUN = re.compile(r"(?<![A-Za-z0-9'’])(?i:he|she|they|him|her|his|them|their|hers)(?![A-Za-z0-9'’])|他们|她们|他|她")
#: A pronoun that can only stand for a person (not "they"/"them", which may be things).
_PERSONAL = re.compile(r"(?<![A-Za-z0-9'’])(?i:he|she|him|her|his|hers)(?![A-Za-z0-9'’])|他|她")
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
        if word.casefold() == "i" and (_EN_FRAME_AFTER.match(clause[m.end():]) or (
                _EN_ASK_KNOW.match(clause[m.end():]) and _EN_MODAL_BEFORE.search(clause[:m.start()]))):
            continue  # "I forgot …", "what should I know (about Bob)": the one asking
        if word.casefold() == "my" and _EN_MY_MIND.match(clause[m.end():]):  # "refresh my memory on Bob"
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
        anchor = USER_NAME if phrase.anchor == USER_NAME or fold_name(phrase.anchor) in USER_WORDS else phrase.anchor
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


#: How a clause's reading ends: a person (or two joined: None) settles it; a pronoun first, or no one, leaves it open.
_SETTLED, _PRONOUN_FIRST, _NO_ONE = "settled", "pronoun", "no one"


def _mentions(clause: str, names: Iterable[str]) -> list[_Mention]:
    """Everyone ``clause`` names, in order; one inside a longer one that starts no later (我 in 我妹) after it."""
    mentions = [*_kin_mentions(clause), *_named_mentions(clause, names), *_self_mentions(clause)]
    mentions += [_Mention(m.start(), m.end(), None) for m in _PRONOUN.finditer(clause)]
    mentions = [m for m in mentions if not _ASKER_AFTER.match(clause, m.end)]
    mentions.sort(key=lambda m: (m.start, -(m.end - m.start), m.asked is None))
    return mentions


def _read(clause: str, names: Iterable[str]) -> tuple[AskedSubject | None, str]:
    """(the first person ``clause`` names, how the reading ends): a pronoun first, or no one, leaves
    it open (another clause may name them); two people joined settle it as None."""
    mentions = _mentions(clause, names)
    if not mentions:
        return None, _NO_ONE
    first = mentions[0]
    if first.asked is None:
        return None, _PRONOUN_FIRST
    rest = [m for m in mentions[1:] if m.start >= first.end]
    joined = _JOINED.match(clause[first.end:])
    after = first.end + joined.end() if joined else -1
    if joined and (any(m.start == after for m in rest) or _ZH_SELF.match(clause, after)
                   or _EN_SELF.match(clause, after)):
        return None, _SETTLED  # "Bob and I", 我和我妹: two people
    if first.asked.hops:  # "my friend Tom", 我同事小王: the name says who
        gap = re.match(r"[\s,，]*", clause[first.end:]).end()
        named = next((m for m in rest if m.start == first.end + gap and m.asked is not None
                      and not m.asked.hops and m.asked.anchor != USER_NAME), None)
        if named is not None:
            return named.asked, _SETTLED
    return first.asked, _SETTLED


def _people(text: str, names: Iterable[str]) -> list[AskedSubject]:
    """The people ``text`` names, in order, each once (a mention inside a longer one is part of it)."""
    mentions = [m for m in _mentions(text, names) if m.asked is not None]
    outer = [m for m in mentions if not any(o is not m and o.start <= m.start and o.end >= m.end
                                            and o.end - o.start > m.end - m.start for o in mentions)]
    out: dict[tuple[str, tuple[str, ...]], AskedSubject] = {}
    for m in outer:
        out.setdefault((fold_name(m.asked.anchor), tuple(fold_name(h) for h in m.asked.hops)), m.asked)
    return list(out.values())


def _introduced(before: str, names: Iterable[str], pronoun: bool) -> AskedSubject | None:
    """The person the clauses ``before`` the asking one introduce: the one person named there
    besides the user (several: not known); the user only when no one else is named and the asking
    clause does not speak of someone by a pronoun (he/she/他/她 is never the user)."""
    people = _people(before, names)
    others = [p for p in people if p.anchor != USER_NAME or p.hops]
    if others:
        return others[0] if len(others) == 1 else None
    return people[0] if people and not pronoun else None


@frozen
class _Located:
    """Where a question asks: the asking clause, its start, its reading, and who it is about."""

    clause: str
    start: int
    state: str
    asked: AskedSubject | None


def _locate(text: str, names: list[str]) -> _Located:
    clauses = [(m.start(), m.group(0)) for m in _CLAUSE.finditer(text)]
    at = next((n for n, (_, c) in enumerate(clauses) if is_question(c)), None)
    if at is None:  # nothing seems to ask: the whole text is the asking clause
        found, state = _read(text, names)
        return _Located(text, 0, state, found)
    while True:
        start, clause = clauses[at]
        found, state = _read(clause, names)
        if state == _SETTLED:
            return _Located(clause, start, state, found)
        nxt = at + 1 < len(clauses)
        if state == _NO_ONE and nxt and (_WRAPPER_END.search(clause) or is_question(clauses[at + 1][1])):
            at += 1  # a wrapper ("remind me —", "quick question:") hands the asking to the clause after it
            continue
        break
    before = text[:start]
    person = state == _PRONOUN_FIRST and bool(_PERSONAL.search(clause))  # "they" may be things: "My allergies — what were they?"
    found = _introduced(before, names, person) if before.strip() else None
    return _Located(clause, start, state, found)


def asked_subject(question: str, names: Iterable[str] = ()) -> AskedSubject | None:
    """The person ``question`` asks a fact of, or None when it names none (or two, or a pronoun
    no clause before it resolves: "My sister — where does she live?" asks of the sister).

    :param names: subjects the store knows (claims' subjects as written): names found in the
        question ("小明住哪儿", "Which city is 小明 in?"), and the user's things ("用户的猫": 我的猫).
    """
    text = unicodedata.normalize("NFKC", question or "").strip()
    return _locate(text, list(names)).asked if text else None


def people_named(question: str, names: Iterable[str] = ()) -> list[AskedSubject]:
    """The people ``question`` names: the asked subject first (:func:`asked_subject`), then the
    others it names, in order (not the user, whom only the reading of the asking clause gives;
    not a pronoun). A profile question's subject is the first of them that has a profile."""
    text = unicodedata.normalize("NFKC", question or "").strip()
    if not text:
        return []
    names = list(names)
    asked = _locate(text, names).asked
    out = [asked] if asked is not None else []
    for person in _people(text, names):
        if (person.anchor != USER_NAME or person.hops) and person not in out:
            out.append(person)
    return out


#: A third-person pronoun that may be replaced by a name: possessive (his/their: "Bob's"), else as is.
_POSSESSIVE = frozenset({"his", "their", "hers"})


def asked_clause(question: str, names: Iterable[str] = ()) -> str | None:
    """The asking clause of ``question`` with the pronoun it begins its subject with replaced by
    the person a clause before names ("下周要跟 Bob 吃饭，帮我回忆下他的情况" -> "帮我回忆下Bob的情况"), or
    None when there is no such pronoun to resolve: a reading of what is asked (a profile cue)
    can then read the clause as if it named the person."""
    text = unicodedata.normalize("NFKC", question or "").strip()
    if not text:
        return None
    names = list(names)
    located = _locate(text, names)
    clause, asked = located.clause, located.asked
    if located.state != _PRONOUN_FIRST:
        if clause != text:
            return None
        # Nothing seems to ask ("下周要跟 Bob 吃饭，帮我回忆下他的情况": a request): the last clause asks.
        clauses = [(m.start(), m.group(0)) for m in _CLAUSE.finditer(text)]
        if len(clauses) < 2 or _read(clauses[-1][1], names)[1] != _PRONOUN_FIRST:
            return None
        start, clause = clauses[-1]
        asked = _introduced(text[:start], names, True)
    pronoun = _PRONOUN.search(clause)
    if pronoun is None or asked is None or not asked.span or not _PERSONAL.fullmatch(pronoun.group(0)):
        return None
    word, span = pronoun.group(0), asked.span
    name = f"{span}'s" if word.casefold() in _POSSESSIVE else span
    return (clause[:pronoun.start()] + name + clause[pronoun.end():]).strip()


def refers_back(question: str) -> bool:
    """Whether ``question`` speaks of someone by he/she/他/她 after a clause before (a cheap test
    before :func:`asked_clause` reads it against the store's names)."""
    text = unicodedata.normalize("NFKC", question or "")
    found = _PERSONAL.search(text)
    return found is not None and bool(_CLAUSE_BREAK.search(text, 0, found.start()))


def is_plural_self(asked: AskedSubject) -> bool:
    """Whether ``asked`` is the user only as one of several (我们, 咱们: "我们团队怎么样"): a whose-fact
    reading counts it as the user, a profile reading does not."""
    return asked.anchor == USER_NAME and not asked.hops and asked.span in ("我们", "咱们")


#: The user in the first person singular (not 我们/咱们), as a word to take out of a question.
_SINGULAR_SELF = re.compile(r"(?i)(?<![A-Za-z0-9'’])(?:i|me|my|mine|myself)(?:['’](?:m|ve|d))?(?![A-Za-z0-9])"
                            r"|我(?!们)|本人|咱(?!们)|俺")


def strip_first_person(text: str) -> str:
    """``text`` with the first person singular (I, me, my, 我, 本人) taken out."""
    return _SINGULAR_SELF.sub(" ", text)


def speaks_of_another(text: str) -> bool:
    """Whether ``text`` speaks of someone by a pronoun and never in the first person ("开学第二天，他
    已经能自己背书包进校门了，上一年级了"): a claim about the user that rests only on such turns may
    have been given the user for want of the person the pronoun stands for."""
    folded = unicodedata.normalize("NFKC", text or "")
    return bool(_PRONOUN.search(folded)) and not (_ZH_SELF.search(folded) or _EN_SELF.search(folded))
