"""Whether a text holds a gold answer: a small, pure normaliser for the cost-effect benchmark.

Verbatim containment misses answers a reader would accept ("7 May 2023" against
"said 2023-05-07", "三个" against "3个", "Pottery, camping" spread over two lines). Both the
answer and the text are turned into the same tokens and the answer's parts are looked for in the
text's tokens:

- Unicode NFKC, case folded, English articles (a, an, the) dropped, punctuation removed;
- dates in any of the usual forms become one token: ``2023-05-08``, ``2023/5/8``,
  ``2023-05-08T13:56Z``, ``8 May 2023``, ``8th May, 2023``, ``May 8, 2023``, ``2023年5月8日``
  (``号`` too) → ``@2023-05-08``; without a year (``8 May``, ``5月8日``) → ``@*-05-08``; a month
  and a year (``May 2023``, ``2023年5月``) → ``@2023-05``;
- numbers: ``1,000`` → ``1000``; English number words up to ninety-nine (``twenty-one`` → ``21``);
  Chinese numerals (``三百五十`` → ``350``, ``两个`` → ``2个``, ``二〇二三年`` → ``2023年``) when a
  run is two characters or more, or one character followed by a measure word or preceded by 第;
- ``厘米``/``毫米``/``公里``/``千米``/``公斤``/``千克`` after a number become ``cm``/``mm``/``km``/``kg``;
- ASCII words and numbers are tokens, split where letters meet digits (``5km`` is ``5 km``,
  ``Reno7`` is ``Reno 7``); every other character (Han, kana, Hangul) is a token of its own, so
  Chinese is matched character by character.

An answer is split into parts at ``,`` ``;`` ``、`` ``，`` ``；`` and the words "and", "和",
"以及", "及" (after dates are read, so "May 8, 2023" stays one part); the text holds the answer
when it holds every part as a run of consecutive tokens, as written or with its adjacent ASCII
words glued (``OPPO Reno7`` is found in ``OPPOReno7``). Date tokens match leniently: a
year-less answer date matches any year, a month answer matches any day of that month, a year
(a four-digit number 1900–2100) matches a date in that year.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

_MONTHS = {name: i for i, names in enumerate(
    (("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
     ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
     ("november", "nov"), ("december", "dec")), start=1) for name in names}
_MONTH = "(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<d>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<y>(?:19|20)\d\d)"

# Order matters: the fullest forms first.
_DATES = [
    re.compile(rf"(?<!\d){_YEAR}[-/.](?P<m>[01]?\d)[-/.](?P<d>[0-3]?\d)(?:t\d\d:\d\d(?::\d\d)?z?)?(?!\d)"),
    re.compile(rf"{_YEAR}\s*年\s*(?P<m>[01]?\d)\s*月\s*(?P<d>[0-3]?\d)\s*[日号]"),
    re.compile(rf"(?<![\w]){_DAY}\s+(?P<mn>{_MONTH})\s*,?\s*{_YEAR}(?!\d)"),
    re.compile(rf"(?<![\w])(?P<mn>{_MONTH})\s+{_DAY}\s*,?\s*{_YEAR}(?!\d)"),
    re.compile(rf"{_YEAR}\s*年\s*(?P<m>[01]?\d)\s*月(?![\d])"),
    re.compile(rf"(?<![\w])(?P<mn>{_MONTH})\s*,?\s+{_YEAR}(?!\d)"),
    re.compile(r"(?<![\d年])(?P<m>[01]?\d)\s*月\s*(?P<d>[0-3]?\d)\s*[日号]"),
    re.compile(rf"(?<![\w]){_DAY}\s+(?P<mn>{_MONTH})(?![\w])"),
    re.compile(rf"(?<![\w])(?P<mn>{_MONTH})\s+{_DAY}(?![\w])"),
]

_WORD_NUMBERS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())}
_TENS = {w: 10 * i for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2)}
_WORD_NUMBER = re.compile(r"(?<![\w-])(?:(?P<t>" + "|".join(_TENS) + r")(?:[- ](?P<u>" + "|".join(list(_WORD_NUMBERS)[1:10])
                          + r"))?|(?P<n>" + "|".join(sorted(_WORD_NUMBERS, key=len, reverse=True)) + r"))(?![\w-])")

_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CN_UNITS = {"十": 10, "百": 100, "千": 1000}
_CN_BIG = {"万": 10_000, "亿": 100_000_000}
_CN_RUN = re.compile("[零〇一二两三四五六七八九十百千万亿]+")
#: Measure words and units after which a single Chinese numeral is a number (三个, 两人, 五岁).
_MEASURES = frozenset("个人位名次岁年月日号天周点只本台件元块条张辆层楼座所家份种首部门间杯瓶双套公米斤克分秒小")
_THOUSANDS = re.compile(r"(?<!\d)(\d{1,3})(?:,(\d{3}))+(?!\d)")
_TOKENS = re.compile(r"@[0-9*]{1,4}(?:-\d\d){1,2}|\d+(?:\.\d+)?|[a-z]+|[^\sa-z0-9]", re.I)
_ARTICLES = frozenset({"a", "an", "the"})
_SEPARATOR_WORDS = frozenset({"and", "和", "以及", "及"})
_SEPARATORS = frozenset(",;、，；")


def chinese_number(run: str) -> int | None:
    """The value of a run of Chinese numerals (``三百五十`` 350, ``二〇二三`` 2023, ``十五`` 15), None if malformed."""
    if not run:
        return None
    if all(c in _CN_DIGITS for c in run):  # read digit by digit: 二〇二三 is 2023
        return int("".join(str(_CN_DIGITS[c]) for c in run)) if len(run) > 1 else _CN_DIGITS[run]
    total = section = 0
    digit: int | None = None
    for c in run:
        if c in _CN_DIGITS:
            if digit is not None and digit != 0:
                return None  # two digits in a row inside a positional number
            digit = _CN_DIGITS[c]
        elif c in _CN_UNITS:
            section += (1 if digit is None else digit) * _CN_UNITS[c]
            digit = None
        else:
            section += digit or 0
            total = (total + section) * _CN_BIG[c] if total and _CN_BIG[c] > total else total + section * _CN_BIG[c]
            section, digit = 0, None
    return total + section + (digit or 0)


def _chinese_numbers(text: str) -> str:
    def repl(m: re.Match[str]) -> str:
        run = m.group()
        after = text[m.end():m.end() + 1]
        before = text[m.start() - 1:m.start()] if m.start() else ""
        if len(run) == 1 and after not in _MEASURES and before != "第" and run not in _CN_UNITS:
            return run
        if len(run) == 1 and run in _CN_BIG:
            return run
        value = chinese_number(run)
        return run if value is None else str(value)

    return _CN_RUN.sub(repl, text)


def _date_token(m: re.Match[str]) -> str:
    groups = m.groupdict()
    month = _MONTHS[groups["mn"].rstrip(".")] if groups.get("mn") else int(groups["m"])
    if not 1 <= month <= 12:
        return m.group()
    year = groups.get("y") or "*"
    if groups.get("d") is None:
        return f" @{year}-{month:02d} "
    day = int(groups["d"])
    if not 1 <= day <= 31:
        return m.group()
    return f" @{year}-{month:02d}-{day:02d} "


def _word_number(m: re.Match[str]) -> str:
    if m.group("n"):
        return str(_WORD_NUMBERS[m.group("n")])
    return str(_TENS[m.group("t")] + (_WORD_NUMBERS[m.group("u")] if m.group("u") else 0))


#: Chinese unit words written as their symbols after a number (160厘米 is 160cm).
_UNITS = (("厘米", "cm"), ("毫米", "mm"), ("公里", "km"), ("千米", "km"), ("公斤", "kg"), ("千克", "kg"))
_UNIT = re.compile(r"(?<=\d)\s*(" + "|".join(u for u, _ in _UNITS) + ")")


def _prepare(text: str) -> str:
    """NFKC, case folded, Chinese numerals and number words as digits, thousands joined, dates as tokens."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = _chinese_numbers(text)
    text = _UNIT.sub(lambda m: dict(_UNITS)[m.group(1)], text)
    text = _WORD_NUMBER.sub(_word_number, text)
    text = _THOUSANDS.sub(lambda m: m.group().replace(",", ""), text)
    for pattern in _DATES:
        text = pattern.sub(_date_token, text)
    return text


