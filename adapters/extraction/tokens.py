"""Statements cut into tokens with offsets, part-of-speech tags and clause numbers.

Han runs go to jieba's part-of-speech tokenizer (the product's own dictionary, adapters/text/pos.py);
everything else is cut by a word pattern that keeps English contractions apart ("I'm" → I, 'm;
"mom's" → mom, 's), numbers with their separators (5'7, 4,500, 3.5) and single punctuation marks.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from attrs import frozen

#: ``text -> [(word, flag)…]``: jieba's part-of-speech tagger (adapters/text/pos.py).
PosTagger = Callable[[str], list[tuple[str, str]]]

_HAN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]+")
_LATIN = re.compile(r"[^\W\d_]+(?:[-][^\W\d_]+)*|['’][a-zA-Z]+|\d+(?:[.,:'’]\d+)*|\S", re.UNICODE)
#: Marks that end a clause (the tagger's features look back to the clause start only).
CLAUSE_END = frozenset("，,。.!！?？;；:：\n…")
_EN_CLAUSE_WORDS = frozenset({"but", "and", "so", "because", "although", "though", "while", "which", "who"})


@frozen
class Token:
    """One token: its text, offsets in the statement, tag (jieba's flag; ``eng``, ``m`` or ``x``
    outside Han runs), whether it is Han, and the clause it belongs to (0, 1, …)."""

    text: str
    start: int
    end: int
    pos: str
    han: bool
    clause: int = 0


def _latin_tokens(text: str, offset: int) -> list[Token]:
    out = []
    for m in _LATIN.finditer(text):
        word = m.group()
        pos = "m" if word[0].isdigit() else ("eng" if word[0].isalpha() or word[0] in "'’" else "x")
        out.append(Token(word, offset + m.start(), offset + m.end(), pos, False))
    return out


def tokenize(text: str, tagger: PosTagger) -> list[Token]:
    """The statement's tokens in order, with clause numbers.

    :param tagger: jieba's part-of-speech tagger; it sees Han runs only, so Latin words, versions
        and numbers are cut the same way in both languages.
    """
    if not isinstance(text, str):
        raise TypeError(f"a statement must be str, not {type(text).__name__}")
    text = unicodedata.normalize("NFC", text)
    raw: list[Token] = []
    pos = 0
    for m in _HAN_RUN.finditer(text):
        raw.extend(_latin_tokens(text[pos:m.start()], pos))
        at = m.start()
        for word, flag in tagger(m.group()):
            raw.append(Token(word, at, at + len(word), flag, True))
            at += len(word)
        pos = m.end()
    raw.extend(_latin_tokens(text[pos:], pos))
    out: list[Token] = []
    clause = 0
    for i, tok in enumerate(raw):
        low = tok.text.lower()
        if not tok.han and low in _EN_CLAUSE_WORDS and i > 0:
            clause += 1
        out.append(Token(tok.text, tok.start, tok.end, tok.pos, tok.han, clause))
        if tok.text in CLAUSE_END and not _inside_number(text, tok):
            clause += 1
    return out


def _inside_number(text: str, tok: Token) -> bool:
    """A ``.`` or ``,`` between digits is part of a number, not a clause end."""
    return (tok.text in ".,:" and 0 < tok.start and tok.end < len(text)
            and text[tok.start - 1].isdigit() and text[tok.end].isdigit())
