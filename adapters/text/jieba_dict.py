"""jieba's dictionary read on demand from a SQLite file, so a short process does not load all of it.

jieba keeps its prefix dictionary (about 500,000 words and word prefixes with their counts) in
one marshal file that each process loads whole before the first cut: about 0.9–1.2 s here, more
than everything else ``hlmem recall`` does (issue 36 item 1). A query of twenty characters looks
up a few dozen of those entries. So the same entries — made by jieba's own code from jieba's own
``dict.txt`` (``Tokenizer.gen_pfdict``, posseg's ``load_word_tag``) — are written once per jieba
version into a SQLite table beside jieba's cache, and a tokenizer reads the ones it needs, each
once per process. The numbers are the same numbers, so the tokens are jieba's tokens: only where
they come from changes (a test compares the two on the benchmark corpora).

A process that segments a lot (an import, the worker, a server that writes) would spend more on
lookups than on the whole dictionary: once :data:`FULL_AFTER` lookups were made, the next
``segment.prepare`` (which runs before a write transaction, never inside one) loads the whole
dictionary, as before, and the tokenizer uses it from then on.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

_log = logging.getLogger(__name__)

#: Lookups read from the file before the whole dictionary is loaded instead (about 0.2 s of them).
FULL_AFTER = 50_000
#: What a finished file says in its ``meta`` table (a half-written one is never renamed into place).
_FORMAT = "1"


def dictionary_file(cache: Path) -> Path:
    """The SQLite dictionary beside jieba's cache file ``cache`` (same folder, same version)."""
    return cache.with_suffix(".sqlite")


def build(path: Path) -> None:
    """Write jieba's default dictionary (prefix counts, total, part-of-speech tags) to ``path``,
    atomically: a temporary file in the same folder, renamed into place when complete."""
    import types

    import apsw
    import jieba
    import jieba.posseg

    source = jieba.Tokenizer()
    freq, total = source.gen_pfdict(source.get_dict_file())
    tags = types.SimpleNamespace()
    jieba.posseg.POSTokenizer.load_word_tag(tags, source.get_dict_file())
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        db = apsw.Connection(str(temporary))
        try:
            with db:
                db.execute("CREATE TABLE words (word TEXT PRIMARY KEY, freq INTEGER NOT NULL, tag TEXT) WITHOUT ROWID;"
                           "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
                db.executemany("INSERT INTO words VALUES (?, ?, ?)",
                               ((word, count, tags.word_tag_tab.get(word)) for word, count in freq.items()))
                db.executemany("INSERT INTO meta VALUES (?, ?)",
                               [("total", str(total)), ("jieba", jieba.__version__), ("format", _FORMAT)])
        finally:
            db.close()
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    finally:
        if temporary.exists():
            temporary.unlink()


class _Lookups:
    """The dictionary file, read one word at a time, every answer remembered."""

    def __init__(self, path: Path) -> None:
        import apsw

        self._db = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
        meta = dict(self._db.execute("SELECT key, value FROM meta"))
        if meta.get("format") != _FORMAT:
            self._db.close()
            raise ValueError(f"{path} is not a finished dictionary file")
        self.total = int(meta["total"])
        self.reads = 0
        self._lock = threading.Lock()  # one connection: APSW refuses two threads in it at once
        self._freq: dict[str, int | None] = {}
        self._tag: dict[str, str | None] = {}

    def _row(self, word: str) -> None:
        with self._lock:
            self.reads += 1
            row = self._db.execute("SELECT freq, tag FROM words WHERE word = ?", (word,)).fetchone()
        # The tag first: a reader that finds the count (``freq``'s memo) finds the tag too.
        self._tag[word] = None if row is None else row[1]
        self._freq[word] = None if row is None else row[0]

    def freq(self, word: str) -> int | None:
        try:
            return self._freq[word]
        except KeyError:
            self._row(word)
            return self._freq[word]

    def tag(self, word: str) -> str | None:
        try:
            return self._tag[word]
        except KeyError:
            self._row(word)
            return self._tag[word]

    def close(self) -> None:
        self._db.close()


_MISSING = object()


class LazyFreq:
    """What ``jieba.Tokenizer.FREQ`` is asked (``in``, ``[]``, ``get``), answered from the file."""

    def __init__(self, lookups: _Lookups) -> None:
        self._lookups = lookups
        self._added: dict[str, int] = {}

    def _find(self, word: str) -> int | None:
        if word in self._added:
            return self._added[word]
        return self._lookups.freq(word)

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self._find(word) is not None

    def __getitem__(self, word: str) -> int:
        found = self._find(word)
        if found is None:
            raise KeyError(word)
        return found

    def get(self, word: str, default: Any = None) -> Any:
        found = self._find(word)
        return default if found is None else found

    def __setitem__(self, word: str, freq: int) -> None:  # jieba's add_word (hlmem never calls it)
        self._added[word] = freq


class LazyTags:
    """What posseg asks of its ``word_tag_tab`` (``get``), answered from the file."""

    def __init__(self, lookups: _Lookups) -> None:
        self._lookups = lookups
        self._added: dict[str, str] = {}

    def get(self, word: str, default: Any = None) -> Any:
        if word in self._added:
            return self._added[word]
        found = self._lookups.tag(word)
        return default if found is None else found

    def update(self, other: dict[str, str]) -> None:  # posseg's user dictionary (hlmem has none)
        self._added.update(other)


def lazy_tokenizer(cache: Path, load_full: Callable[[], Any]) -> Any | None:
    """A ``jieba.Tokenizer`` reading its dictionary from the file beside ``cache`` (built now
    when missing); None when the file can be neither read nor built (then load the dictionary
    whole). Its ``hlmem_load_whole()`` puts ``load_full()``'s dictionary in place of the file
    once :data:`FULL_AFTER` lookups were made (and returns whether it did)."""
    import jieba

    path = dictionary_file(cache)
    try:
        try:
            lookups = _Lookups(path)
        except Exception:  # missing, half-written by a crashed build, or of another format
            build(path)
            lookups = _Lookups(path)
    except Exception as exc:  # an unwritable folder, a full disk: the whole dictionary still works
        _log.debug("jieba dictionary file %s unusable (%s): loading the dictionary whole", path, exc)
        return None
    tokenizer = jieba.Tokenizer()
    lock = threading.Lock()

    def load_whole() -> bool:
        if lookups.reads <= FULL_AFTER or not isinstance(tokenizer.FREQ, LazyFreq):
            return False
        with lock:
            if isinstance(tokenizer.FREQ, LazyFreq):
                full = load_full()
                tokenizer.total, tokenizer.FREQ = full.total, full.FREQ
        return True

    tokenizer.FREQ, tokenizer.total = LazyFreq(lookups), lookups.total
    tokenizer.initialized = True
    tokenizer.hlmem_tags = LazyTags(lookups)  # for the part-of-speech tagger (adapters/text/pos.py)
    tokenizer.hlmem_load_whole = load_whole
    return tokenizer
