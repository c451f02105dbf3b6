"""Chinese-aware segmentation of text into space-separated tokens for an FTS5 ``unicode61`` column."""

from __future__ import annotations

import functools
import logging
import os
import re
import stat
import threading
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from hlmem.adapters.text.fts_query import unicode61_tokens
from hlmem.adapters.text.marks import mark_ranges

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

__all__ = ["STOP_WORDS", "add_stems", "cache_file", "clear_stem_caches", "english_stem", "index_text", "prepare",
           "query_terms", "search_terms", "segment_for_index", "stems_of"]


class _SearchCutter(Protocol):
    """The one jieba method we rely on (jieba ships no type hints)."""

    def cut_for_search(self, sentence: str, HMM: bool = True) -> Iterator[str]: ...  # noqa: N803


# CJK Unified Ideographs, Extension A, Compatibility Ideographs and the supplementary planes
# (Extensions B-H). Only these runs go to jieba: handed Latin text, jieba splits `3.11.7` into
# `3.11 . 7` and `Café` into `Caf é`, so everything else is scanned by our own regex.
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"

# Characters that may join word pieces inside one atom: versions (v1.2), IPs and ports
# (10.0.0.1:8080), paths (/etc/hosts), e-mail, snake_case, don't. unicode61 later splits the atom
# at these characters into consecutive tokens, so a quoted atom in a query is an exact phrase.
_JOINERS = r"._:/\\@'’+#&\-"

_STOP_ZH = frozenset(
    "的 了 是 我 你 他 她 它 我们 你们 他们 吗 呢 吧 啊 呀 么 什么 怎么 怎样 哪 哪里 哪儿 哪个 "
    "谁 在 和 与 也 都 就 又 还 这 那 这个 那个 一个 请问 一下 有没有 是不是 有 有哪些 哪些".split()
)
# Without "may", "will" and "us": they are also a month, a name and a country.
_STOP_EN = frozenset(
    "a an the is are was were be been being am do does did what who whom whose which when where "
    "why how i me my you your he him his she her it its we our they them their this that "
    "these those of to in on at for from by with about and or but if so as than then there "
    "have has had can could would should shall might must not no".split()
)
STOP_WORDS: frozenset[str] = _STOP_ZH | _STOP_EN
"""Query words dropped by :func:`query_terms`, unless nothing else is left."""

_jieba_lock = threading.Lock()
_jieba_cutter: _SearchCutter | None = None

_log = logging.getLogger(__name__)


def cache_file() -> Path:
    """Where jieba's prefix dictionary is cached, one file per jieba version: this OS user's cache
    folder, or — when that cannot be made or written (a service user whose home does not exist,
    a read-only home) — ``hlmem-<uid>`` in the temporary folder, a folder of this user's own.

    jieba's own default, one ``jieba.cache`` in the shared temp folder, is written mode 0600 by
    whoever came first, so every other user failed to read it and rebuilt it on each run; and a
    user without a usable cache folder warned and rebuilt it on each run (issue 33 item 8).
    """
    import jieba
    import platformdirs

    name = f"jieba-{jieba.__version__}.cache"
    folder = Path(platformdirs.user_cache_dir("hlmem", appauthor=False))
    if _writable_folder(folder):
        return folder / name
    fallback = _own_temp_folder()
    return (fallback or folder) / name


