"""Clauses for the rule extractor: splitting, time masking, gates (question, hypothetical, reported…).

A clause keeps its offset in the event text, so every evidence quote is an exact substring. Its
``work`` text has the same length with time expressions blanked out, so patterns can ignore
them and still slice the original by the same indices.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator

from attrs import frozen

from hlmem.domain.temporal import TimeMention, find
from hlmem.domain.events import Cardinality, Scope

#: Longest clause the patterns look at, in characters.
MAX_CLAUSE_CHARS = 200
CJK = re.compile(r"[\u3400-\u9fff]")
_SENTENCE = re.compile(r"[^。！？!?\n]+[。！？!?]*")
_EN_STOP = re.compile(r"(?<=[a-z)\]])(?<!\b(?:Mr|Ms|Dr|St|Mt|Jr|Sr|Co|vs|No))(?<!\b(?:Mrs|Inc|Ltd|Ave|etc))(?<!\bProf)"
                      r"(?<!\b[a-z]\.[a-z])\.(?=\s+[A-Za-z\"'])")
#: Verbs an English clause continues its subject with ("…and has diabetes", "…, works as a nurse").
CONTINUATION_VERBS = (
    r"(?:am|is|are|was|has|have|had|weighs?|lives?|living|works?|working|owns?|drives?|rides?|plays?|goes|go|went|"
    r"takes?|eats?|drinks?|uses?|loves|likes|hates|enjoys|teach(?:es)?|stud(?:y|ies)|runs?|keeps?|bought|sold|got|"
    r"gets?|moved|joined|left|quit|started|stopped|became|adopted|speaks?|suffers?|does|doesn't|don't|volunteers?|"
    r"coaches|cooks?|swims?|walks?|bikes?|cycles?|sings?|knits?|paints?|writes?|reads?|hikes?|trains?|practi[cs]es?|"
    r"attends?|visits?|calls?|wears?|prefers?|gave\s+up|switched|retired|graduated|commutes?|no\s+longer|never)")
_CLAUSE_SEP = re.compile(rf"[，；;（）()]|,(?!\d)|\s*[—–]+\s*|\s+-\s+|\s+(?:and then|and now|whereas)\s+|"
                         rf"\s+but\s+(?=(?:I|we|he|she|they|it|my|our|the|that|this|now|then|also|still|not|honestly|yeah|"
                         rf"there|they're|I'm|we're)\b)|"
                         rf"\s+(?:so|since|because|bc|cuz|after|although|though|while)\s+(?=(?:I|we|he|she|they|it|there)[\s'’]|"
                         rf"(?:my|our)\s)|\s+and\s+(?=(?:I|we|he|she|they|it|there)[\s'’]|(?:my|our|his|"
                         rf"her|their)\s|(?:(?:now|also|still|just|recently|currently|usually|always|often)\s+)?"
                         rf"{CONTINUATION_VERBS}\b)", re.I)
#: "Since I retired from the post office I've been gardening": a subordinate clause without a comma ends
#: where the main clause's subject begins (a blank the splitter then reads as a comma).
_SUBORDINATE = re.compile(r"^\s*(?i:since|after|once|now\s+that|ever\s+since|because|when|before|while|as\s+soon\s+as)\s+"
                          r"(?:I|we|my\s+\w+|our\s+\w+|he|she|they)\b[^,;.]*?(?<=\w)(?=\s+(?:I|we)(?:'|\s))")
#: "My best friend, Priya, lives…": the commas around a name in apposition do not end a clause.
_APPOSITION = re.compile(r"\b(?:my|our)\s+(?:(?:best|oldest|youngest|older|younger|little|big|old|new)\s+)?[a-z\-]+(?:\s+[a-z\-]+)?"
                         r"\s*(?P<a>,)\s*(?:(?-i:Mr|Mrs|Ms|Dr|Miss|Prof)\.?\s+)?(?-i:[A-Z][a-z'\-]+(?:\s+[A-Z][a-z'\-]+)?)\s*(?P<b>,)(?!\s*(?-i:[A-Z][a-z]+)\s*(?:,|and\b))",
                         re.I)
#: A sentence that says it is not meant literally (a joke) states nothing, before or after the marker.
#: "lol" and 哈哈 are not such markers: people laugh along with plain facts ("single. very single lol").
_JOKE = re.compile(r"开玩笑|开个玩笑|逗你的|说着玩的|算了\s*[。！!~～]*\s*$|[😜]|\b(?:just\s+kidding|kidding|jk|j/k|joking)\b", re.I)
#: A short label before a colon ("补录：", "Update: ") frames the clause; a key ("版本号：") is content.
_LABEL = re.compile(r"^\s*(?P<label>[^：:]{1,12}?)\s*(?:：|:(?=\s|[\u3400-\u9fff])|(?<=[\u3400-\u9fff]):)\s*(?=\S)")
#: A longer preamble ("ok random question but first some context: I'm…") before a first-person clause.
_PREAMBLE = re.compile(r"^\s*(?P<label>[^：:]{1,80}?)\s*(?:：|:\s+)(?=(?:I|I'm|I've|my|My|we|We)\b|我)")
_KEY_WORDS = re.compile(r"版本|端口|模型|路径|目录|状态|名字|生日|地址|\b(?:version|port|model|path|status|name)\b", re.I)
_QUOTES = re.compile(r"“[^”]*”|「[^」]*」|『[^』]*』|\"[^\"]*\"")
#: Words after a time expression that say how it relates to the statement.
_TIME_SUFFIX = re.compile(r"\s*(?P<s>的时候|那时候?|那会儿?|时候|时|期间|以来|开始|起|之后|以后|之前|以前|前)?")

# Gates. Each is a reason a clause states no current fact of its speaker.
_QUESTION_ZH = re.compile(r"哪里(?!都)|哪儿(?!都)|哪个|哪些|什么(?![都也])|谁(?![都也])|多少|几[个岁点号月]|怎么|怎样|为什么|为何|是否|是不是|有没有|吗\s*$|么\s*$|^(?:你|您|他|她|你们|他们|那你|那|然后|还有|那他|那她)呢\s*$")
_QUESTION_EN = re.compile(r"^\s*(?:what|where|who|whom|which|when|why|how|do|does|did|is|are|am|was|were|can|could|"
                          r"would|will|should|have|has|shall)\b(?!['’]t\b)(?!\s+(?:I|we)\s+(?:know|think))", re.I)
_HYPOTHETICAL = re.compile(r"如果|假如|假设|要是|万一|倘若|若是|即使|就算|除非|的话|\b(?:if|suppose|supposing|imagine|"
                           r"assuming|in case|what if|would|wish)\b|^\s*unless\b", re.I)
_UNCERTAIN = re.compile(r"可能|也许|大概|或许|好像|似乎|估计|不确定|应该是|应该有|\b(?:maybe|perhaps|probably|might|not sure)\b", re.I)
_DEONTIC = re.compile(r"要求|必须|应该(?![是有])|应当|需要|务必|不得|禁止|不允许|不准|不能|不要|别再|\b(?:must|should|need to|"
                      r"have to|has to|required|ought to)\b", re.I)
_HISTORICAL = re.compile(r"以前|曾经|过去|原先|以往|当年|\b(?:used to|formerly|previously|back then)\b", re.I)
_REPORTING = re.compile(r"(?<![小会能实])(?<!跟你)(?<!和你)(?<!给你)(?<!对你)说(?![明话法服得一实真起来个件])|讲到|告诉(?!你)|写道|写着|提到|提及|表示|声称|据说|听说|报道|认为|以为|"
                        r"\b(?:said|says|told|tells|wrote|writes|claims|claimed|mentioned|according to|reportedly)\b",
                        re.I)
#: A statement said with a question's tune: "I think I'm allergic to penicillin?", "pretty sure he's 88?".
_UPTALK = re.compile(r"^\s*(?:(?:I\s+think|I\s+believe|I\s+guess|pretty\s+sure|I'm\s+pretty\s+sure|I'm\s+fairly\s+sure)\b|"
                     r"我(?:应该|好像|记得|估计))", re.I)
#: A statement said with surprise: "so... I'm engaged??", "我订婚了？！" (no question word, the speaker's own news).
_EXCLAIMED = re.compile(r"^\s*(?:(?:so|ok|okay|well|omg|and|guess\s+what|update)\W*\s*)*(?:(?:I'm|I\s+am|we're|we\s+are|we've|I've)\b|我)"
                        r"(?![^?？]*(?:吗|呢|么|什么|怎么|哪|谁|\b(?:what|why|how|where|who|which|right|or)\b))[^?？]*"
                        r"(?:\?{2,}|\?!|!\?|？{2,}|？！|！？)\s*$", re.I)
_FIRST_PERSON_BEFORE = re.compile(r"(?<![跟和对给向])(?:我|我们|\bI|\bwe)\s*$", re.I)
_PLANNED = re.compile(r"计划|打算|(?<![在正])准备(?!好)|将要|将会|即将|(?<![主需重只想不])要(?![求是还交付花])|"
                      r"\b(?:will|'ll|(?<!stopped )(?<!quit )(?<!been )(?<!keep )(?<!kept )(?<!started )(?<!love )(?<!like )(?<!hate )"
                      r"(?<!enjoy )going to(?!\s+(?:the|a|an|my|our|his|her|their|work|school|church|bed|class|college|"
                      r"the\s+gym|gym|practice|therapy)\b)|plan to|planning to|intend to|about to)\b", re.I)
TEMPORARY = re.compile(r"暂时|临时|先(?=[换用改切])|这几天|这段时间|\b(?:temporarily|for now|for the time being|"
                       r"for a while|for the moment)\b", re.I)


@frozen(kw_only=True)
class Fact:
    """What a pattern found in one clause (the subject None means the speaker)."""

    predicate: str
    value: str
    subject: str | None = None
    coordinates: tuple[tuple[str, str], ...] = ()
    qualifiers: tuple[tuple[str, str], ...] = ()
    polarity: bool = True
    cardinality: Cardinality | None = None
    scope: Scope | None = None
    importance: float = 0.5
    change: bool = False  # the statement reports a change (moved, switched, upgraded): valid from then on
    plan: bool = False
    span: tuple[int, int] | None = None  # where the value sits in the clause (a time inside it is not validity)
    holds_now: bool = False  # a reported change that still holds when said: valid from the statement (ADR 0041)
    rule: str = ""  # the rule that made it (docs/extraction.md), shown by explain through the claim's source


@frozen(kw_only=True)
class Clause:
    """One clause of an event, with the context the patterns need."""

    text: str
    work: str
    start: int
    lang: str
    time: TimeMention | None
    time_relation: str  # "at", "since" or "before"
    topic: str | None
    by_user: bool
    planned: bool
    temporary: str | None
    topic_start: int | None = None  # where the clause that named the topic starts (for the quote)
    sentence_start: int = 0

    @property
    def topic_near(self) -> bool:
        """Whether the topic was named in this clause's own sentence."""
        return self.topic_start is not None and self.topic_start >= self.sentence_start


