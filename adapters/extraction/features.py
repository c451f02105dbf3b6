"""The tagger's features: what generalises beyond the words seen in training.

Per token: the word, its tag (jieba's part of speech, or ``eng``/``m``/``x``), shape, affixes,
neighbours (words and tags two either side), the nearest preceding anchor in the clause (a verb or
preposition: 搬到, 住在, "moved to", "work at"), and clause-level cues: a first-person word, a kin
word, a negation, a past or hypothetical marker, a question before the token. Word classes are
small closed lists (kin words, cue words); open-class words are left to shape and tag.
"""

from __future__ import annotations

import unicodedata

from hlmem.adapters.extraction.tokens import Token

#: Kin and household words, both languages (a kin word is a subject in itself: 我妈 → 用户的妈妈).
KIN = frozenset("""
妈 妈妈 母亲 老妈 爸 爸爸 父亲 老爸 哥 哥哥 姐 姐姐 弟 弟弟 妹 妹妹 老公 丈夫 老婆 妻子 太太 媳妇 女儿 闺女 儿子
孩子 小孩 叔 叔叔 舅 舅舅 姑 姑姑 婶 婶婶 爷爷 奶奶 外公 外婆 姥姥 姥爷 婆婆 公公 岳父 岳母 表哥 表姐 表弟 表妹
堂哥 堂姐 堂弟 堂妹 男朋友 女朋友 对象 室友 同事 老板 领导 上司 邻居 同学 朋友 导师 闺蜜 侄子 侄女 外甥 外甥女 孙子 孙女
mom mother mum mommy dad father daddy brother sister husband hubby wife daughter son kid kids child children
uncle aunt grandma grandmother grandpa grandfather cousin nephew niece boyfriend girlfriend partner fiance fiancee
roommate coworker colleague boss manager neighbor neighbour friend advisor classmate grandson granddaughter
in-law stepdad stepmom
""".split())
FIRST_PERSON = frozenset({"我", "我们", "咱", "咱们", "我家", "本人", "i", "me", "my", "mine", "we", "our", "us", "myself"})
_NEGATION = frozenset({"不", "没", "没有", "不再", "无", "别", "不是", "不用", "戒", "戒了", "not", "no", "never", "'t", "’t",
                       "don", "doesn", "didn", "isn", "aren", "wasn", "haven", "hasn", "without", "nobody", "none",
                       "anymore", "quit", "stopped", "gave", "sold", "left"})
_PAST = frozenset({"以前", "之前", "曾经", "过去", "原来", "当年", "小时候", "used", "was", "were", "formerly", "ago",
                   "previously", "back", "once"})
_HYPOTHETICAL = frozenset({"如果", "要是", "假如", "万一", "想", "打算", "希望", "可能", "也许", "if", "would", "might",
                           "maybe", "wish", "hope", "planning", "thinking", "considering", "should"})
_QUESTION = frozenset({"吗", "呢", "么", "什么", "怎么", "哪", "哪里", "哪个", "谁", "为什么", "多少", "what", "how", "why",
                       "which", "who", "where", "when", "can", "could", "should", "is", "are", "do", "does"})
#: Anchors: tags of verbs and prepositions (jieba) and English function words that introduce a value.
_ANCHOR_TAGS = ("v", "p")
_EN_ANCHORS = frozenset({"in", "at", "to", "from", "for", "as", "with", "on", "of", "is", "am", "'m", "are", "'re",
                         "'s", "was", "named", "called", "like", "love", "use", "using", "have", "has", "got", "own",
                         "drive", "work", "works", "working", "live", "lives", "living", "moved", "study", "studying",
                         "allergic", "into", "weigh", "about", "a", "an"})


def norm(word: str) -> str:
    return unicodedata.normalize("NFKC", word).casefold()


def shape(word: str) -> str:
    """Xxxx → Xx, 5'7 → d'd, iPhone → xXx: runs of one character class collapsed."""
    out = []
    for ch in word:
        c = "X" if ch.isupper() else "x" if ch.islower() else "d" if ch.isdigit() else "H" if ord(ch) > 0x2e80 else ch
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out)[:6]


