"""Whom a profile question is about, and which side of them, read against the subjects memory has (ADR 0090).

Once a question is known to ask for a profile (the cues of :mod:`hlmem.domain.profile_intent`, the
intent model, or :func:`bare_subject`), recall must still tell *whose* profile and *which side*:

- :func:`read_subject` picks, among the subjects that have a profile (the stored subjects of the
  mental models), the one the question names: a name it contains ("Bob", "小明", "Bob Smith" for
  "Bob"), else a relative of the user it names in either language ("my sis", "我妹", "我姐姐" for the
  stored ``user's sister``; ``用户的妹妹`` for "my sister"), else the user (a first-person question:
  "我这个人", "what have you learned about me"). A name beats a relative, a relative beats the user
  ("my sister's job" is the sister's).
- :func:`read_side` reads the side asked about: ``work``, ``health``, ``preferences``, ``places``,
  ``people`` or ``identity`` (the slot families of the derived layer), by the first word of one in
  the question ("health stuff", "吃东西", "location-wise", "hobbies", "上班"), or None.
- :func:`bare_subject` is the structural reading: a question whose only content is a subject and
  maybe a side ("Bob?", "小明这人", "Alice's health stuff") asks for that subject's profile.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from hlmem.domain.kin_words import same_relative
from hlmem.domain.relation_query import relation_phrases
from hlmem.domain.relations import USER_NAME
from hlmem.domain.state import SELF_KEY, subject_key

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
_FIRST_PERSON_EN = re.compile(r"(?i)\b(?:i|me|my|mine|myself|i'm|i've|i'd)\b")
_FIRST_PERSON_ZH = re.compile(r"我(?!们)|本人|咱(?!们)")
#: The first person as the one asking, not the one asked about: "tell me about Carol", "给我讲讲".
_ASKER_EN = re.compile(r"(?i)\b(?:tell|give|remind|show|fill|catch|brief|help|let|get|send|walk|for)\s+me\b"
                       r"|\bi(?:'m|\s+am)?\s+(?:want|need|wonder|meeting|seeing|picking|inviting|cooking|buying|forgot|forget"
                       r"|blanked|think|guess)\w*\b")
_ASKER_ZH = re.compile(r"(?:给|跟|帮|让|告诉|和|问|教|提醒)我|我(?:想|要|忘|记不|想不)")
#: A capitalised word that is not a sentence's first: someone the question names (not a stored subject).
_NAME_EN = re.compile(r"(?<=[a-z,;:—–-]\s)(?!I\b)[A-Z][a-z]+")
#: A stored subject of a relative of the user: "user's sister", "用户的妹妹", "my mom".
_KIN_SUBJECT = re.compile(r"(?i)^(?:(?:the\s+)?user'?s|user’s|my|用户的?|我的?)\s*(?P<word>.+)$")
#: Chinese kin words -> the English word of the same relative (a stored "user's sister" is 我妹, 我姐姐).
_ZH_TO_EN = {
    **dict.fromkeys(("姐姐", "姐", "老姐", "大姐", "二姐", "妹妹", "妹", "老妹", "小妹"), "sister"),
    **dict.fromkeys(("哥哥", "哥", "老哥", "大哥", "二哥", "弟弟", "弟", "老弟", "小弟"), "brother"),
    **dict.fromkeys(("妈妈", "妈", "老妈", "母亲", "妈咪"), "mother"),
    **dict.fromkeys(("爸爸", "爸", "老爸", "父亲"), "father"),
    **dict.fromkeys(("老婆", "妻子", "太太", "媳妇", "媳妇儿"), "wife"),
    **dict.fromkeys(("老公", "丈夫"), "husband"), "儿子": "son", **dict.fromkeys(("女儿", "闺女"), "daughter"),
    **dict.fromkeys(("男朋友", "男友"), "boyfriend"), **dict.fromkeys(("女朋友", "女友"), "girlfriend"),
    **dict.fromkeys(("爷爷", "外公", "姥爷"), "grandfather"), **dict.fromkeys(("奶奶", "外婆", "姥姥"), "grandmother"),
    **dict.fromkeys(("老板", "上司", "领导"), "boss"),
}
#: What a bare question may hold beside a subject and a side: particles, fillers, "stuff".
_FILLER = re.compile(
    r"(?i)\b(?:hey|hi|so|ok(?:ay)?|um+|hmm+|and|the|a|about|re|stuff|things|info|details|in general|overall"
    r"|please|pls|again|then)\b|这个人|这人|这位|的|呢|吧|啊|呀|嘛|哈|呗|诶|哎|嗯|情况|资料|信息|相关|方面|上的|那边")
_PUNCT = re.compile(r"[\s\W_]+")
#: A question word or verb left beside the subject: the question asks something of them ("where does Bob live?").
_ASKS = re.compile(r"(?i)\b(?:where|what|who|whom|whose|which|when|why|how|does|do|did|is|are|was|were|can|could"
                   r"|has|have|will|would)\b|哪|什么|啥|谁|几|多少|吗|是|怎|在|有没有")


def _relative_words(word: str) -> frozenset[str]:
    word = word.strip().casefold()
    english = _ZH_TO_EN.get(word, word)
    found = same_relative(english) or frozenset({english})
    return found | {english.rstrip("s")}


def _kin_word(subject: str) -> str | None:
    found = _KIN_SUBJECT.match(subject.strip())
    return found["word"].strip() if found is not None and subject_key(subject) != SELF_KEY else None


def _named_at(question: str, subject: str) -> float:
    """Where ``question`` names ``subject`` (a name it contains, whole words in Latin script), or -1;
    a stored "Bob Smith" found by "Bob" alone counts a little after an exact "Bob" (half a place)."""
    name = subject.strip()
    if not name or _kin_word(name) is not None:
        return -1
    if re.search(r"[\u3400-\u9fff]", name):
        return question.find(name)
    found = re.search(rf"(?i)(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])", question)  # "讲讲Alice的" too
    if found is not None:
        return found.start()
    if " " in name:  # "Bob" asked, "Bob Smith" stored
        found = re.search(rf"(?i)(?<![A-Za-z0-9]){re.escape(name.split()[0])}(?![A-Za-z0-9])", question)
    return found.start() + 0.5 if found is not None else -1


def _kin_at(question: str, subject: str) -> int:
    """Where ``question`` names the user's relative ``subject`` ("my sis" for "user's sister"), or -1."""
    word = _kin_word(subject)
    if word is None:
        return -1
    wanted = _relative_words(word)
    for phrase in relation_phrases(question):
        if phrase.anchor == USER_NAME and len(phrase.hops) == 1 and _relative_words(phrase.hops[0].word) & wanted:
            return max(0, question.find(phrase.span))
    return -1