def _writable_folder(folder: Path) -> bool:
    """Whether ``folder`` exists (made now if need be, private) and this user may write in it."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return False
    return folder.is_dir() and os.access(folder, os.W_OK | os.X_OK)


def _own_temp_folder() -> Path | None:
    """``hlmem-<uid>`` in the temporary folder, if it is (or can be made) a real folder owned by
    this user and private to it; None otherwise. The temporary folder is shared: a folder or link
    of that name made by someone else is never used (its cache would be theirs to plant)."""
    import tempfile

    uid = os.getuid() if hasattr(os, "getuid") else None
    folder = Path(tempfile.gettempdir()) / f"hlmem-{uid if uid is not None else 'user'}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        st = folder.lstat()
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or (uid is not None and st.st_uid != uid):
        return None
    if st.st_mode & 0o077:
        try:
            folder.chmod(0o700)
        except OSError:
            return None
    return folder if os.access(folder, os.W_OK | os.X_OK) else None


class _Swallowed(logging.Filter):
    """Keeps jieba's own log records (a traceback when its cache cannot be written) off the
    terminal while it loads, remembering the errors among them."""

    def __init__(self) -> None:
        super().__init__()
        self.errors: list[BaseException | None] = []

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.ERROR:
            self.errors.append(record.exc_info[1] if record.exc_info else None)
        return False


def _cutter() -> _SearchCutter:
    """jieba's tokenizer, made once per process on first use: reading its dictionary from
    hlmem's SQLite copy word by word (adapters/text/jieba_dict.py), else loaded whole."""
    global _jieba_cutter
    if _jieba_cutter is not None:
        return _jieba_cutter
    with _jieba_lock:
        if _jieba_cutter is None:
            from hlmem.adapters.text.jieba_dict import lazy_tokenizer

            path = cache_file()
            _jieba_cutter = lazy_tokenizer(path, _whole_dictionary) or _whole_dictionary()
    return _jieba_cutter


def _whole_dictionary() -> _SearchCutter:
    """A jieba tokenizer with its whole dictionary loaded (from jieba's cache file, made now
    when missing), printing one line at most."""
    import jieba

    jieba.setLogLevel(logging.WARNING)
    # A private Tokenizer, not jieba's global one: another library calling
    # jieba.add_word() must not change our tokens, or a projection rebuilt by replay
    # would stop matching the index it replaces.
    cutter = jieba.Tokenizer()
    path = cache_file()
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        pass  # jieba then fails to write the cache: reported below, once
    cutter.cache_file = str(path)  # absolute: jieba joins it to no temp folder
    swallowed = _Swallowed()
    logger = logging.getLogger("jieba")
    logger.addFilter(swallowed)
    try:
        cutter.initialize()
    finally:
        logger.removeFilter(swallowed)
    if swallowed.errors:
        reason = next((str(e) for e in swallowed.errors if e is not None), "unknown error")
        _log.warning("hlmem: cannot write the segmenter cache %s (%s): the dictionary is built "
                     "again by each process", path, reason)
    return cutter


def prepare(texts: Iterable[str] = ()) -> None:
    """Load the segmenter and segment ``texts`` now, so a later :func:`segment_for_index` of them
    finds everything cached and does no slow work (it then runs inside a write transaction).

    :param texts: texts about to be indexed; the segmenter loads even when there are none.
    """
    _scanner()
    cutter = _cutter()
    load_whole = getattr(cutter, "hlmem_load_whole", None)
    if load_whole is not None:
        load_whole()  # a busy process: the whole dictionary from now on (here: outside any transaction)
    for text in texts:
        segment_for_index(text)


@functools.cache
def _scanner() -> re.Pattern[str]:
    """Compile the run scanner (on first use: compiling it takes a few milliseconds)."""
    # Python's \w omits combining marks (Mn/Mc/Me), which unicode61 keeps inside tokens;
    # without them Hindi or decomposed text would be cut mid-word.
    marks = "".join(f"{re.escape(chr(lo))}-{re.escape(chr(hi))}" for lo, hi in mark_ranges())
    # A piece starts with a letter or digit: a stray mark (NFKC turns '¸' into ' ' + U+0327) is
    # no word, and unicode61 with remove_diacritics would index it as nothing.
    base = f"[^\\W_{_HAN}]"
    piece = f"{base}+(?:[{marks}]+{base}*)*"
    return re.compile(f"(?P<han>[{_HAN}]+)|(?P<atom>{piece}(?:[{_JOINERS}]{piece})*)")


#: Han runs and white-space chunks up to this many characters are cached: names, slot labels and
#: short phrases repeat; a long run (a Chinese sentence has no spaces) seldom does, and caching
#: 65,536 of them held hundreds of megabytes on a large import (issue 33 item 5).
_CACHED_CHARS = 40