def _clause_flags(tokens: list[Token]) -> list[dict[str, str]]:
    """Per token: the cues seen before it in its clause (first person, kin, negation, past, hypothetical)."""
    flags: list[dict[str, str]] = []
    state: dict[str, str] = {}
    clause = -1
    for tok in tokens:
        if tok.clause != clause:
            clause, state = tok.clause, {}
        flags.append(dict(state))
        w = norm(tok.text)
        if w in FIRST_PERSON or (tok.han and w.startswith("我")):
            state["fp"] = "1"
        if w in KIN:
            state["kin"] = "1"
            state.pop("fp_after_kin", None)
        elif "kin" in state and (w in FIRST_PERSON or w == "i"):
            state["fp_after_kin"] = "1"
        if not tok.han and tok.text[:1].isupper() and tok.start > 0 and w not in FIRST_PERSON:
            state["name"] = "1"
        if tok.pos == "nr":
            state["name"] = "1"
        if w in _NEGATION:
            state["neg"] = w
        if w in _PAST:
            state["past"] = "1"
        if w in _HYPOTHETICAL:
            state["hyp"] = w
        if tok.pos.startswith(_ANCHOR_TAGS) or w in _EN_ANCHORS:
            state["anchor"] = w
            state["anchor_prev"] = state.get("last", "")
        state["last"] = w
    return flags


def _clause_marks(tokens: list[Token]) -> dict[int, set[str]]:
    """Per clause: a question mark or question word in it, a first word that starts a question."""
    marks: dict[int, set[str]] = {}
    for i, tok in enumerate(tokens):
        m = marks.setdefault(tok.clause, set())
        w = norm(tok.text)
        if w in ("?", "？"):
            m.add("qmark")
        if tok.han and w in _QUESTION:
            m.add("qword")
        if i == 0 or tokens[i - 1].clause != tok.clause:
            m.add(f"first={w}")
    return marks


def featurize(tokens: list[Token]) -> list[list[str]]:
    """The feature strings of every token (crfsuite's item format: present features have weight 1)."""
    words = [norm(t.text) for t in tokens]
    flags = _clause_flags(tokens)
    marks = _clause_marks(tokens)
    any_q = any("qmark" in m for m in marks.values())
    out: list[list[str]] = []
    n = len(tokens)
    for i, tok in enumerate(tokens):
        w = words[i]
        f = ["b", f"w={w}", f"t={tok.pos}", f"sh={shape(tok.text)}", f"len={min(len(w), 6)}"]
        if tok.han:
            f += [f"c0={w[0]}", f"c-1={w[-1]}", f"c01={w[:2]}", f"c-2={w[-2:]}"]
        else:
            f += [f"s3={w[-3:]}", f"s2={w[-2:]}", f"p3={w[:3]}"]
            if tok.text[:1].isupper():
                f.append("title" if i > 0 and tokens[i - 1].clause == tok.clause else "title_first")
        if w in KIN:
            f.append("kin")
        if w in FIRST_PERSON:
            f.append("fp_word")
        for d in (-2, -1, 1, 2):
            j = i + d
            if 0 <= j < n:
                f += [f"w{d}={words[j]}", f"t{d}={tokens[j].pos}"]
                if d in (-1, 1):
                    f.append(f"sh{d}={shape(tokens[j].text)}")
                    if tokens[j].clause != tok.clause:
                        f.append(f"edge{d}")
            else:
                f.append(f"pad{d}")
        if i > 0:
            f.append(f"bi-1={words[i - 1]}|{w}")
            if tokens[i - 1].han and tok.han:
                f.append(f"pc={words[i - 1][-1]}")
        if i + 1 < n:
            f.append(f"bi+1={w}|{words[i + 1]}")
        fl = flags[i]
        for key in ("fp", "kin", "fp_after_kin", "name", "past"):
            if key in fl:
                f.append(key)
        for key in ("neg", "hyp", "anchor"):
            if key in fl:
                f += [key, f"{key}={fl[key]}"]
        if "anchor_prev" in fl:
            f.append(f"anc2={fl['anchor_prev']}|{fl['anchor']}")
        cm = marks[tok.clause]
        if "qmark" in cm:
            f.append("cl_q")
        if "qword" in cm:
            f.append("cl_qw")
        if any_q:
            f.append("any_q")
        f += [f"cl_{m}" for m in cm if m.startswith("first=")]
        f.append(f"clause={min(tok.clause, 3)}")
        out.append(f)
    return out