@frozen
class Split:
    """A clause and whether a gate stops it (with the gate's name)."""

    clause: Clause
    blocked: str | None


#: "from A" before "to B": the old value of a change, which is not what the clause asserts.
_FROM_OLD = re.compile(r"从\s*[^\s，。；,;]+?\s*(?=(?:变为|变成|改为|改成|换成|切换到|切换为|切到|升级到|升级为|升到|回滚到|回退到|"
                       r"降级到|降级为|降到|更新到|更新为|调整为|调整到|调成|搬到|搬去|搬回|迁到|跳槽到))|\bfrom\s+\S+\s+(?=to\b)", re.I)


_EVERY = re.compile(r"(?:每个?|(?i:\bevery|\beach)\s+)$")


def _mask(text: str) -> tuple[str, TimeMention | None, str]:
    """Blank every time expression (and the 时/起/前 after it) and every "from A" of "from A to B";
    return the first time expression and its relation ("at", "since" or "before")."""
    work, first, relation = list(text), None, "at"
    for old in _FROM_OLD.finditer(text):
        work[old.start():old.end()] = " " * (old.end() - old.start())
    for mention in find(text):
        if _EVERY.search(text, 0, mention.start):
            continue  # 每周二, every Tuesday: how often, not when
        suffix = _TIME_SUFFIX.match(text, mention.end)
        end = suffix.end() if suffix else mention.end
        word = suffix["s"] if suffix else None
        if first is None and mention.text not in ("最近", "近来", "近期"):
            first = mention
            relation = "since" if word in ("以来", "开始", "起", "之后", "以后") else (
                "before" if word in ("之前", "以前", "前") else "at")
        work[mention.start:end] = " " * (end - mention.start)
    return "".join(work), first, relation