def _cut_han(run: str) -> tuple[str, ...]:
    # jieba never joins across a non-Han character, so cutting each Han run alone gives the same
    # tokens as cutting the whole text; caching runs pays off because claim texts repeat their
    # subjects and slot labels.
    return _cut_han_cached(run) if len(run) <= _CACHED_CHARS else tuple(_cutter().cut_for_search(run))


@functools.lru_cache(maxsize=65_536)
def _cut_han_cached(run: str) -> tuple[str, ...]:
    return tuple(_cutter().cut_for_search(run))


def _chunk_tokens(chunk: str) -> tuple[str, ...]:
    return _chunk_tokens_cached(chunk) if len(chunk) <= _CACHED_CHARS else _chunk_tokens_now(chunk)


@functools.lru_cache(maxsize=65_536)
def _chunk_tokens_cached(chunk: str) -> tuple[str, ...]:
    return _chunk_tokens_now(chunk)


def _chunk_tokens_now(chunk: str) -> tuple[str, ...]:
    out: list[str] = []
    for match in _scanner().finditer(unicodedata.normalize("NFKC", chunk)):
        han = match.group("han")
        if han is not None:
            out.extend(_cut_han(han))
        else:
            out.append(match.group("atom").lower())
    return tuple(out)


def _tokens(text: str) -> Iterator[str]:
    # No token spans white space (atoms and Han runs stop there), so each white-space separated
    # chunk is tokenised alone and cached: claim texts repeat their subjects and slot labels.
    for chunk in text.split():
        yield from _chunk_tokens(chunk)


def segment_for_index(text: str) -> str:
    """Segment text into a space-separated token string to store in an FTS5 column.

    The column is meant to be tokenized by ``unicode61 remove_diacritics 2`` (optionally wrapped
    in ``porter``), so any stock SQLite can read and query it without our code. Han runs are cut
    with jieba's search mode (sub-words and the whole word); other words are lowercased; atoms
    such as ``v1.2``, ``3.11.7``, ``10.0.0.1:8080`` or ``/etc/hosts`` are kept whole, which
    unicode61 stores as consecutive part tokens. Punctuation, symbols and emoji are dropped.

    :param text: any text; NFKC-normalised first (full-width forms become ASCII).
    :returns: tokens joined by single spaces; ``""`` when the text has no words.
    """
    if len(text) <= _WHOLE_TEXT_CHARS:
        return _WHOLE_TEXTS.get(text)  # prepared before the write transaction: one lookup inside it
    return " ".join(_tokens(text))


#: Texts up to this long are cached whole (what :func:`prepare` segmented is then one lookup away).
_WHOLE_TEXT_CHARS = 4_096


class _TextCache:
    """Least recently used segmentations (or indexed bodies) of whole texts, bounded by their characters (text and
    tokens together), not by their number: a batch of long turns must not hold a hundred times
    what a batch of short ones does. Big enough for a batch that :func:`prepare` segments before
    its write transaction (500 turns of 4,096 characters)."""

    def __init__(self, budget: int, make: Callable[[str], str]) -> None:
        self._budget = budget
        self._make = make
        self._used = 0
        self._items: dict[str, str] = {}
        self._lock = threading.Lock()

    def get(self, text: str) -> str:
        with self._lock:
            found = self._items.pop(text, None)
            if found is not None:
                self._items[text] = found  # most recent last
                return found
        made = self._make(text)
        with self._lock:
            if text not in self._items:
                self._items[text] = made
                self._used += len(text) + len(made)
                while self._used > self._budget and self._items:
                    old = next(iter(self._items))
                    self._used -= len(old) + len(self._items.pop(old))
        return made

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._used = 0


_WHOLE_TEXTS = _TextCache(budget=6_000_000, make=lambda text: " ".join(_tokens(text)))


#: English words the stemmer reads: lower-case letters only, four or more (atoms, names with
#: digits and short words are left as they are).
_LATIN_WORD = re.compile(r"[a-z]{4,}")


@functools.lru_cache(maxsize=1)
def _english() -> Any:
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@functools.lru_cache(maxsize=65_536)
def english_stem(token: str) -> str | None:
    """The Snowball English (Porter 2) stem of a word token when it differs from the word
    (``camped`` and ``camping`` -> ``camp``), else None (ADR 0058)."""
    if not _LATIN_WORD.fullmatch(token):
        return None
    stem = _english().stemWord(token)
    return stem if stem != token and len(stem) >= 3 else None


