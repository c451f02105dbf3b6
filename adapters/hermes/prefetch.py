"""The prefetch cache: a recall started in the background per (session, query), its text kept for ``prefetch``.

``queue_prefetch`` starts a recall for the next turn; ``prefetch`` returns the cached text at
once when it is ready and otherwise waits at most ``wait`` seconds (then returns ``""``: Hermes
injects nothing rather than stall the turn; the recall still finishes and is kept for the next
ask). A write makes finished entries stale, so they are dropped (``invalidate``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable


class _Entry:
    __slots__ = ("ready", "text")

    def __init__(self) -> None:
        self.ready = threading.Event()
        self.text = ""


class PrefetchCache:
    """Per-(session, query) results of background recalls, at most ``size`` kept (oldest dropped).

    :param start: hands a callable to the background thread (``Background.submit``).
    :param recall: turns a query and a session id into the text to inject (runs in the background).
    """

    def __init__(self, start: Callable[[Callable[[], None]], None], recall: Callable[[str, str], str],
                 *, size: int = 32) -> None:
        self._start, self._recall, self._size = start, recall, size
        self._entries: OrderedDict[tuple[str, str], _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def queue(self, query: str, session_id: str) -> None:
        """Start a background recall for ``query`` unless one is cached or running for it."""
        self._entry(query, session_id)

    def get(self, query: str, session_id: str, *, wait: float) -> str:
        """The recall's text for ``query``: at once when ready, else after at most ``wait`` seconds
        (``""`` if it is still running then). Starts the recall when none was queued."""
        entry = self._entry(query, session_id)
        return entry.text if entry.ready.wait(wait) else ""

    def ready(self, query: str, session_id: str) -> bool:
        """Whether the text for ``query`` is cached and finished."""
        with self._lock:
            entry = self._entries.get((session_id, query))
        return entry is not None and entry.ready.is_set()

    def invalidate(self) -> None:
        """Drop finished entries (a write happened); running ones finish and stay."""
        with self._lock:
            for key in [k for k, e in self._entries.items() if e.ready.is_set()]:
                del self._entries[key]

    def _entry(self, query: str, session_id: str) -> _Entry:
        key = (session_id, query)
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                return entry
            entry = self._entries[key] = _Entry()
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

        def run() -> None:
            try:
                entry.text = self._recall(query, session_id)
            finally:
                entry.ready.set()  # a failed recall reads as "" rather than blocking every later ask

        try:
            self._start(run)
        except BaseException:
            with self._lock:
                self._entries.pop(key, None)
            entry.ready.set()
            raise
        return entry