def _pieces(text: str) -> Iterator[tuple[int, int]]:
    for sent in _SENTENCE.finditer(text):
        start = sent.start()
        for stop in _EN_STOP.finditer(sent.group()):
            yield start, sent.start() + stop.end()
            start = sent.start() + stop.end()
        yield start, sent.end()


def sentences(text: str) -> Iterator[tuple[int, str]]:
    """``(offset, sentence)`` pairs; a sentence keeps its end punctuation."""
    for start, end in _pieces(text):
        if text[start:end].strip():
            yield start, text[start:end]


def split(text: str, *, by_user: bool) -> Iterator[Split]:
    """Clauses of an event text in order, each with the gate that blocks it (None if open).

    Sentence gates (a hypothetical, uncertain or reported frame) block the clause they appear
    in and every later clause of the same sentence. A question mark blocks the clause that asks
    (the last one, or one opening with a question word) — "I'm 5'4", does that matter?" still
    says the height — and none when the sentence opens with a hedge ("I think I'm allergic to
    penicillin?" is a hedged statement, read by the hedge-proof rules).
    """
    inside = _quoted_positions(text)
    for offset, sentence in sentences(text):
        question = sentence.rstrip().endswith(("?", "？")) and not _UPTALK.match(sentence) \
            and not _EXCLAIMED.match(sentence)
        frame: str | None = "joke" if _JOKE.search(sentence) else None
        pos = 0
        kept = {i for m in _APPOSITION.finditer(sentence) for i in (m.start("a"), m.start("b"))}
        if (sub := _SUBORDINATE.match(sentence)) is not None:  # "Since I retired I've been gardening"
            sentence = sentence[:sub.end()] + "," + sentence[sub.end() + 1:]
        opening = True
        seps = _separators(sentence, kept)
        for sep in [*seps, None]:
            last = sep is None or not sentence[sep[1]:].strip(" 。！？!?.…~～")
            end = sep[0] if sep else len(sentence)
            raw = sentence[pos:end]
            start = offset + pos
            pos = sep[1] if sep else end
            if not raw.strip():
                continue
            lead = len(raw) - len(raw.lstrip())
            raw, start = raw.strip().rstrip("。！？!?.…~～ "), start + lead
            if not raw:
                continue
            if len(raw) > MAX_CLAUSE_CHARS:
                continue  # a statement the rules read is short; a long run is prose or data
            frame = frame or _frame(raw)
            label = _LABEL.match(raw) or _PREAMBLE.match(raw)
            if label and not _KEY_WORDS.search(label["label"]):
                raw, start = raw[label.end():], start + label.end()
            work, mention, relation = _mask(raw)
            lang = "zh" if CJK.search(raw) else "en"
            temp = TEMPORARY.search(raw)
            clause = Clause(text=raw, work=work, start=start, lang=lang, time=mention, time_relation=relation,
                            topic=None, by_user=by_user, planned=bool(_PLANNED.search(work)),
                            temporary=temp.group() if temp else None, sentence_start=offset)
            asks = question and (last or (_QUESTION_EN.match(raw) if lang == "en" else _QUESTION_ZH.search(raw)))
            blocked = "question" if asks else frame or _clause_gate(raw, lang, first=opening)
            if inside(start):
                blocked = blocked or "quoted"
            opening = False
            yield Split(clause, blocked)


