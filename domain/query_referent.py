"""A question about "the one whose …": the referent's condition and what is asked of it (pure).

"那个电话是132…的人，他在哪里工作？", "What is the email of the person whose phone is 555?": the
answer is two notes apart, one that says who or what meets the condition and one that says what
is asked of them; recall follows the first note's head to the second (docs/recall.md, ADR 0057).
"""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"\w", re.UNICODE)


def _enough(text: str) -> bool:
    """Whether ``text`` holds at least two word characters."""
    return len(_WORD.findall(text)) >= 2

__all__ = ["note_head", "referent"]


_ZH_REFERENT = re.compile(
    r"那个(?P<cond>.{2,120}?)的(?P<noun>[\u4e00-\u9fff]{0,4}?)\s*[,，]\s*(?P<asked>\S.*)", re.DOTALL)
_EN_REFERENT = re.compile(
    r"(?P<pre>.*?)\b(?:the|that)\s+(?:person|one|guy|woman|man|friend|event|activity|place|thing)\s+"
    r"(?:who|whose|that|which|where)\s+(?P<cond>[^?]+?)(?P<post>\s*,\s*[^?]*)?\??\s*$", re.IGNORECASE | re.DOTALL)
_ZH_HEAD = re.compile(r"^(?:我的|我们的|我们|我)?(?P<head>[^，,。！？!?\s的是叫在住有将要和他她]{2,20})")
_EN_HEAD = re.compile(r"^(?:my\s+)?(?P<head>[A-Za-z][\w-]*(?:\s+[A-Z][\w-]*)?)(?:'s|\s+(?:is|was|lives|works|has))\b",
                      re.IGNORECASE)


def referent(question: str) -> tuple[str, str] | None:
    """``(condition, asked)`` when ``question`` asks about something by what is known of it
    ("那个电话是132…的人，他在哪里工作？", "What is the email of the person whose phone is 555?"),
    else None. The answer is two notes apart: one that says who or what meets the condition, and
    one that says what is asked of them (recall follows the first note's head to the second,
    docs/recall.md)."""
    text = unicodedata.normalize("NFKC", question or "").strip()
    m = _ZH_REFERENT.search(text)
    if m and _enough(m.group("asked")):
        return m.group("cond").strip(), m.group("asked").strip()
    m = _EN_REFERENT.match(text)
    if m:
        asked = f"{m.group('pre')} {m.group('post') or ''}".strip(" ,")
        if _asks_something(asked):
            return m.group("cond").strip(), asked
    return None


#: Words that ask nothing by themselves: "Is the friend who wrote … no longer alive?" asks about
#: the friend as a whole (a yes/no question), not for something of theirs.
_EN_FRAME = frozenset("""is are was were am be been do does did has have had can could will would shall should
may might must what which who whom where when how why the a an of to and or so then""".split())


def _asks_something(asked: str) -> bool:
    """Whether the part left around "the one who …" names what is asked of it ("What is the email
    of", "where does he work"), not only a question's frame ("Is", "Did")."""
    return any(w.casefold() not in _EN_FRAME for w in re.findall(r"[A-Za-z]+", asked)) and _enough(asked)


def note_head(text: str) -> str | None:
    """What a note is about, read off its start: 表弟 for "我表弟的电话号码是…", 文学创想阅享会 for
    "文学创想阅享会的地点是…", cousin for "My cousin's phone is…" (None when no head is found)."""
    text = unicodedata.normalize("NFKC", text or "").strip()
    m = _ZH_HEAD.match(text)
    if m and re.search(r"[\u4e00-\u9fff]", m.group("head")):
        return m.group("head")
    m = _EN_HEAD.match(text)
    return m.group("head") if m else None
