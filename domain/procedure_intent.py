"""Procedure questions: "how do I …", "怎么…", "如何…" (pure; docs/experience.md).

:func:`howto_task` finds a how-to question and returns the task it asks about (the words after
the cue), or None for any other query. :func:`match_score` says how well a task matches a
situation's signature: the harmonic mean of the share of the signature's terms the task holds
and the share of the task's terms the signature holds, over words (Latin script, digits) and
character bigrams (CJK), placeholders and filler words left out.
"""

from __future__ import annotations

import re
import unicodedata

from hlmem.domain.experience_signature import normalize_situation

_HOWTO_EN = re.compile(
    r"^\s*(?:(?:so|ok|okay|hey|please)[\s,]+)?(?:how\s+(?:do|can|should|would|could|did)\s+(?:i|we|you|one)|"
    r"how\s+to|what(?:'s|\s+is)\s+the\s+(?:best\s+)?way\s+to|what\s+(?:steps|procedure)\s+(?:do|should)\s+"
    r"(?:i|we)\s+(?:take|follow)\s+to|steps\s+to|procedure\s+for|how\s+(?:is|are)\s+\w+\s+done)\b\s*(?P<task>.*)$",
    re.IGNORECASE | re.DOTALL)
_HOWTO_ZH = re.compile(r"(?:我们|我|要|该|应该|能|可以|得)*(?:怎么|怎样|如何|咋)(?:样)?(?:才能|才|去|来)?(?P<task>.+)$")
_CLAUSE_EN = re.compile(r"[,;:，；：]\s*(?=(?:so\s+)?how\b)", re.IGNORECASE)
_TRAILING = re.compile(r"[\s?？!！。.,，;；:：]+$")
_STOP = frozenset("a an the to of in on for with and or my our your it this that is are be do i we you me us "
                  "please can should best way".split())
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_CJK_FILLER = frozenset("的了吗呢吧啊呀么一下")


def howto_task(query: str) -> str | None:
    """The task a how-to question asks about, or None when ``query`` is not one.

    English: the words after the cue ("how do I …") at the start or after a clause ("main's CI is red,
    how do I get it green again"): then the clause before it is part of the task too. Chinese: the
    question with its cue taken out, wherever the cue stands ("出差回来的钱怎么报销" asks about
    "出差回来的钱 报销", not "报销" alone)."""
    text = unicodedata.normalize("NFKC", query or "").strip()
    m = _HOWTO_EN.match(text)
    if m:
        return _TRAILING.sub("", m.group("task")).strip() or None
    clause = _CLAUSE_EN.search(text)
    if clause:
        m = _HOWTO_EN.match(text[clause.end():])
        if m:
            task = f"{text[:clause.start()].strip()} {m.group('task')}"
            return _TRAILING.sub("", task).strip() or None
    m = _HOWTO_ZH.search(text)
    if m:
        task = f"{text[:m.start()].strip()} {m.group('task')}".strip()
        return _TRAILING.sub("", task).strip() or None
    return None


def terms(text: str) -> frozenset[str]:
    """The comparable terms of a text: words and CJK bigrams of its normalised form."""
    out: set[str] = set()
    for word in normalize_situation(text).split():
        if word.startswith("<") and word.endswith(">"):
            continue
        if _CJK.search(word):
            chars = [c for c in word if c not in _CJK_FILLER]
            out.update(a + b for a, b in zip(chars, chars[1:]))
            if len(chars) == 1:
                out.add(chars[0])
        elif word not in _STOP:
            out.add(word)
    return frozenset(out)


def match_score(task: str, signature: str) -> float:
    """How well ``task`` matches ``signature``: 0 (nothing shared) .. 1 (the same terms)."""
    a, b = terms(task), terms(signature)
    shared = len(a & b)
    if not shared:
        return 0.0
    recall, precision = shared / len(b), shared / len(a)
    return 2 * recall * precision / (recall + precision)
