"""Protected atoms: the parts of a text two claims must share before anything may treat them as one.

:func:`protected_atoms` pulls numbers, versions, IPs, ports, dates, relative days, weekdays,
paths, negation markers, quoted strings, person and place names and entity identifiers out of a
text, each in a canonical form (``周三``/``星期三``/``Wednesday`` → ``wd3``, ``两`` → ``2``,
``明天``/``tomorrow`` → ``d+1``). The heuristics are deliberately over-protective: a false atom can
only make two claims look *different* (kept apart), never the same. :func:`fold` and
:func:`content_key` are the text normal forms shared by admission and dedup.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator

from attrs import frozen

#: Atom kinds, in the order reasons are reported.
KINDS = ("numbers", "versions", "ips", "ports", "dates", "relative", "weekdays", "paths",
         "negations", "quoted", "names", "places", "entities")
#: Kinds compared as multisets (a repeated number or a double negation counts twice).
MULTISET_KINDS = frozenset({"numbers", "negations"})


@frozen
class ProtectedAtoms:
    """Canonical atoms of one text, per kind, as sorted tuples."""

    numbers: tuple[str, ...] = ()
    versions: tuple[str, ...] = ()
    ips: tuple[str, ...] = ()
    ports: tuple[str, ...] = ()
    dates: tuple[str, ...] = ()
    relative: tuple[str, ...] = ()
    weekdays: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    negations: tuple[str, ...] = ()
    quoted: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    places: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()

    def items(self) -> Iterator[tuple[str, tuple[str, ...]]]:
        """``(kind, atoms)`` pairs in :data:`KINDS` order."""
        return ((kind, getattr(self, kind)) for kind in KINDS)

    def differing_kinds(self, other: ProtectedAtoms) -> tuple[str, ...]:
        """The kinds whose atoms differ between ``self`` and ``other``."""
        return tuple(kind for kind, atoms in self.items() if atoms != getattr(other, kind))


# --- text normal forms -------------------------------------------------------------------------

def _is_cjk(ch: str) -> bool:
    o = ord(ch)
    return 0x2E80 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0x20000 <= o <= 0x3FFFF


def _is_spaced(ch: str) -> bool:
    """A letter or digit of a script that separates words with spaces (not CJK)."""
    return ch.isalnum() and not _is_cjk(ch)


#: Punctuation that is part of a token wherever it stands (paths, snake_case, 50%, #3, a@b).
_ALWAYS_KEPT = frozenset("/\\_%#@&*")


def fold(text: str) -> str:
    """NFKC, casefold, whitespace folded: runs become one space, and none is kept next to CJK."""
    t = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    out = [c for i, c in enumerate(t) if c != " " or not (_is_cjk(t[i - 1]) or _is_cjk(t[i + 1]))]
    return "".join(out)


def content_key(text: str) -> str:
    """:func:`fold` without punctuation that is not part of a token.

    Punctuation stays when it joins two letters or digits (``v1.2``, ``10:30``, ``don't``), leads a
    number or a name (``-5``, ``.env``) or is a path/identifier character; sentence punctuation
    (``，。!?``, quotes, brackets) goes. Digits are never dropped.
    """
    t = unicodedata.normalize("NFKC", text).casefold()
    out: list[str] = []
    for i, c in enumerate(t):
        if unicodedata.category(c).startswith("P") and c not in _ALWAYS_KEPT:
            prev = t[i - 1] if i else ""
            nxt = t[i + 1] if i + 1 < len(t) else ""
            joins = _is_spaced(prev) and _is_spaced(nxt)
            leads = c in "-+." and nxt[:1].isalnum() and not _is_spaced(prev) and not _is_cjk(nxt)
            if not (joins or leads or (c == "." and nxt in ("/", "\\"))):
                c = " "
        out.append(c)
    return fold("".join(out))


def skeleton(text: str) -> str:
    """Letters and digits only (for similarity, never for equality)."""
    return "".join(c for c in content_key(text) if c.isalnum())


# --- extraction helpers ------------------------------------------------------------------------

_A = r"(?<![A-Za-z0-9_])"  # ASCII word boundaries: \b treats CJK as word characters
_Z = r"(?![A-Za-z0-9_])"
_HAN = r"[\u4e00-\u9fff]"


def _take(pattern: re.Pattern[str], text: str, canon: Callable[[re.Match[str]], str | None]) -> tuple[list[str], str]:
    """Canonical atoms of every match, and ``text`` with the matches blanked out."""
    found: list[str] = []
    matched = False
    for m in pattern.finditer(text):
        matched = True
        value = canon(m)
        if value:
            found.append(value)
    if not matched:  # the usual case: no second pass over the text
        return found, text
    return found, pattern.sub(lambda m: "\0" * len(m.group(0)), text)


_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
              "八": 8, "九": 9}
_CN_UNITS = {"十": 10, "百": 100, "千": 1000}
_CN_BIG = {"万": 10_000, "亿": 100_000_000}


def cn_number(s: str) -> int | None:
    """Value of a simple Chinese numeral (``三``, ``十二``, ``两百零五``, ``二〇二四``), else None."""
    if not s or len(s) > 16:
        return None
    if all(c in _CN_DIGITS for c in s):
        return int("".join(str(_CN_DIGITS[c]) for c in s))
    total = section = digit = 0
    for c in s:
        if c in _CN_DIGITS:
            digit = _CN_DIGITS[c]
        elif c in _CN_UNITS:
            section += (digit or 1) * _CN_UNITS[c]
            digit = 0
        elif c in _CN_BIG:
            total += (section + digit) * _CN_BIG[c]
            section = digit = 0
        else:
            return None
    return total + section + digit


_WD_CN = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "日": 7, "天": 7, "末": 0}
_WD_EN = {"monday": 1, "tuesday": 2, "wednesday": 3, "thursday": 4, "friday": 5, "saturday": 6,
          "sunday": 7, "weekend": 0}
_MONTHS_EN = {m: i for i, m in enumerate(
    ("january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"), start=1)}
_MOD = {"上上": "-2", "上": "-1", "这": "+0", "本": "+0", "下": "+1", "下下": "+2",
        "last": "-1", "this": "+0", "next": "+1"}
_REL_WORDS = {
    "大前天": "d-3", "前天": "d-2", "昨天": "d-1", "昨日": "d-1", "昨晚": "d-1", "今天": "d+0",
    "今日": "d+0", "今晚": "d+0", "今早": "d+0", "明天": "d+1", "明日": "d+1", "明晚": "d+1",
    "明早": "d+1", "后天": "d+2", "大后天": "d+3", "去年": "y-1", "前年": "y-2", "今年": "y+0",
    "明年": "y+1", "后年": "y+2", "本月": "m+0", "凌晨": "t:night", "早上": "t:am", "早晨": "t:am",
    "上午": "t:am", "中午": "t:noon", "下午": "t:pm", "傍晚": "t:eve", "晚上": "t:eve",
    "the day before yesterday": "d-2", "the day after tomorrow": "d+2", "day before yesterday": "d-2",
    "day after tomorrow": "d+2", "yesterday": "d-1", "today": "d+0", "tonight": "d+0",
    "tomorrow": "d+1", "morning": "t:am", "noon": "t:noon", "afternoon": "t:pm", "evening": "t:eve",
    "a.m.": "t:am", "p.m.": "t:pm",
}
_REL_RE = re.compile("|".join(
    (re.escape(w) if _is_cjk(w[0]) else _A + re.escape(w) + _Z)
    for w in sorted(_REL_WORDS, key=len, reverse=True)), re.IGNORECASE)
_PERIOD_RE = re.compile(
    r"(上上|下下|上|下|这|本)个?(?:(周|星期|礼拜)([一二三四五六日天末])?|(月))"
    r"|(?:周|星期|礼拜)([一二三四五六日天末])"
    rf"|{_A}(?:(last|this|next)\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend"
    rf"|week|month|year){_Z}", re.IGNORECASE)


def _periods(text: str) -> tuple[list[str], list[str], str]:
    relative: list[str] = []
    weekdays: list[str] = []

    def canon(m: re.Match[str]) -> str | None:
        mod, unit_cn, day_cn, month_cn, bare_day, mod_en, word = m.groups()
        if mod and month_cn:
            relative.append("m" + _MOD[mod])
        elif mod:
            relative.append("w" + _MOD[mod])
        day = day_cn or bare_day
        if day:
            weekdays.append(f"wd{_WD_CN[day]}")
        if word:
            word = word.lower()
            if word in _WD_EN:
                weekdays.append(f"wd{_WD_EN[word]}")
                if mod_en:
                    relative.append("w" + _MOD[mod_en.lower()])
            elif mod_en:
                relative.append(word[0] + _MOD[mod_en.lower()])
        return "x"

    _, rest = _take(_PERIOD_RE, text, canon)
    words, rest = _take(_REL_RE, rest, lambda m: _REL_WORDS[m.group(0).lower()])
    return relative + words, weekdays, rest


_DATE_RES: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str | None]], ...] = (
    (re.compile(r"(?<!\d)(\d{4})\s*[-/.年]\s*(\d{1,2})(?:\s*[-/.月]\s*(\d{1,2})\s*[日号]?)?(?!\d)"),
     lambda m: "-".join(_digits(g) for g in m.groups() if g)),
    (re.compile(r"(?<!\d)(\d{1,2}|[一二三四五六七八九十]{1,3})\s*月份?(?:\s*(\d{1,2}|[一二三四五六七八九十]{1,3})\s*[日号])?"),
     lambda m: "m" + "-".join(_digits(g) if g.isdigit() else str(cn_number(g)) for g in m.groups() if g)),
    (re.compile(rf"{_A}(january|february|march|april|may|june|july|august|september|october|november"
                rf"|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec){_Z}\.?"
                rf"(?:\s+(\d{{1,2}})(?:st|nd|rd|th)?{_Z})?", re.IGNORECASE),
     lambda m: _month_en(m.group(1), m.group(2))),
)


def _month_en(name: str, day: str | None) -> str | None:
    key = next((k for k in _MONTHS_EN if k.startswith(name.lower().rstrip("t"))), None)
    if key is None or (key == "may" and day is None):  # "may" alone is the modal verb
        return None
    return f"m{_MONTHS_EN[key]}" + (f"-{_digits(day)}" if day else "")


_NUMBER_RE = re.compile(r"(?:(?<![0-9A-Za-z])[-+−])?\d+(?:[.:]\d+)*")
_CN_NUMBER_RE = re.compile(r"[零〇一二两三四五六七八九十百千万亿]+")
_CN_NOT_NUMBERS = re.compile(r"一起|一下|一些|一直|一般|一样|一定|一切|一致|一旦|一会|一边|一向|统一|唯一|万一|十分|千万|一点点")
_IP_RE = re.compile(r"(?<![\d.])\d{1,3}(?:\.\d{1,3}){3}(?!\.?\d)")
_VERSION_RE = re.compile(
    rf"(?:{_A}v(\d+(?:\.\d+)*)|{_A}(\d+(?:\.\d+){{2,3}})|(?:版本号?|{_A}version|{_A}ver\.?)\s*[:：]?\s*"
    rf"(?:是|为|is)?\s*v?(\d+(?:\.\d+)*))(?:-?((?:alpha|beta|rc|dev|post)\.?\d*))?{_Z}", re.IGNORECASE)
_PORT_RE = re.compile(
    r"(?:(?<![\d.])\d{1,3}(?:\.\d{1,3}){3}|localhost|\]|(?<![A-Za-z0-9.-])[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+):(\d{1,5})(?!\d)"
    rf"|{_A}ports?\s*(?:[:=#]|is|number)?\s*(\d{{1,5}})(?!\d)"
    r"|端口号?\s*(?:[:：]|是|为|改成了?|改为|设为)?\s*(\d{1,5})(?!\d)|(?<!\d)(\d{1,5})\s*端口", re.IGNORECASE)
_URL_RE = re.compile(r"(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*://[^\s\"'<>，。）)]+", re.IGNORECASE)
_PATH_RE = re.compile(
    r"(?<![A-Za-z0-9_/.~:\\])(?:~|\.{1,2})?/[A-Za-z0-9_.\-@+~]+(?:/[A-Za-z0-9_.\-@+~]*)*"
    r"|(?<![A-Za-z0-9])[A-Za-z]:\\[^\s\\:*?\"<>|，。]*(?:\\[^\s\\:*?\"<>|，。]*)*")
_QUOTED_RE = re.compile(r"\"([^\"]+)\"|“([^”]+)”|「([^」]+)」|『([^』]+)』|《([^》]+)》|‘([^’]+)’|`([^`]+)`")
_NEGATION_RE = re.compile(
    r"禁止|无法|无需|无须|不(?!过|仅|但|管|久|少|断)|没|未(?!来)|别(?![人的处名])|勿|莫(?!名)|非(?!常)"
    rf"|无(?![论锡])|否(?!则)|n['’]t{_Z}|{_A}(?:not|never|no|none|nobody|nothing|neither|nor|without|cannot){_Z}",
    re.IGNORECASE)

_SURNAMES = frozenset("王李张刘陈杨赵吴徐孙马朱胡郭林罗郑梁谢宋唐韩冯邓曹彭肖董袁潘蒋蔡杜魏吕丁沈姚卢"
                      "姜崔钟谭陆汪范廖贾韦邹孟熊秦邱尹薛闫侯陶黎贺顾郝龚邵覃戴孔")
_NOT_NAMES = frozenset({"马上", "陈述", "张开", "张贴", "王国", "丁点", "孔子", "林业", "罗列", "宋体", "唐朝"})
_NAME_STOP = frozenset("的了是在和与跟及或也都就还说叫把被给对向从要会很")
_NAME_AFTER_RE = re.compile(rf"(?:名叫|叫做|叫|姓)({_HAN}{{1,3}})")
_EN_NAME_RE = re.compile(rf"{_A}[A-Z][a-z]+{_Z}")
_EN_NOT_NAMES = frozenset(
    "i a an the my our your his her its their we he she it they you this that these those there here "
    "what when where who why how user users yes no ok hi hello dear mr mrs ms dr please thanks also and but "
    "or if so then".split())
_PLACE_RE = re.compile(rf"({_HAN}{{2,5}}?)(?:市(?![场民值面])|省(?![钱事得略心])|区(?![别域分间])|县)")
_PLACE_LEAD = "在住到去于从来自搬往回是我你他她的"
_GAZETTEER = ("北京", "上海", "天津", "重庆", "广州", "深圳", "杭州", "南京", "苏州", "成都", "武汉",
              "西安", "长沙", "郑州", "青岛", "厦门", "大连", "沈阳", "哈尔滨", "昆明", "香港", "澳门",
              "台北", "合肥", "福州", "济南", "宁波", "东京", "纽约", "伦敦", "巴黎", "beijing",
              "shanghai", "shenzhen", "guangzhou", "hangzhou", "london", "paris", "tokyo", "berlin",
              "seattle", "singapore", "new york", "san francisco", "hong kong")
_ENTITY_RE = re.compile(
    rf"{_A}(?:[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)+|[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+"
    rf"|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z]{{2,}}[0-9]*|[A-Za-z]+\d+[A-Za-z0-9]*"
    rf"|[\w-]+\.(?:py|js|ts|json|ya?ml|toml|md|txt|conf|cfg|ini|sh|log|sql|db|env)){_Z}(?!\.\d)")


def _cut(name: str) -> str:
    """``name`` up to its first particle (``张伟的`` → ``张伟``)."""
    for i, c in enumerate(name):
        if c in _NAME_STOP:
            return name[:i]
    return name


def _names(text: str) -> list[str]:
    found = [n for m in _NAME_AFTER_RE.finditer(text) if (n := _cut(m.group(1)))]
    for i, ch in enumerate(text):
        if ch not in _SURNAMES or (i and (text[i - 1] in "这那每几" or cn_number(text[i - 1]) is not None)):
            continue
        tail = ""
        for c in text[i + 1:i + 3]:
            if not re.match(_HAN, c) or c in _NAME_STOP:
                break
            tail += c
        if tail and ch + tail[:1] not in _NOT_NAMES:
            found.append(ch + tail)
    found += [w.casefold() for w in _EN_NAME_RE.findall(text) if w.casefold() not in _EN_NOT_NAMES]
    return found


def _places(text: str) -> list[str]:
    found = [m.group(1).lstrip(_PLACE_LEAD) + m.group(0)[len(m.group(1)):] for m in _PLACE_RE.finditer(text)]
    found = [p.removesuffix("市") for p in found if len(p.removesuffix("市")) >= 2]
    lowered = text.casefold()
    return found + [g for g in _GAZETTEER if g in lowered]


def _digits(s: str) -> str:
    """A digit string without leading zeros (no ``int()``: it refuses very long strings)."""
    return s.lstrip("0") or "0"


def _version(m: re.Match[str]) -> str | None:
    core = next(g for g in m.groups()[:3] if g)
    if _IP_RE.fullmatch(core):
        return None
    return ".".join(_digits(p) for p in core.split(".")) + (f"-{m.group(4).lower()}" if m.group(4) else "")


def _negation(marker: str) -> str:
    marker = marker.lower()
    return "not" if marker in ("n't", "n’t", "cannot") else "无需" if marker == "无须" else marker


def protected_atoms(text: str) -> ProtectedAtoms:
    """Every protected atom of ``text``, canonicalised (see the module docstring).

    :param text: any text; it is NFKC-normalised first.
    """
    t = unicodedata.normalize("NFKC", text)
    quoted = [fold(next(g for g in m.groups() if g)) for m in _QUOTED_RE.finditer(t)]
    urls, rest = _take(_URL_RE, t, lambda m: m.group(0).rstrip(".,;:!?"))
    paths = urls + [p.rstrip(".") for p in _PATH_RE.findall(rest)]
    ports = [_digits(next(g for g in m.groups() if g)) for m in _PORT_RE.finditer(t)]
    versions = [v for m in _VERSION_RE.finditer(t) if (v := _version(m))]
    relative, weekdays, rest = _periods(rest)
    dates: list[str] = []
    for pattern, canon in _DATE_RES:
        found, rest = _take(pattern, rest, canon)
        dates += found
    # Every digit run of the whole text is a number, whatever else it is part of: a changed digit
    # anywhere must change the atoms.
    numbers = [n.replace("−", "-") for n in _NUMBER_RE.findall(t)]
    for run in _CN_NUMBER_RE.findall(_CN_NOT_NUMBERS.sub("\0", rest)):
        value = cn_number(run)
        numbers.append(run if value is None else str(value))

    def pack(kind: str, values: list[str]) -> tuple[str, ...]:
        return tuple(sorted(values if kind in MULTISET_KINDS else set(values)))

    return ProtectedAtoms(
        numbers=pack("numbers", numbers), versions=pack("versions", versions),
        ips=pack("ips", _IP_RE.findall(t)), ports=pack("ports", ports), dates=pack("dates", dates),
        relative=pack("relative", relative), weekdays=pack("weekdays", weekdays), paths=pack("paths", paths),
        negations=pack("negations", [_negation(n) for n in _NEGATION_RE.findall(t)]),
        quoted=pack("quoted", quoted), names=pack("names", _names(rest)), places=pack("places", _places(rest)),
        entities=pack("entities", [e.casefold() for e in _ENTITY_RE.findall(t)]),
    )
