"""Whom a profile question is about, and which side of them, read against the subjects memory has (ADR 0090).

Once a question is known to ask for a profile (the cues of :mod:`hlmem.domain.profile_intent`, the
intent model, or :func:`bare_subject`), recall must still tell *whose* profile and *which side*:

- :func:`read_subject` picks, among the subjects that have a profile (the stored subjects of the
  mental models), the one the question asks about, by the one reading of the asked subject
  (:mod:`hlmem.domain.asked_subject`, ADR 0098): the asked subject when it has a profile, else the
  next person the question names that has one ("what does my boss think of Alice?" is Alice's).
  Names ("Bob", "小明", "Bob" for "Bob Smith"), relatives of the user in either language ("my sis",
  "我妹", "我姐姐" for the stored ``user's sister``), the user in the first person singular ("我这个人",
  "what have you learned about me"; not "tell me about Carol", not 我们).
- :func:`read_side` reads the side asked about: ``work``, ``health``, ``preferences``, ``places``,
  ``people`` or ``identity`` (the slot families of the derived layer), by the first word of one in
  the question ("health stuff", "吃东西", "location-wise", "hobbies", "上班"), or None.
- :func:`bare_subject` is the structural reading: a question whose only content is a subject and
  maybe a side ("Bob?", "小明这人", "Alice's health stuff") asks for that subject's profile.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from hlmem.domain.asked_subject import asked_subject, is_plural_self, people_named, strip_first_person
from hlmem.domain.relations import USER_NAME
from hlmem.domain.state import SELF_KEY, subject_key
from hlmem.domain.subject_match import fold_name, is_asked, subject_chain

#: Side words by family, English (word starts) and Chinese (substrings). A side is the slot family
#: of domain/derived_build.py's FAMILIES; the words name the family's domain, not one slot's value.
SIDES: tuple[tuple[str, str], ...] = (
    ("health", r"health|diet|eat(?:s|ing)?\b|food|allerg|medical|medicine|sleep|habit|fitness"),
    ("work", r"work(?!ing out)|job|career|employ|profession|office|company|occupation|business\b"),
    ("preferences", r"hobb|likes\b|interest|prefer|tastes?\b|into\b|free time|fun\b|favou?rite|enjoy"),
    ("places", r"location|live[sd]?\b|living\b|based\b|places?\b|city|cities|home\b|where\b.*\b(?:from|live)"),
    ("people", r"family|friends|relationships?\b|partner|kids\b|children"),
    ("identity", r"birthday|personal details|age\b|basic info"),
)
SIDES_ZH: tuple[tuple[str, str], ...] = (
    ("health", r"健康|身体|饮食|吃东西|吃的|吃饭|忌口|过敏|作息|睡眠|病|医"),
    ("work", r"工作|上班|职业|事业|公司|岗位|职位|单位|学历"),
    ("preferences", r"爱好|喜好|偏好|兴趣|口味|喜欢|爱干|爱玩|平时.{0,3}干"),
    ("places", r"住|居住|地点|城市|在哪边|老家|家乡"),
    ("people", r"家人|朋友|人际|家里人|亲戚|家庭"),
    ("identity", r"个人信息|基本信息|生日|年龄"),
)
_SIDE_EN = [(family, re.compile(rf"(?i)\b(?:{words})")) for family, words in SIDES]
_SIDE_ZH = [(family, re.compile(words)) for family, words in SIDES_ZH]

#: Questions longer than this are never read as bare subjects.
BARE_MAX = 40
#: What a bare question may hold beside a subject and a side: particles, fillers, "stuff".
_FILLER = re.compile(
    r"(?i)\b(?:hey|hi|so|ok(?:ay)?|um+|hmm+|and|the|a|about|re|stuff|things|info|details|in general|overall"
    r"|please|pls|again|then)\b|这个人|这人|这位|的|呢|吧|啊|呀|嘛|哈|呗|诶|哎|嗯|情况|资料|信息|相关|方面|上的|那边")
_PUNCT = re.compile(r"[\s\W_]+")
#: A question word or verb left beside the subject: the question asks something of them ("where does Bob live?").
_ASKS = re.compile(r"(?i)\b(?:where|what|who|whom|whose|which|when|why|how|does|do|did|is|are|was|were|can|could"
                   r"|has|have|will|would)\b|哪|什么|啥|谁|几|多少|吗|是|怎|在|有没有")


def _named_at(question: str, subject: str) -> int:
    """Where ``question`` names the stored ``subject`` by its name ("Bob" for "Bob Smith" too), or -1."""
    anchor, hops = subject_chain(subject)
    if hops or anchor == USER_NAME or not anchor.strip():
        return -1
    name = anchor.strip()
    if not name.isascii():
        return question.find(name)
    for word in dict.fromkeys((name, name.split()[0])):  # "讲讲Alice的" too: ASCII words whole
        found = re.search(rf"(?i)(?<![A-Za-z0-9]){re.escape(word)}(?![A-Za-z0-9])", question)
        if found is not None:
            return found.start()
    return -1


def mentions_user(question: str) -> bool:
    """Whether ``question`` asks about the user in the first person (I, me, my, 我, 本人): not only as
    the one asking ("tell me about Carol", "给我讲讲"), not as one of several (我们), and not beside
    someone else it asks about ("I'm seeing Leo tomorrow, anything I should know?")."""
    asked = asked_subject(question)
    return asked is not None and asked.anchor == USER_NAME and not asked.hops and not is_plural_self(asked)


def read_subject(question: str, subjects: Iterable[str]) -> str | None:
    """The subject among ``subjects`` that ``question`` asks about (module docstring), or None."""
    subjects = list(dict.fromkeys(subjects))
    for person in people_named(question, subjects):
        if is_plural_self(person):
            continue
        found = [s for s in subjects if is_asked(person, s)]
        if found:  # "Bob" asked: a stored "Bob" before a stored "Bob Smith"
            return min(found, key=lambda s: (fold_name(subject_chain(s)[0]) != fold_name(person.anchor), -len(s)))
    return None


def read_side(question: str) -> str | None:
    """The family of the first side word in ``question`` (module docstring), or None."""
    found = [(m.start(), family) for family, pattern in (*_SIDE_EN, *_SIDE_ZH) if (m := pattern.search(question))]
    return min(found)[1] if found else None


def may_be_bare(question: str) -> bool:
    """Whether ``question`` is short and asks nothing (no question word), so that it may be a bare
    subject: a cheap test before the subjects are read."""
    text = question.strip()
    return 0 < len(text) <= BARE_MAX and not _ASKS.search(text)


def bare_subject(question: str, subject: str) -> bool:
    """Whether ``question`` holds nothing but a mention of ``subject``, maybe a side and fillers:
    "Bob?", "小明这人", "Alice's health stuff", "我的情况" — but not the bare name alone ("Bob",
    "小明"), which stays a search for the subject's claims."""
    text = question.strip()
    if not may_be_bare(text) or text.casefold() == subject.strip().casefold():
        return False  # the name alone is a search for what is stored about them: their claims, as before
    if subject_key(subject) == SELF_KEY:
        rest = strip_first_person(text)
    else:
        at = _named_at(text, subject)
        if at < 0:
            return False
        name = subject.strip() if text[at:at + len(subject.strip())].casefold() == subject.strip().casefold() \
            else subject.split()[0]
        rest = text[:at] + " " + text[at + len(name):]
    rest = re.sub(r"(?i)['’]s\b", " ", rest)
    if _ASKS.search(rest):
        return False
    for _family, pattern in (*_SIDE_EN, *_SIDE_ZH):
        rest = pattern.sub(" ", rest)
    rest = _FILLER.sub(" ", rest)
    return not _PUNCT.sub("", rest)
