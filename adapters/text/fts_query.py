"""Build FTS5 MATCH expressions that quote every term, so no query text can be FTS5 syntax."""

from __future__ import annotations

import functools
import threading
import unicodedata
from typing import TYPE_CHECKING, Any, Literal

from hlmem.domain.errors import ValidationError

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["build_match", "unicode61_tokens"]

_JOINERS = {"or": " OR ", "and": " AND "}


def _clean(term: str) -> str:
    # FTS5 ends a string at NUL ("unterminated string"), and a lone surrogate cannot be encoded
    # as UTF-8 for binding, so both are dropped rather than passed on.
    return "".join(ch for ch in term if ch != "\x00" and unicodedata.category(ch) != "Cs").strip()


def _usable(term: str) -> bool:
    # A term with no letter, digit, mark or private-use character yields no token under
    # unicode61; kept in an AND it would make the whole expression match nothing. SQLite's own
    # tables are older than Python's: U+1CF2 is a letter to Python 3.11 but a mark SQLite strips
    # (remove_diacritics 2), so a term is also asked of SQLite's tokenizer itself.
    return (any(unicodedata.category(ch)[0] in "LNM" or unicodedata.category(ch) == "Co" for ch in term)
            and _sqlite_keeps(term))


_TOKENIZER: dict[str, Any] = {}
_TOKENIZER_LOCK = threading.Lock()


@functools.lru_cache(maxsize=8192)
def _sqlite_keeps(term: str) -> bool:
    """Whether SQLite's ``unicode61 remove_diacritics 2`` makes at least one token of ``term``."""
    import apsw

    with _TOKENIZER_LOCK:
        if "unicode61" not in _TOKENIZER:
            _TOKENIZER["con"] = con = apsw.Connection(":memory:")
            _TOKENIZER["unicode61"] = con.fts5_tokenizer("unicode61", ["remove_diacritics", "2"])
        tokens = _TOKENIZER["unicode61"](term.encode("utf-8"), apsw.FTS5_TOKENIZE_QUERY, None,
                                         include_offsets=False)
    return bool(tokens)


def _quote(term: str) -> str:
    # Inside an FTS5 string only '"' is special (doubled), so operators such as OR, NEAR(, *,
    # ^, - or col: stay plain text.
    return '"' + term.replace('"', '""') + '"'


def build_match(terms: Sequence[str], mode: Literal["or", "and"] = "or") -> str | None:
    """Join search terms into an FTS5 MATCH expression that is never a syntax error.

    Each term becomes one quoted FTS5 string (a phrase, once the table's tokenizer splits it),
    so keywords and operator characters in user text are searched as text. Duplicates are
    removed, keeping the first occurrence.

    :param terms: terms as returned by :func:`hlmem.adapters.text.segment.query_terms`.
    :param mode: ``"or"`` matches rows with any term (rank with bm25), ``"and"`` needs all.
    :returns: the expression to bind to ``MATCH ?``, or ``None`` when no term is usable.
    :raises ValidationError: for a mode other than ``"or"`` or ``"and"``.
    """
    if mode not in _JOINERS:
        raise ValidationError(f"unknown match mode {mode!r}; use 'or' or 'and'", field="mode")
    return _match(tuple(terms), mode)


@functools.lru_cache(maxsize=4096)
def _match(terms: tuple[str, ...], mode: str) -> str | None:
    # Recall builds the same expressions again and again (an AND and an OR pass per index, the same
    # terms for the events' and the context's index): cleaning a term reads each character's class.
    joiner = _JOINERS[mode]
    cleaned = (_clean(term) for term in terms)
    usable = dict.fromkeys(term for term in cleaned if _usable(term))
    if not usable:
        return None
    return joiner.join(_quote(term) for term in usable)


def unicode61_tokens(term: str) -> list[str]:
    """The tokens FTS5's ``unicode61`` tokenizer makes of ``term``: runs of letters, digits and marks,
    case-folded. Used to look terms up in the ``fts5vocab`` table and by the in-memory adapter.
    """
    out: list[str] = []
    current: list[str] = []
    # remove_diacritics 2: the tokenizer indexes "café" as "cafe".
    term = "".join(ch for ch in unicodedata.normalize("NFD", term) if unicodedata.category(ch) != "Mn")
    for ch in term:
        if unicodedata.category(ch)[0] in "LNM" or unicodedata.category(ch) == "Co":
            current.append(ch)
        elif current:
            out.append("".join(current).lower())
            current = []
    if current:
        out.append("".join(current).lower())
    return out
