"""The questions a query asks: compound questions split, and a speaker's correction followed (pure).

People (and agents forwarding what people typed or said) often ask two things at once, correct
themselves, or talk before they get to the point:

- **Compound questions**: "我上司的邮箱是多少？另外，我的手机是什么型号？", "where does Tom work
  and when's his birthday", "Tom在哪上班，他生日几号". Searched as one text, the first question's
  words take every slot. Recall searches each part on its own and interleaves their best items
  (docs/recall.md, ADR 0057).
- **A correction**: "今天天气真好……不好意思，我真正想问的是：那个持续五个周的活动在哪？", "where
  does Tom work? wait no, where does he live?", "Anna的电话多少？不对不对，是她的邮箱". The speaker
  has disowned what came just before the cue (the question, or the chatter, right before it):
  recall searches what follows.

How (ADR 0083): the text is cut into sentences (after ? ！ 。 ; and line ends), and a sentence into
clauses where a comma or "and"/"also" joins two questions; each piece loses a leading connector
(另外，, 还有，, 对了，, 顺便问下, also, oh and, btw, by the way …). A piece **is a question** when it
ends with a question mark, holds a Chinese interrogative (什么, 哪, 谁, 多少, 几岁, 怎么, 是不是, a
final 吗/呢 …) or starts like an English question (what, where, is, does, can …, "remind me",
"I forgot when …"). Pieces that are not questions are context: they join the question after them
(or the last one). Two or more questions are the parts; one question with its context is the whole
query, as typed. A piece that starts with a correction cue (不对, 说错了, 哦不是, 算了, never mind,
scratch that, I meant, oops, wait no, sorry I mean; or a disowning 真正/其实想问的是, what I really
want to know is) drops the context right before it, or when there is none the question before it,
and keeps what follows the cue. Each part keeps at least two word characters, at most
:data:`MAX_PARTS` parts are searched.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

__all__ = ["MAX_PARTS", "focus", "is_question", "question_parts", "split_compound"]

#: At most this many parts are searched; the rest stays joined to the last one.
MAX_PARTS = 4

# --- pieces: sentences, and clauses joining two questions ------------------------------------------

_ENDS = frozenset("?？!！。;；\n")
_OPEN_QUOTES, _CLOSE_QUOTES = frozenset("“「『《（("), frozenset("”」』》）)")
_ZH_LEAD = re.compile(
    r"^\s*(?:(?:[两几三]个问题|问[两几三]件事|[两几三]件事)\s*[：:]\s*|(?:第[一二三四五]|[1-5][.)、])\s*[，,、：:]?\s*"
    r"|(?:另外|此外|还有|再有|再就是|然后|还有就是|对了|哦对了|噢对了|啊对了)\s*[，,：:、]"
    r"|(?:还想|再|顺便)问(?:一下|下|问)?\s*[，,：:、]?|顺便\s*[，,：:、]?)\s*")
_EN_LEAD = re.compile(
    r"^\s*(?:(?:(?:two|three|a\s+few|couple(?:\s+of)?)\s+(?:things|questions)\s*:|(?:1\)|2\)|3\))"
    r"|(?:first|second|third|oh|ah|and|also|plus|btw|by\s+the\s+way|besides|additionally"
    r"|another\s+(?:question|thing)(?:\s+is)?|one\s+more\s+(?:question|thing)(?:\s+is)?|and\s+another\s+thing"
    r"|ok(?:ay)?|so|hey|um+|hmm+)\b)[\s,:;\-–—]*)+",
    re.IGNORECASE)
#: A connector that starts a new question (另外，, also, btw …): what a later focus cue disowns stops
#: there (对了 and "oh and" do not: in chatter they only change the subject).
_NEW_SEGMENT = re.compile(
    r"^\s*(?:另外|此外|还有|再有|再就是|还有就是|还想问|再问|顺便"
    r"|(?:(?:oh\s+)?and\s+also|also|plus|btw|by\s+the\s+way|besides|additionally|another\s+(?:question|thing)"
    r"|one\s+more\s+(?:question|thing)|and\s+another\s+thing)\b)", re.IGNORECASE)
#: A clause that refers back to the one before it ("…，他叫什么名字"): asked together with it.
_REFERS_BACK = re.compile(r"^\s*(?:他们|她们|它们|他|她|它|其|这个|这(?![么样些里儿])|(?:he|she|it|they|his|her|its|their|him|them)(?![\w']))",
                          re.IGNORECASE)
_SUBJECT = r"(?:i|you|he|she|it|we|they|anyone|anybody|someone|somebody|everyone|people|my|your|his|her|our|their|the|a|an|this|that|these|those|there|any|(?-i:[A-Z])[\w'-]*)"
# "when"/"where"/"why" ask only with a verb after them ("when I was in college, …" is a clause).
_EN_Q_WORD = (r"(?:what|what's|whats|where's|when's|who|who's|whom|whose|which|how|how's"
              r"|(?:when|where|why)\s+(?:is|are|was|were|do|does|did|can|could|will|would|should|has|have|had|am)\b"
              rf"|(?:is|are|was|were|do|does|did|can|could|will|would|should|shall|have|has|had|am|isn't|aren't|didn't"
              rf"|doesn't|won't|can't)\s+{_SUBJECT})")
_EN_QUESTION = re.compile(
    rf"^{_EN_Q_WORD}\b|^(?:remind\s+me|tell\s+me|do\s+you\s+(?:know|remember)|any\s+idea)\b"
    r"|\b(?:forgot|forget|remember|wonder(?:ing)?|not\s+sure|no\s+idea|need\s+to\s+know|want\s+to\s+know|"
    r"recall)\s+(?:what|where|when|who|which|how|if|whether)\b", re.IGNORECASE)
_ZH_QUESTION = re.compile(
    r"什么|啥|哪(?!怕)|谁|多少|几(?![乎何])[\u4e00-\u9fff]|怎么(?![都也])|怎样|如何|为什么|为啥|是不是|有没有"
    r"|能不能|会不会|要不要|可不可以|多大|多久|多长|多高|多远|多重|何时|几时|是否|吗[?？。!！\s]*$|[呢嘛][?？]\s*$")
#: A question the speaker asks themselves (musing, deliberating): a question of the message only
#: when it asks nothing else.
_MUSING = re.compile(
    r"^[^?？]*?(?:不知道|不晓得|不清楚|好奇|记不得|记不清|想不起|忘了|不确定|说不定|在想|看看|查查|想想|琢磨)"
    rf"[^?？]*?(?:{_ZH_QUESTION.pattern})"
    r"|(?:什么|啥|哪个|哪家|哪种|怎么办)好呢[?？]?$|(?:要不要|是不是该|该不该|是不是要|要不)[^?？]*呢[?？]?$"
    r"|^(?:i\s+)?(?:wonder|am\s+wondering|'m\s+wondering|was\s+wondering|not\s+sure|have\s+no\s+idea|no\s+idea)\b",
    re.IGNORECASE)
# A comma, a space or a connector joining two questions inside one sentence (Chinese), or a comma
# or connector before an English question word.
_ZH_JOINT = re.compile(
    r"(?:\s*(?:[，,、]|\.\.\.|…+)\s*|\s+)(?:(?:还有|另外|此外|然后|对了|以及|顺便问(?:一下|下)?|再问(?:一下|下)?"
    r"|第[二三四五]|[2-5][.)、])\s*[，,：:、]?\s*)?"
    r"|(?:还有|另外|此外|以及|顺便问(?:一下|下)?|对了)\s*[，,：:]?\s*")
# After "and" or a comma an auxiliary starts a question only with a pronoun or a name after it
# ("and does she …"), not a relative clause going on ("… that he loves and can make money from").
_EN_JOINED_Q = (r"(?:what|what's|whats|where|where's|when|when's|who|who's|whom|whose|which|why|how|how's"
                r"|(?:is|are|was|were|do|does|did|can|could|will|would|should|have|has|had)"
                r"\s+(?:i|you|he|she|it|we|they|there|anyone|anybody|someone|somebody|everyone|(?-i:[A-Z])[\w'-]*))")
_EN_JOINT = re.compile(
    rf"(?:\s*(?:,|\.\.\.|…+|—|–|\s-)\s*(?:(?:oh\s+)?and\s+(?:also\s+)?|also\s+|plus\s+|btw,?\s+|by\s+the\s+way,?\s+)?"
    rf"|\s+(?:(?:oh\s+)?and(?:\s+also)?|also|plus|btw|by\s+the\s+way|&),?\s+"
    rf"|\s*,?\s+(?:second|third|2\)|3\)),?\s+)(?={_EN_JOINED_Q}\b|whether\b)",
    re.IGNORECASE)

# --- corrections -----------------------------------------------------------------------------------

# A Chinese focus cue: a disowning word, a few characters, then 想问/想说/想知道/问题 and 是/就是
# (optionally 这个/这样), ending at a comma or colon: everything said before it was not the question.
_ZH_FOCUS = re.compile(
    r"(?:真正|实际|其实|本来|原本|实在)[^。！？!?：:，,]{0,4}?"
    r"(?:想要?(?:问|说|知道|了解|弄清楚|搞清楚|弄明白|搞明白|确认|打听)|的?问题)"
    r"[^。！？!?：:，,]{0,3}?(?:是|就是)?(?:这个|这样|如下)?\s*[：:，,]"
    r"|(?:搞错了|说错了|问错了|打错了|对了|言归正传|说正事|说正经的)\s*[，,：:]\s*(?:我)?(?:想要?问|想知道|想了解|问一下)"
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
# A correction: "that was wrong" (不对, 说错了, never mind, I meant …): the question just before it
# (or the chatter just before it) is disowned.
_ZH_CUE = (r"(?:[嗯哦噢啊呃额诶哎唉]+\s*(?:[，,。.…]+|\s)\s*)?(?:不对不对|哦不对|噢不对|不对|不是不是|哦不是|噢不是|啊不是|不是这个"
           r"|说错了|搞错了|问错了|打错了|弄混了|弄错了|记混了|算了不问这个了|算了算了|算了|当我没问|算我没问|算我没说|我重新问"
           r"|刚才(?:那个|那句|那条)?(?:不算|忽略|作废)|忽略(?:刚才|上一条|上面)?(?:那句|那个)?|等下不对|等一下不对"
           r"|[^，,。？?！!\s]{1,4}不问了|更正一下(?:上一条)?|更正(?:上一条)?|不好意思)")
_ZH_CORRECTION = re.compile(
    rf"^\s*(?:{_ZH_CUE}\s*[，,。！!：:…\s]*)+(?:我是想问|我想问的是|我是说|我要问的是|应该是|是)?\s*[：:，,]?\s*")
_EN_CUE = (r"(?:(?:hmm+|um+|uh+|oh|ah)[\s,.…]+)?(?:(?:actually|oh|no|ok|hmm+),?\s+)*(?:(?:never\s*mind|nvm|forget\s+it)"
           r"(?:\s+(?:that|about\s+that|the\s+\w+))?|scratch\s+that|strike\s+that|ignore\s+that|i\s+take\s+that\s+back"
           r"|hold\s+on|my\s+bad|no,?\s+that'?s\s+wrong|wait,?\s+no|no,?\s+wait|no,?\s+sorry|oops|whoops|sorry"
           r"|correction(?:\s+to\s+my\s+last\s+(?:msg|message|question))?|let\s+me\s+rephrase|i\s+mean(?:t)?|no\s+no)\b")
_EN_CORRECTION = re.compile(
    rf"^\s*{_EN_CUE}[\s,.:;!\-–—…]*(?:(?:no\s+)?let\s+me\s+rephrase\b[\s,.:;!\-–—]*)?"
    r"(?:(?:i\s+)?mean(?:t)?(?:\s+to\s+(?:ask|say))?\b[\s,:]*|to\s+(?:ask|say)\b[\s,:]*"
    r"|(?:what\s+)?i\s+(?:want(?:ed)?|meant)\s+to\s+(?:ask|know)"
    r"(?:\s+is)?\b[\s,:]*)?",
    re.IGNORECASE)
#: Where a correction cue starts inside a sentence: after a comma, a space, an ellipsis or a dash.
_CUE_INSIDE = re.compile(rf"(?:(?<=[\s，,…—\-])|(?<=\.\.\.)|(?<=——)){_ZH_CUE}|(?<=[\s,…—\-]){_EN_CUE}",
                         re.IGNORECASE)
_WORD = re.compile(r"\w", re.UNICODE)


def _enough(text: str) -> bool:
    """Whether ``text`` holds at least two word characters (a question of its own)."""
    return len(_WORD.findall(text)) >= 2


def is_question(piece: str) -> bool:
    """Whether ``piece`` (a sentence or clause, leading connector removed) asks something."""
    text = piece.strip()
    if not _enough(text):
        return False
    if text.endswith(("?", "？")):
        return True
    return bool(_ZH_QUESTION.search(text) or _EN_QUESTION.search(_EN_LEAD.sub("", text)))


def _zh_asks(piece: str) -> bool:
    """Whether ``piece`` asks something by a Chinese interrogative (a question mark alone does not
    make an English afterthought a question of its own)."""
    return _enough(piece) and bool(_ZH_QUESTION.search(piece.strip()))


def _lead(text: str, start: int, end: int) -> int:
    """Where the piece ``text[start:end]`` begins after a leading connector (另外，, also, btw …)."""
    piece = text[start:end]
    for pattern in (_ZH_LEAD, _EN_LEAD):
        m = pattern.match(piece)
        if m and m.end() and _enough(piece[m.end():]):
            return start + m.end()
    return start + len(piece) - len(piece.lstrip())


def _sentences(text: str) -> list[tuple[int, int]]:
    """Spans of ``text``'s sentences: cut after a run of ? ！ 。 ; and line ends outside quotes."""
    spans, start, depth, i = [], 0, 0, 0
    straight = False  # inside "…" (a straight double quote opens and closes)
    while i < len(text):
        ch = text[i]
        if ch == '"':
            straight = not straight
        elif ch in _OPEN_QUOTES:
            depth += 1
        elif ch in _CLOSE_QUOTES:
            depth = max(0, depth - 1)
        elif ch in _ENDS and not depth and not straight:
            while i + 1 < len(text) and text[i + 1] in _ENDS:
                i += 1
            spans.append((start, i + 1))
            start = i + 1
        i += 1
    spans.append((start, len(text)))
    return [(a, b) for a, b in spans if text[a:b].strip()]


