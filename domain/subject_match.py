"""Whether a claim's subject is the person a question asks about (ADR 0089, ADR 0098).

A question's reading (:mod:`hlmem.domain.asked_subject`) gives an :class:`AskedSubject`: an anchor
(:data:`~hlmem.domain.relations.USER_NAME` or a name) and the kin words that lead from it ("我妹" ->
user, 妹). Extraction writes subjects as ``用户``, ``Bob``, ``user's sister``, ``用户的妹妹``, ``my mom``,
``Tom's manager``: :func:`subject_chain` reads those the same way, and :func:`is_asked` tells whether
one is the person asked, across the two languages (``sister`` ≈ 姐姐/妹妹, 妹 ≠ 姐姐).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from types import MappingProxyType

from attrs import frozen

from hlmem.domain.kin_words import kin_type
from hlmem.domain.relations import USER_NAME
from hlmem.domain.state import SELF_SUBJECTS

__all__ = ["USER_WORDS", "AskedSubject", "fold_name", "is_asked", "same_kin", "subject_chain"]


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
#: Words a subject's anchor may be the user by (``用户``, ``user``, ``my``, 我们 …).
USER_WORDS = frozenset({*SELF_SUBJECTS, "my", "mine", "我们", "咱", "咱们", "俺"})
#: "my mom", "our dog" as a subject: the user's relative or thing, as "user's mom" is.
_MY_HEAD = re.compile(r"(?i)^(?:my|our)\s+(?=\S)")


def fold_name(text: str) -> str:
    """``text`` NFKC-normalised, its spaces single, case-folded: names compare this way."""
    return " ".join(unicodedata.normalize("NFKC", text).split()).casefold()


def subject_chain(subject: str) -> tuple[str, tuple[str, ...]]:
    """A subject as extraction writes it, as (anchor, kin words): ``user's sister`` -> (user,
    ("sister",)), ``用户的老婆的哥哥`` -> (user, ("老婆", "哥哥")), ``my mom`` -> (user, ("mom",)), ``Bob`` -> (Bob, ())."""
    text = unicodedata.normalize("NFKC", subject).strip()
    parts = [p for p in _CHAIN_SPLIT.split(_MY_HEAD.sub("my's ", text)) if p.strip()]
    if not parts:
        return subject, ()
    anchor = parts[0].strip()
    if fold_name(anchor) in USER_WORDS:
        anchor = USER_NAME
    return anchor, tuple(p.strip() for p in parts[1:])


def _same_anchor(asked: str, stored: str) -> bool:
    if asked == USER_NAME or stored == USER_NAME:
        return asked == stored
    a, b = fold_name(asked), fold_name(stored)
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