def mentions_user(question: str) -> bool:
    """Whether ``question`` speaks of the user in the first person (I, me, my, 我, 本人), not only as
    the one asking ("tell me about Carol", "给我讲讲") and not beside a name it gives ("I'm seeing Leo")."""
    if _NAME_EN.search(question):
        return False
    rest = _ASKER_ZH.sub(" ", _ASKER_EN.sub(" ", question))
    return bool(_FIRST_PERSON_EN.search(rest) or _FIRST_PERSON_ZH.search(rest))


def read_subject(question: str, subjects: Iterable[str]) -> str | None:
    """The subject among ``subjects`` that ``question`` asks about (module docstring), or None."""
    named, kin, user = [], [], None
    for subject in dict.fromkeys(subjects):
        if subject_key(subject) == SELF_KEY:
            user = subject
            continue
        at = _named_at(question, subject)
        if at >= 0:
            named.append((at, -len(subject), subject))
        elif (at := _kin_at(question, subject)) >= 0:
            kin.append((at, -len(subject), subject))
    if named:
        return min(named)[2]
    if kin:
        return min(kin)[2]
    return user if user is not None and mentions_user(question) else None


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
        rest = _FIRST_PERSON_EN.sub(" ", _FIRST_PERSON_ZH.sub(" ", text))
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