def _raw_tokens(text: str) -> list[str]:
    return [t for t in _TOKENS.findall(_prepare(text)) if t not in _ARTICLES]


def _is_word(token: str) -> bool:
    return token.startswith("@") or token.isalnum() and token.isascii() or unicodedata.category(token[0])[0] in "LN"


def normalise(text: str) -> tuple[str, ...]:
    """``text`` as matching tokens (dates ``@YYYY-MM-DD``, numbers as digits, no punctuation, no articles)."""
    return tuple(t for t in _raw_tokens(text) if _is_word(t))


def answer_parts(answer: str) -> list[tuple[str, ...]]:
    """The parts of a gold answer, each as tokens (split at commas, semicolons, 、 and "and"/和)."""
    parts: list[tuple[str, ...]] = []
    current: list[str] = []
    for token in _raw_tokens(str(answer)):
        if token in _SEPARATORS or token in _SEPARATOR_WORDS:
            if current:
                parts.append(tuple(current))
            current = []
        elif _is_word(token):
            current.append(token)
    if current:
        parts.append(tuple(current))
    return parts


def _token_matches(want: str, have: str) -> bool:
    if want == have:
        return True
    if want.startswith("@") and have.startswith("@"):
        w, h = want[1:].split("-"), have[1:].split("-")
        if len(h) < len(w):
            return False
        return all(a == "*" or a == b for a, b in zip(w, h))
    if have.startswith("@") and want.isdigit() and len(want) == 4 and 1900 <= int(want) <= 2100:
        return have[1:5] == want
    return False


def holds(tokens: Sequence[str], part: Sequence[str]) -> bool:
    """Whether ``part`` occurs in ``tokens`` as a run of consecutive tokens (dates matched leniently)."""
    n = len(part)
    if n == 0:
        return True
    first = part[0]
    for i in range(len(tokens) - n + 1):
        if _token_matches(first, tokens[i]) and all(_token_matches(part[j], tokens[i + j]) for j in range(1, n)):
            return True
    return False


def glued(part: Sequence[str]) -> tuple[str, ...]:
    """``part`` with each run of adjacent ASCII words written as one (``OPPO Reno7`` is also
    ``OPPOReno7``: the tokens ``opporeno``, ``7``)."""
    out: list[str] = []
    for token in part:
        if out and _letters(token) and _letters(out[-1]):
            out[-1] += token
        else:
            out.append(token)
    return tuple(out)


def _letters(token: str) -> bool:
    return token.isascii() and token.isalpha()


def contains_answer(tokens: Sequence[str], answer: str | Sequence[tuple[str, ...]]) -> bool | None:
    """Whether normalised ``tokens`` hold every part of ``answer``, as written or with its adjacent
    ASCII words glued (:func:`glued`); None when the answer has no tokens."""
    parts = answer_parts(answer) if isinstance(answer, str) else list(answer)
    if not parts:
        return None
    return all(holds(tokens, p) or holds(tokens, glued(p)) for p in parts)
