"""The questions a query asks: compound questions split, and a speaker's correction followed (pure).

People (and agents forwarding what people typed or said) often ask two things at once, or talk
before they get to the point:

- **Compound questions**: "我上司的邮箱是多少？另外，我的手机是什么型号？", "Where does Caroline
  work? Also, when is her birthday?". Searched as one text, the first question's words take
  every slot. Recall searches each part on its own and interleaves their best items
  (docs/recall.md, ADR 0057).
- **A correction**: "今天天气真好……不好意思，我真正想问的是：那个持续五个周的活动在哪？",
  "… sorry, what I actually want to know is where Melanie lives". The speaker has disowned what
  came before the cue: recall searches only what follows it.

The cues are literal and few, like :mod:`hlmem.domain.list_intent`'s. A split needs a sentence end
(?, 。, !, ;) right before the marker and a comma or colon right after it (Chinese) or a sentence
start (English), so "另外一个朋友" or "also known as" never split. A correction needs a word
that disowns the text before it (真正, 实际, 其实, 本来, 原本, 搞错, 对了; really, actually,
meant, real question), not a plain "我想问", which often keeps useful context before it.
Each part must keep at least two word characters, else it stays joined to its neighbour.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["MAX_PARTS", "focus", "note_head", "question_parts", "referent", "split_compound"]

#: At most this many parts are searched; the rest stays joined to the last one.
MAX_PARTS = 4

_ZH_SPLIT = re.compile(
    r"(?<=[?？。!！;；])\s*(?:另外|此外|还有|再有|再就是|还想问(?:一下|下)?|顺便(?:问(?:一下|下|问)?)?|再问(?:一下|下)?)"
    r"\s*[，,：:、]\s*")
_EN_SPLIT = re.compile(
    r"(?<=[?.!;])\s+(?:also|and\s+also|additionally|besides|plus|by\s+the\s+way|btw|another\s+(?:question|thing)"
    r"(?:\s+is)?|one\s+more\s+(?:question|thing)|and\s+another\s+thing)\s*[,:]?\s+", re.IGNORECASE)

# A Chinese correction: a disowning word, a few characters, then 想问/想说/想知道/问题 and 是/就是
# (optionally 这个/这样), ending at a comma or colon.
_ZH_FOCUS = re.compile(
    r"(?:真正|实际|其实|本来|原本|实在)[^。！？!?：:，,]{0,4}?"
    r"(?:想要?(?:问|说|知道|了解|弄清楚|搞清楚|弄明白|搞明白|确认|打听)|的?问题)"
    r"[^。！？!?：:，,]{0,3}?(?:是|就是)?(?:这个|这样|如下)?\s*[：:，,]"
    r"|(?:搞错了|说错了|问错了|对了|言归正传|说正事|说正经的)\s*[，,：:]\s*(?:我)?(?:想要?问|想知道|想了解|问一下)"
    r"(?:一下|的是|的问题是)?\s*[：:，,]?"
    r"|(?:^|(?<=[。！？!?]))\s*(?:等等|等一下|停一下|不对|且慢)\s*[，,]\s*(?:[诶欸哎唉嗯额呃]\s*[，,]\s*)?"
    r"(?:(?:等等|等一下)\s*[，,]\s*)?")
_EN_FOCUS = re.compile(
    r"\b(?:what\s+i\s+(?:really|actually|meant\s+to|wanted\s+to)\s+(?:want(?:ed)?\s+to\s+|meant\s+to\s+)?"
    r"(?:ask|know|say|mean)t?(?:\s+(?:is|was))?"
    r"|my\s+(?:real|actual)\s+question\s+(?:is|was)"
    r"|(?:sorry|wait|actually|anyway),?\s+(?:what\s+)?i\s+(?:meant|mean)\s+(?:to\s+ask\s+)?(?:is|was)?"
    r"|(?:sorry|wait|anyway),?\s+(?:i\s+)?(?:actually\s+)?(?:wanted|want)\s+to\s+(?:ask|know))\s*[:,]?\s*",
    re.IGNORECASE)
_WORD = re.compile(r"\w", re.UNICODE)


def _enough(text: str) -> bool:
    """Whether ``text`` holds at least two word characters (a question of its own)."""
    return len(_WORD.findall(text)) >= 2


def split_compound(query: str) -> tuple[str, ...]:
    """``query``'s questions, in order (one part when it asks one thing); parts are stripped text.

    At most :data:`MAX_PARTS`; a part without two word characters joins the one before it.
    """
    text = unicodedata.normalize("NFKC", query or "")
    cuts = sorted({(m.start(), m.end()) for pattern in (_ZH_SPLIT, _EN_SPLIT) for m in pattern.finditer(text)})
    parts: list[str] = []
    cursor = 0
    for start, end in cuts:
        if start < cursor:
            continue
        parts.append(text[cursor:start])
        cursor = end
    parts.append(text[cursor:])
    kept: list[str] = []
    for part in (p.strip() for p in parts):
        if kept and (not _enough(part) or len(kept) == MAX_PARTS):
            kept[-1] = f"{kept[-1]} {part}".strip()
        elif part:
            kept.append(part)
    if len(kept) > 1 and not _enough(kept[0]):
        kept[:2] = [f"{kept[0]} {kept[1]}".strip()]
    return tuple(kept) if len(kept) > 1 else (query.strip(),)


def focus(question: str) -> str | None:
    """What follows the last correction cue in ``question`` (NFKC, stripped), or None when it has
    none or too little follows it."""
    text = unicodedata.normalize("NFKC", question or "")
    last = None
    for pattern in (_ZH_FOCUS, _EN_FOCUS):
        for m in pattern.finditer(text):
            if last is None or m.end() > last:
                last = m.end()
    if last is None:
        return None
    rest = text[last:].strip()
    return rest if _enough(rest) and rest != text.strip() else None


def question_parts(query: str) -> tuple[str, ...]:
    """The questions recall searches for ``query``: its compound parts, each narrowed to what
    follows a correction cue. ``(query,)`` when it asks one thing and corrects nothing."""
    return tuple(focus(part) or part for part in split_compound(query))


# --- a question about "the one whose …": the referent's condition and what is asked of it -----

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
        if _enough(asked):
            return m.group("cond").strip(), asked
    return None


def note_head(text: str) -> str | None:
    """What a note is about, read off its start: 表弟 for "我表弟的电话号码是…", 文学创想阅享会 for
    "文学创想阅享会的地点是…", cousin for "My cousin's phone is…" (None when no head is found)."""
    text = unicodedata.normalize("NFKC", text or "").strip()
    m = _ZH_HEAD.match(text)
    if m and re.search(r"[\u4e00-\u9fff]", m.group("head")):
        return m.group("head")
    m = _EN_HEAD.match(text)
    return m.group("head") if m else None