def _at_cues(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """``text[start:end]`` cut before each correction cue inside it ("A在哪，不对，B在哪")."""
    cuts = [start]
    for m in _CUE_INSIDE.finditer(text, start, end):
        before = text[cuts[-1]:m.start()]
        # Not inside a cue ("sorry, I meant"), nor right after one: the text before must say something.
        if _enough(before) and not _correction(before)[0]:
            cuts.append(m.start())
    cuts.append(end)
    return [(a, b) for a, b in zip(cuts, cuts[1:], strict=False) if text[a:b].strip()]


def _clauses(text: str, start: int, end: int) -> list[tuple[int, int, bool]]:
    """``text[start:end]`` cut where a comma, a connector or "and" joins two questions (else whole),
    each clause with whether a connector (还有, btw, and …) joined it to the one before."""
    for joint, asks in ((_EN_JOINT, is_question), (_ZH_JOINT, _zh_asks)):
        cuts = [m for m in joint.finditer(text, start, end) if start < m.start() and m.end() < end]
        if not cuts:
            continue
        spans, cursor, joined = [], start, False
        for m in cuts:
            nxt = joint.search(text, m.end(), end)
            stop = nxt.start() if nxt and nxt.start() > m.end() else end
            left = text[cursor:m.start()]
            right = text[_lead(text, m.end(), stop):stop]
            connector = bool(_WORD.search(m.group()))
            if _joins_two_questions(joint, asks, left, right, connector):
                spans.append((cursor, m.start(), joined))
                cursor, joined = m.end(), connector  # 它 after 还有 starts a new question
        if spans:
            return [*spans, (cursor, end, joined)]
    return [(start, end, False)]


def _joins_two_questions(joint: re.Pattern[str], asks: Callable[[str], bool], left: str, right: str,
                         connector: bool) -> bool:
    """Whether the clause ``left`` and the clause ``right`` (its connector already read off) are two
    questions a ``joint`` match joins, ``connector`` telling whether it holds a word (还有, and …)."""
    english = joint is _EN_JOINT
    body = left[_lead(left, 0, len(left)):]
    # What a correction keeps is a question even as a fragment ("oops I meant the garage code, and
    # also …"), when a connector, not a bare comma, joins the next question. An English clause
    # before a comma asks on its own only with three words or more ("remind me, what's …").
    first = (bool(_correction(left)[0]) and connector) or (
        asks(body) and not (english and len(re.findall(r"\w+", body)) < 3))
    if not first or not asks(right):
        return False
    if english:
        return len(re.findall(r"\w+", right)) >= 2
    return connector or not _REFERS_BACK.match(right)  # "…，他叫什么" is asked with the clause before it


def _correction(piece: str) -> tuple[str | None, int]:
    """How ``piece`` disowns what came before it — ``"correct"`` (the question or chatter just
    before), ``"focus"`` (everything since the last new question), or None — and where what the
    speaker means starts (an offset into ``piece``)."""
    stripped = piece.lstrip()
    offset = len(piece) - len(stripped)
    last = None
    for pattern in (_ZH_FOCUS, _EN_FOCUS):
        for m in pattern.finditer(stripped):
            if last is None or m.end() > last.end():
                last = m
    # A disowning cue near the start of its piece (after at most a few characters of chatter, or a
    # "that was wrong": 不对，我真正想要了解的是 disowns everything since the last new question).
    if last is not None and _enough(stripped[last.end():]):
        before = stripped[:last.start()]
        for pattern in (_ZH_CORRECTION, _EN_CORRECTION):
            m = pattern.match(before)
            if m:
                before = before[m.end():]
        if len(_WORD.findall(before)) <= 4:
            return "focus", offset + last.end()
    for pattern in (_ZH_CORRECTION, _EN_CORRECTION):
        m = pattern.match(stripped)
        if m and stripped[:m.end()].strip():
            return "correct", offset + m.end()
    return None, 0


def _pieces(text: str) -> list[tuple[int, int, bool]]:
    return [clause for s, e in _sentences(text) for a, b in _at_cues(text, s, e) for clause in _clauses(text, a, b)]


def _last_clause(text: str, start: int, end: int) -> int | None:
    """Where the last question clause of ``text[start:end]`` begins when a comma joins it to a
    question before it ("小红住哪，她老公叫什么" → before 她), else None: what a correction right after
    it disowns."""
    stop = text[start:end].rstrip(" ,，、…")
    for joint, asks in ((_ZH_JOINT, _zh_asks), (_EN_JOINT, is_question)):
        cuts = [m for m in joint.finditer(text, start, start + len(stop)) if start < m.start() and "," in m.group()]
        for m in reversed(cuts):
            if asks(text[start:m.start()]) and asks(text[m.end():start + len(stop)]):
                return m.start()
    return None


def _groups(text: str) -> tuple[list[tuple[int, int]], bool]:
    """The spans of ``text``'s questions, each with the context said before it, and whether a
    correction disowned anything."""
    pieces = []  # (start of what is meant, end, is a question, musing, disowns, starts a new question)
    for start, end, joined in _pieces(text):
        disowns, at = _correction(text[start:end])
        begin = start + at if disowns else _lead(text, start, end)
        body = text[begin:end]
        if not _enough(body) and not disowns:
            continue
        asks = bool(disowns) or is_question(body)
        pieces.append((begin, end, asks, asks and not disowns and bool(_MUSING.search(body.strip())), disowns,
                       not disowns and (joined or bool(_NEW_SEGMENT.match(text[start:end])))))
    strong = any(asks and not musing for _, _, asks, musing, _, _ in pieces)
    groups: list[list[int]] = []  # [start, end, segment]
    context: list[tuple[int, int]] = []
    segment, corrected = 0, False
    for begin, end, asks, musing, disowns, new in pieces:
        if new:
            segment += 1
        if disowns:
            corrected = True
            if disowns == "focus":
                groups = [g for g in groups if g[2] != segment]
                context = []
            elif context:
                context = []
            elif groups:
                cut = _last_clause(text, groups[-1][0], groups[-1][1])
                if cut is None:
                    groups.pop()
                else:
                    groups[-1][1] = cut
            if not _enough(text[begin:end]):
                continue
        if asks and not (musing and strong):
            if groups and not context and not new and not disowns and _REFERS_BACK.match(text[begin:end]):
                groups[-1][1] = end  # "…是哪个人？他叫什么名字？" asks one thing in two steps
            else:
                groups.append([context[0][0] if context else begin, end, segment])
            context = []
        else:
            context.append((begin, end))
    if context:
        if groups:
            groups[-1][1] = context[-1][1]
        elif corrected:
            groups.append([context[0][0], context[-1][1], segment])
    return [(g[0], g[1]) for g in groups], corrected


def split_compound(query: str) -> tuple[str, ...]:
    """``query``'s questions, in order (``(query,)`` when it asks one thing); parts are stripped,
    NFKC-normalised spans of the query, each with the context said before it. Corrections are
    followed too: a disowned question is not a part. At most :data:`MAX_PARTS`."""
    text = unicodedata.normalize("NFKC", query or "")
    spans, corrected = _groups(text)
    spans = [(a, b) for a, b in spans if _enough(text[a:b])]
    if len(spans) > MAX_PARTS:
        spans[MAX_PARTS - 1:] = [(spans[MAX_PARTS - 1][0], spans[-1][1])]
    if len(spans) > 1 or (corrected and spans):
        return tuple(text[a:b].strip() for a, b in spans)
    return (query.strip(),)


def focus(question: str) -> str | None:
    """What follows the last focus cue ("我真正想问的是", "what I really want to know is") in
    ``question`` (NFKC, stripped), or None when it has none or too little follows it."""
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
    """The questions recall searches for ``query``: its parts, each narrowed to what follows a
    focus cue. ``(query,)`` when it asks one thing and corrects nothing."""
    return tuple(focus(part) or part for part in split_compound(query))