_AND_I = re.compile(r"\s+and\s+(?:I|me)\b")
_ONE_PERSON = re.compile(r"^\s*(?:(?:so|and|well|oh|yeah)\s+)?(?:[A-Z][a-z'\-]+|(?i:my|our)\s+[a-z\-]+(?:\s+[A-Z][a-z'\-]+)?)\s*$")
_ZH_SPACE = re.compile(r"(?<=\S)\s+(?=[\u3400-\u9fff])")
_CJK_WORD = re.compile(r"[\u3400-\u9fff]$")
_CJK_ALNUM = re.compile(r"[\u3400-\u9fff][A-Za-z0-9.]+$")  # 华为mate60, 一个月2800
#: A Latin token standing alone between spaces (an identifier or a version in a spaced-out record).
_SPACED_LATIN = re.compile(r"(?:^|\s)(?=[\w.\-:/]*[A-Za-z])[A-Za-z0-9][\w.\-:/]*(?:\s|$)")


def _separators(sentence: str, kept: set[int]) -> list[tuple[int, int]]:
    """Where the clauses of a sentence end: punctuation and joiners (:data:`_CLAUSE_SEP`), and in
    Chinese a space between words ("刚下夜班 累死了 我在市一院上班"): people type spaces for commas.
    A space after a Latin name (component-01 已回滚) is no clause end."""
    seps = []
    for m in _CLAUSE_SEP.finditer(sentence):
        before = sentence[seps[-1][1] if seps else 0:m.start()]
        if m.start() in kept or (_AND_I.match(sentence, m.start()) and _ONE_PERSON.match(before)):
            continue  # "Priya and I have been together": one subject, not two clauses
        seps.append((m.start(), m.end()))
    spaced = not _SPACED_LATIN.search(sentence)  # "service-07 的 API 连接 当前状态": words spaced out, not clauses
    for m in _ZH_SPACE.finditer(sentence) if spaced else ():
        word = sentence[:m.start()].rsplit(None, 1)[-1] if sentence[:m.start()].strip() else ""
        if _CJK_WORD.search(word) or _CJK_ALNUM.search(word):
            seps.append((m.start(), m.end()))
    seps.sort()
    out: list[tuple[int, int]] = []
    for a, b in seps:
        if out and a < out[-1][1]:
            out[-1] = (out[-1][0], max(b, out[-1][1]))
        else:
            out.append((a, b))
    return out


