"""The precision guard: a value check per slot type, so nothing nonsensical supersedes a good value.

Single-valued slots (``lives_in``, ``employer``, ``model``…) supersede on every new value, so a
wrong one costs a right one. Each slot type says what its values look like — places like
places, people like names, quantities with a number, models with more than a bare digit — and a
candidate whose value does not is dropped before it becomes a claim. Every value is bounded
(:data:`MAX_VALUE_CHARS`): a statement's value is a phrase, never the message.

Part of speech: given a tagger (the composition root hands the rule extractor jieba's, see
adapters/text/pos.py), a Chinese place must also tag as a place, organisation or name (``ns``,
``nt``, ``nz``, ``nr``) unless it ends in a place suffix (市, 区, 路…); without one the lexical
checks alone apply. Tags are cached per tagger and value, so the tagger runs once per distinct
candidate value — never on every clause, and never on the hot path of recall.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable

from hlmem.application.extraction.patterns_common import (
    EN_JOB,
    JOB_SUFFIX,
    VAGUE_PLACE,
    VERSION_RE,
    language_value,
    person_like,
    theme_value,
)

#: Longest value in characters, by language (a CJK character carries about a word).
MAX_VALUE_CHARS = {"zh": 24, "en": 48}
_PLACE_SLOTS = frozenset({"lives_in", "works_in", "hometown"})
_QUANTITY_SLOTS = frozenset({"height", "weight", "budget", "salary", "rent", "shoe_size", "age"})
_PERSON_SLOTS = frozenset({"boss", "spouse", "partner", "father", "mother", "advisor", "colleague", "friend",
                           "roommate", "classmate", "neighbor", "collaborator", "cousin", "uncle", "aunt",
                           "grandparent", "mother_in_law", "father_in_law", "sister_in_law", "brother_in_law",
                           "niece", "nephew", "grandchild"})
_DIGIT = re.compile(r"\d|[零一二两三四五六七八九十百千万半]")
_SENTENCE_WORDS_ZH = re.compile(r"[很挺吧吗呢啊呀]|太(?!极|原|阳|空|湖|仓|平洋|太)|(?<![梦理思感])想|说(?!唱|明书)|"
                                r"哈(?!尔滨|密|萨克|巴狗)|非常|觉得|环境|服务|位置|感觉|舒服|方便|不错|推荐|附近|这家|那家|一起")
_SENTENCE_WORDS_EN = re.compile(r"\b(?:the|a|was|were|is|are|very|really|great|nice|lovely|would|will|stay|hotel|place|"
                                r"week|fear|peace|hope|denial|love|it|this|that|there)\b", re.I)
_EVALUATIVE_ZH = re.compile(r"不错|好用|满意|给力|完美|真棒|太棒|特别棒|喜欢上|一流|难用|失望|体验|印象|效果|时尚|漂亮|好看|难看|实惠|划算")
_PLACE_SUFFIX = re.compile(r"(?:市|省|区|县|镇|村|州|岛|国|湾|城|乡|街|路|港|山|河|湖)$")
_PRONOUN = re.compile(r"^(?:我|你|他|她|它|我们|你们|他们|这|那|这个|那个|it|this|that|you|me|him|her|them|what|something|"
                      r"anything|nothing|everything)$", re.I)

#: One token without spaces (an e-mail address, a phone number, a handle) may be longer than prose.
_IDENTIFIER = re.compile(r"[\w.@+\-]{1,64}", re.ASCII)

#: A Chinese part-of-speech tagger: ``text -> (word, flag)…`` (jieba's flags: ``ns`` place, ``nt`` organisation…).
Tagger = Callable[[str], Iterable[tuple[str, str]]]


@functools.lru_cache(maxsize=4096)
def _zh_place_tag(tagger: Tagger, value: str) -> bool:
    """Whether the tagger reads ``value`` as a place or a name (cached per tagger and value)."""
    flags = [flag for word, flag in tagger(value) if word.strip()]
    return bool(flags) and flags[0] in ("ns", "nt", "nz", "nr", "eng") and all(f not in ("v", "a", "d", "uj") for f in flags)


def place_like(value: str, lang: str, tagger: Tagger | None = None) -> bool:
    """Whether ``value`` names a place (成都, 北京朝阳区, Porto, New York), not a description."""
    if VAGUE_PLACE.match(value) or _PRONOUN.match(value):
        return False
    if lang == "en" or value.isascii():
        words = value.split()
        return 1 <= len(words) <= 4 and all(w[:1].isupper() or w.lower() in ("of", "de", "upon") for w in words) \
            and not _SENTENCE_WORDS_EN.search(value)
    if len(value) > 12 or _SENTENCE_WORDS_ZH.search(value) or "的" in value:
        return False
    return tagger is None or _zh_place_tag(tagger, value) or bool(_PLACE_SUFFIX.search(value))


def value_ok(predicate: str, value: str, lang: str, tagger: Tagger | None = None) -> bool:
    """Whether ``value`` is a plausible value of ``predicate`` (see the module docstring).

    :param tagger: a Chinese part-of-speech tagger; with one, a Chinese place must also tag as one.
    """
    value = value.strip()
    if not value or _PRONOUN.match(value):
        return False
    most = MAX_VALUE_CHARS.get(lang, 48) + (16 if predicate in ("habit", "hobby") else 0)  # a schedule takes words
    if len(value) > most and not _IDENTIFIER.fullmatch(value):
        return False
    if predicate in _PLACE_SLOTS:
        return place_like(value, lang, tagger)
    if predicate == "age":
        digits = re.sub(r"\D", "", value)
        return bool(_DIGIT.search(value)) and (not digits or int(digits) <= 130)
    if predicate in _QUANTITY_SLOTS or predicate == "height":
        return bool(_DIGIT.search(value))
    if predicate in _PERSON_SLOTS:
        return person_like(value) or (lang == "zh" and len(value) <= 4 and not _SENTENCE_WORDS_ZH.search(value))
    if predicate == "job_title":
        return bool(JOB_SUFFIX.search(value) or EN_JOB.search(value))
    if predicate == "employer" and lang == "zh":
        return len(value) <= 12 and not _SENTENCE_WORDS_ZH.search(value)
    if predicate == "model":
        return bool(re.search(r"[A-Za-z\u4e00-\u9fff]", value)) and len(value) >= 2
    if predicate == "uses" and (theme_value(value) or language_value(value) or VERSION_RE.search(value)):
        return False  # a theme, a language or a versioned tool has a slot of its own (patterns_zh/en)
    if predicate in ("habit", "likes", "visited") and lang == "zh" and (
            _SENTENCE_WORDS_ZH.search(value) or _EVALUATIVE_ZH.search(value) or value.endswith(("那", "这"))):
        return False  # a review's "平时拍照用挺不错" is an opinion, not a habit
    if predicate in ("owns", "allergy", "health_condition", "diet", "habit", "uses", "likes", "dislikes"):
        words = value.split()
        most = 10 if predicate in ("habit", "hobby") else 7  # a schedule takes words: "swim at the Y three mornings a week"
        return (len(value) <= 16 if lang == "zh" else len(words) <= most) and not re.search(r"[？?]", value)
    if lang == "zh" and (_EVALUATIVE_ZH.search(value) or re.search(r"[很挺太]|非常|特别", value)):
        return False  # an attribute's value is a fact (北京, 三千人), not a judgement (简洁又时尚, 挺好)
    return True