def stems_of(tokens: Iterable[str]) -> list[str]:
    """The stems of the words in ``tokens`` that differ from their word, in order: each token's
    unicode61 parts are stemmed (``e-mails`` gives ``mail``), as FTS5 and the other stores split
    them, so a body's stems follow from its stored tokens alone, whichever store holds them."""
    return [stem for token in tokens for stem in _token_stems(token)]


@functools.lru_cache(maxsize=65_536)
def _token_stems(token: str) -> tuple[str, ...]:
    """:func:`stems_of` one token (tokens repeat: a cache spares the per-character unicode61 split)."""
    if _LATIN_WORD.fullmatch(token):
        return (stem,) if (stem := english_stem(token)) else ()
    if _NO_STEMMABLE_PART.fullmatch(token) and not _LATIN_RUN.search(token):
        return ()  # ASCII and Han only, no four letters in a row: no unicode61 part is an English word
    return _token_stems_slow(token)


def _token_stems_slow(token: str) -> tuple[str, ...]:
    """:func:`_token_stems` without its shortcuts: the stems of the token's unicode61 parts."""
    return tuple(s for part in unicode61_tokens(token) if (s := english_stem(part)))


#: Tokens made of ASCII and CJK characters only: a unicode61 part of one is an English word only if
#: it holds four ASCII letters in a row (no character here decomposes into a Latin letter).
_NO_STEMMABLE_PART = re.compile("[\x00-\x7f\u3000-\u9fff\uf900-\ufaff]*")
_LATIN_RUN = re.compile("[A-Za-z]{4}")


def add_stems(body: str) -> str:
    """An indexed body (space-separated tokens) with the stems of its English words after them:
    appended, so the words stay next to each other for phrases."""
    stems = stems_of(body.split())
    return f"{body} {' '.join(stems)}" if stems else body


def index_text(text: str) -> str:
    """What a search index stores for ``text``: :func:`segment_for_index`, then the stems of its
    English words (:func:`add_stems`), so "camped" finds "camping" (ADR 0058).

    Texts up to :data:`_WHOLE_TEXT_CHARS` are cached whole, as segmentations are: a write
    prepares its texts before its transaction and indexes them inside it (and the context index
    reads a turn's body again), so the second time is one lookup."""
    if len(text) <= _WHOLE_TEXT_CHARS:
        return _INDEXED_TEXTS.get(text)
    return add_stems(segment_for_index(text))


_INDEXED_TEXTS = _TextCache(budget=6_000_000, make=lambda text: add_stems(segment_for_index(text)))


def clear_stem_caches() -> None:
    """Forget the cached indexed bodies and token stems, for a process that swaps the stemmer
    (a test writing a store as code before ADR 0058 did); segmentations stay."""
    _INDEXED_TEXTS.clear()
    _token_stems.cache_clear()


def search_terms(text: str) -> list[str]:
    """The terms full text searches for a query: :func:`query_terms`, each English word followed
    by its stem when the stem differs (a term of its own, matched against :func:`index_text`)."""
    out: list[str] = []
    for term in query_terms(text):
        out.append(term)
        stem = english_stem(term)
        if stem:
            out.append(stem)
    return list(dict.fromkeys(out))


def query_terms(text: str) -> list[str]:
    """Return the distinct search terms of a user query, segmented as :func:`segment_for_index`.

    Stop words of Chinese and English (:data:`STOP_WORDS`) are removed, unless that would leave
    nothing, in which case every term is kept.

    :param text: the raw query.
    :returns: terms in first-seen order; empty when the query has no words.
    """
    terms: list[str] = []
    for token in _tokens(text):
        # An English possessive ("Wright's") asks about the bare name: search for that.
        if len(token) > 2 and token[-2:] in ("'s", "’s"):
            token = token[:-2]
        terms.append(token)
    terms = list(dict.fromkeys(terms))
    content = [term for term in terms if term not in STOP_WORDS]
    return content or terms
