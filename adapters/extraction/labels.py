"""Labelled items (benchmarks/extraction/*.jsonl) aligned to the tagger's BIO tags.

A tag is ``B-<slot>`` / ``I-<slot>`` for a value the user's claim holds, ``B-<slot>@o`` /
``I-<slot>@o`` when the claim is about someone else (a relative, a pet, a named person), and
``B-SUBJ`` / ``I-SUBJ`` for the mention of that someone (妈妈, "my husband", Maya) unless the
mention is itself a value (``my daughter Maya``: Maya is ``child``'s value and the subject of
her age). ``O`` is everything else. A slot is the expectation's first accepted predicate; a value
is found as a case-insensitive substring and covers every token it touches. Fact items give
their expectations; non-facts give only ``O``; a sequence gives each current value in the last
statement that mentions it and each retired value in the first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from attrs import frozen

from hlmem.adapters.extraction.features import KIN
from hlmem.adapters.extraction.tokens import PosTagger, Token, tokenize

USER = frozenset({"user", "用户"})
_POSSESSIVE = re.compile(r"^(?:用户的|用户|我的|我|user's\s+|user\s+|my\s+)", re.I)
#: Words for one relation (the benchmark compares them as one subject); a mention may use any.
KIN_GROUPS = (
    ("妈妈", "妈", "母亲", "老妈", "我妈"), ("爸爸", "爸", "父亲", "老爸", "我爸"), ("mom", "mother", "mum", "mommy"),
    ("dad", "father", "daddy"), ("老公", "丈夫"), ("老婆", "妻子", "太太", "媳妇"), ("女儿", "闺女"),
    ("孩子", "小孩"), ("husband", "hubby"), ("kid", "kids", "child", "children"),
)
_SYNONYMS = {w: g for g in KIN_GROUPS for w in g}


@frozen
class Example:
    """One statement with its tokens and their tags (``id`` names the item it came from)."""

    id: str
    tokens: tuple[Token, ...]
    tags: tuple[str, ...]


def subject_core(subject: str) -> str:
    """用户的妈妈 → 妈妈, user's mom → mom, Maya → Maya; ``""`` for the user."""
    s = subject.strip()
    return "" if s.casefold() in USER else _POSSESSIVE.sub("", s)


def _find(text: str, needle: str, before: int | None = None) -> tuple[int, int] | None:
    """Where ``needle`` occurs (case-insensitive); the occurrence nearest before ``before`` when given."""
    if not needle:
        return None
    low, nl = text.casefold(), needle.casefold()
    hits = [m.start() for m in re.finditer(re.escape(nl), low)]
    if not hits:
        return None
    if before is not None:
        earlier = [h for h in hits if h < before]
        start = earlier[-1] if earlier else hits[0]
    else:
        start = hits[0]
    return start, start + len(nl)


def _span(tokens: Sequence[Token], start: int, end: int) -> list[int]:
    return [i for i, t in enumerate(tokens) if t.start < end and t.end > start]


def _tag(tags: list[str], idx: list[int], label: str) -> bool:
    if not idx or any(tags[i] != "O" for i in idx):
        return False
    for k, i in enumerate(idx):
        tags[i] = ("B-" if k == 0 else "I-") + label
    return True


def align(text: str, expects: Iterable[Mapping[str, Any]], tagger: PosTagger, item_id: str = "") -> tuple[Example, int]:
    """One statement's example, and how many expectations could not be placed in it."""
    tokens = tokenize(text, tagger)
    tags = ["O"] * len(tokens)
    missed = 0
    pending_subjects: list[tuple[str, int]] = []
    value_spans: dict[str, tuple[int, int]] = {}
    for exp in expects:
        preds = exp["predicate"] if isinstance(exp["predicate"], list) else [exp["predicate"]]
        slot = preds[0]
        core = subject_core(str(exp.get("subject", "user")))
        where = _find(text, str(exp["value"]))
        if where is None:
            missed += 1
            continue
        label = slot + ("@o" if core else "")
        if not _tag(tags, _span(tokens, *where), label):
            missed += 1
            continue
        value_spans[str(exp["value"]).casefold()] = where
        if core:
            pending_subjects.append((core, where[0]))
    for core, at in pending_subjects:
        if core.casefold() in value_spans:
            continue  # the mention is a value already (my daughter Maya)
        where = None
        for word in (core, *_SYNONYMS.get(core, ())):
            where = _find(text, word, before=at)
            if where is not None:
                break
        if where is not None:
            _tag(tags, _span(tokens, *where), "SUBJ")
    return Example(item_id, tuple(tokens), tuple(tags)), missed


def examples(items: Iterable[Mapping[str, Any]], tagger: PosTagger) -> Iterator[tuple[Example, int]]:
    """Every statement of every item, aligned (a sequence gives one example per statement)."""
    for item in items:
        if item["kind"] in ("fact", "nonfact"):
            yield align(item["text"], item.get("expect", ()) if item["kind"] == "fact" else (), tagger, item["id"])
            continue
        texts = item["texts"]
        per_text: list[list[Mapping[str, Any]]] = [[] for _ in texts]
        for exp, last in [(e, True) for e in item.get("current", ())] + [(e, False) for e in item.get("absent", ())]:
            order = range(len(texts) - 1, -1, -1) if last else range(len(texts))
            for i in order:
                if str(exp["value"]).casefold() in texts[i].casefold():
                    per_text[i].append(exp)
                    break
        for i, text in enumerate(texts):
            yield align(text, per_text[i], tagger, f"{item['id']}#{i}")


def is_kin(word: str) -> bool:
    return word.casefold() in KIN


def detection_tags(tags: Sequence[str]) -> list[str]:
    """The detector's view: ``V`` a value of the user's, ``VO`` someone else's, ``S`` a mention."""
    out = []
    for tag in tags:
        if tag == "O":
            out.append("O")
        elif tag.endswith("SUBJ"):
            out.append(tag[:2] + "S")
        else:
            out.append(tag[:2] + ("VO" if tag.endswith("@o") else "V"))
    return out


def slot_tags(tags: Sequence[str]) -> list[str]:
    """The slot model's view: ``B-lives_in`` whoever's value it is; mentions are ``O``."""
    return ["O" if tag == "O" or tag.endswith("SUBJ") else tag.removesuffix("@o") for tag in tags]
