"""One background thread for the Hermes provider: writes and recalls run in order, off the agent's turn.

Hermes asks ``sync_turn`` to be non-blocking and ``prefetch`` to be fast (its ``MemoryProvider``
docstrings), so both hand their work to this thread. One thread, one FIFO queue: a recall queued
after a write sees that write, and the store is used by one caller at a time (the provider's
lock is held around every call into ``Memory``, here and on the agent's thread).
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

_STOP = object()


class Background:
    """A single daemon worker thread running submitted callables in submission order.

    A task that raises is logged and counted in :attr:`errors` (the thread keeps going), so a bad
    turn never stops the ones after it. :meth:`drain` waits (bounded) until everything submitted
    so far has run; :meth:`stop` drains, then ends the thread.
    """

    def __init__(self, name: str = "hlmem-hermes") -> None:
        self._queue: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._stopped = False
        self.errors: list[BaseException] = []
        self._thread.start()

    @property
    def alive(self) -> bool:
        """Whether the worker thread is still running."""
        return self._thread.is_alive()

    def submit(self, task: Callable[[], object]) -> None:
        """Queue ``task``; it runs after every task submitted before it.

        :raises RuntimeError: after :meth:`stop` (the provider was shut down).
        """
        if self._stopped:
            raise RuntimeError("the hlmem Hermes provider is shut down: call initialize() again to use it")
        self._queue.put(task)

    def drain(self, timeout: float | None = 30.0) -> bool:
        """Wait until every task submitted so far has run; False if ``timeout`` seconds passed first."""
        if not self._thread.is_alive():
            return self._queue.unfinished_tasks == 0
        done = threading.Event()
        self._queue.put(done.set)
        return done.wait(timeout)

    def stop(self, timeout: float | None = 30.0) -> bool:
        """Run what is queued, then end the thread; True when the thread has ended."""
        if not self._stopped:
            self._stopped = True
            self._queue.put(_STOP)
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _run(self) -> None:
        while True:
            task = self._queue.get()
            try:
                if task is _STOP:
                    return
                task()
            except Exception as exc:  # noqa: BLE001 - one failed task must not stop the rest
                log.warning("hlmem Hermes background task failed: %s", exc, exc_info=exc)
                self.errors.append(exc)
            finally:
                self._queue.task_done()
