"""The process's recall threads: where a recall's full-text search runs while the calling thread
embeds the query and searches vectors (ADR 0022).

One small pool serves every store the process opens, the way the process's cores do: a store per
test or per tenant adds no threads. The pool is made on first use and made again in a forked child
(the parent's threads do not exist there).
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Executor, ThreadPoolExecutor

__all__ = ["recall_executor"]

#: Recalls in flight that can each run their full-text search beside their vector search at once.
#: More threads than cores gain nothing: both halves are CPU work.
_MAX_THREADS = 4

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


def recall_executor(enabled: object = None) -> Executor | None:
    """The shared pool, or None (run one after the other) when turned off or on a single core.

    :param enabled: ``False`` turns it off; None or True: on where there are two cores or more.
    """
    global _pool
    cores = os.cpu_count() or 1
    if enabled is False or cores < 2:
        return None
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=min(_MAX_THREADS, cores), thread_name_prefix="hlmem-recall")
        return _pool


def _forget_pool() -> None:
    global _pool, _lock
    _pool, _lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)