def _quoted_positions(text: str) -> Callable[[int], bool]:
    """A test for "this offset lies strictly inside a quotation"."""
    spans = [(m.start(), m.end()) for m in _QUOTES.finditer(text)]
    starts = [s for s, _ in spans]

    def inside(pos: int) -> bool:
        i = bisect.bisect_left(starts, pos) - 1
        return i >= 0 and pos < spans[i][1]

    return inside


def _frame(text: str) -> str | None:
    if _HYPOTHETICAL.search(text):
        return "hypothetical"
    if _UNCERTAIN.search(text):
        return "uncertain"
    for m in _REPORTING.finditer(text):
        if not _FIRST_PERSON_BEFORE.search(text[:m.start()]):
            return "reported"
    return None


def _clause_gate(text: str, lang: str, *, first: bool = True) -> str | None:
    """A clause's own gate; an English clause asks only at its sentence's start ("…and has diabetes" does not)."""
    if (_QUESTION_ZH.search(text) if lang == "zh" else first and _QUESTION_EN.search(text)):
        return "question"
    if _DEONTIC.search(text):
        return "deontic"
    if _HISTORICAL.search(text):
        return "historical"
    return None


_LEADING_ENTITY = re.compile(r"^\s*(?P<e>[A-Za-z][\w.\-]*(?:[\-_]\w+)*)(?=\s|[\u3400-\u9fff]|$)")
_NOT_ENTITY = re.compile(r"^(?:I|we|you|he|she|it|they|the|a|an|my|our|this|that|there|so|and|but|ok|yes|no|hi|hello)$",
                         re.I)


def leading_entity(work: str, lang: str) -> str | None:
    """A name opening a clause, which later clauses may leave out (``component-01 已回滚，当前版本是 v1.0``).

    In Chinese text any Latin-script name counts (``Redis 装好了``); in English text only an
    identifier-like one (digits, ``-``, ``_`` or ``.``), since English clauses name their subject.
    """
    m = _LEADING_ENTITY.match(work)
    if not m or _NOT_ENTITY.match(m["e"]) or len(m["e"]) < 2:
        return None
    return m["e"] if lang == "zh" or any(ch.isdigit() or ch in "-_." for ch in m["e"]) else None


#: Kind nouns: "<label> <kind>" after a subject names a part of it, keyed by the kind.
KIND_KEYS = {
    "服务": "service", "service": "service", "进程": "process", "process": "process", "任务": "job",
    "作业": "job", "job": "job", "部署": "deployment", "deployment": "deployment", "环境": "environment",
    "environment": "environment", "env": "environment", "实例": "instance", "instance": "instance",
    "节点": "instance", "node": "instance", "连接": "connection", "connection": "connection", "集群": "cluster",
    "cluster": "cluster", "分支": "branch", "branch": "branch", "容器": "container", "container": "container",
    "数据库": "database", "database": "database", "客户端": "client", "client": "client", "模块": "module",
    "module": "module", "插件": "plugin", "plugin": "plugin",
}
_KIND = "|".join(sorted(KIND_KEYS, key=len, reverse=True))
_KIND_LAST = re.compile(rf"^(?P<label>.*?)\s*(?P<kind>{_KIND})$", re.I)
_KIND_FIRST = re.compile(rf"^(?P<kind>{_KIND})\s*(?P<label>.+)$", re.I)
_HEAD_TRIM = re.compile(r"^(?:把|将|其中|另外|然后|目前|现在|当前|the\s+)\s*|\s*(?:的|当前|现在|目前|已经|已|'s)\s*$", re.I)
_HEAD_BAD = re.compile(r"[<>()\[\]{}【】《》“”\"']|是|说|写|提到|计划|打算|准备|要|将|会|想|要求|必须|如果|被|了|吗|呢|和|与|跟|或|还|都|也|"
                       r"\b(?:is|are|was|were|be|been|has|have|and|or|if|said|will|to|of|for|with|from|that|which|on|at|in|"
                       r"runs?|running|uses?|using)\b", re.I)
_SUBJECT_OK = re.compile(r"^[\w\u3400-\u9fff][\w.\-/+#\s\u3400-\u9fff]{0,39}$")
_PRONOUN = re.compile(r"^(?:他|她|它|他们|她们|它们|这|那|这个|那个|这些|那些|该|此|其|you|he|she|it|they|this|that|these|"
                      r"those|there)$", re.I)
#: A subject that starts by pointing (这个函数, 该服务, my code, this server) is not a name.
_DEICTIC_HEAD = re.compile(r"^(?:这|那|该|此|某|哪|其)|^(?:this|that|these|those|my|our|your|his|her|their|its|some|any|"
                           r"every|each|which)\s", re.I)
_SPEAKER = re.compile(r"^(?:我|我们|咱们|本人|I|we|my|our|me|us)$", re.I)


def _modifier(mod: str) -> tuple[tuple[str, str], ...] | None:
    mod = " ".join(mod.split())
    if not mod:
        return ()
    for regex in (_KIND_LAST, _KIND_FIRST):
        m = regex.match(mod)
        if m:
            label = m["label"].strip()
            return ((KIND_KEYS[m["kind"].lower()], label),) if label else ()
    return (("component", mod),) if len(mod) <= 24 else None


def parse_head(head: str, topic: str | None, *, topic_near: bool = True
               ) -> tuple[str | None, tuple[tuple[str, str], ...]] | None:
    """Subject and coordinates of the words before a predicate keyword, or None if not a subject.

    ``X 的 blue 部署`` → (X, deployment=blue); ``X 实例 node-a`` → (X, instance=node-a);
    ``X 服务`` → (X, none); ``worker 进程`` after a clause about X in the same sentence
    (``topic_near``) → (X, process=worker). A subject of None means the speaker; an empty head
    takes the topic.
    """
    head = " ".join(head.split())
    for _ in range(3):
        head = _HEAD_TRIM.sub("", head).strip()
    if not head:
        return (topic, ()) if topic else None
    if _HEAD_BAD.search(head):
        return None
    if "的" in head:
        subject, _, mod = head.partition("的")
    elif topic and topic_near and (_KIND_LAST.match(head) or _KIND_FIRST.match(head)) and len(head.split()) <= 3:
        subject, mod = topic, head
    else:
        first, _, rest = head.partition(" ")
        # "X 实例 node-a", "nginx worker process": the rest names a part; "API server": one name.
        subject, mod = (first, rest) if _modifier(rest) != (("component", rest),) else (head, "")
    subject = subject.strip()
    coords = _modifier(mod)
    if coords is None or not subject or _PRONOUN.match(subject) or _DEICTIC_HEAD.match(subject):
        return None
    if _SPEAKER.match(subject):
        return None, coords
    if not _SUBJECT_OK.match(subject):
        return None
    return subject, coords
