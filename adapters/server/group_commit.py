"""Group commit for ``POST /v1/events``: concurrent single-event writes share one transaction.

Every commit of a durable store (``synchronous=FULL``, the default) waits for an fsync, so a
server committing each request on its own is bound by the disk, not by HTTP. Here a request
joins a queue and then waits for the memory lock; whoever gets the lock writes *everything*
queued by then with ``Memory.add_many`` (one transaction, one fsync) and hands each waiting
request its own result. The ones it served find their result ready when they get the lock and
return at once. No extra thread, no timer: a lone client pays nothing, and under load the
groups grow by themselves (ADR 0036).

A group is all or nothing, so one bad event must not fail its neighbours: when ``add_many``
refuses a group before writing anything (invalid input, forgotten content), each event is
written on its own and gets its own result or error. Any other failure is every member's.
"""

from __future__ import annotations

import threading
from typing import Any

from attrs import define, field

from hlmem.domain.errors import ValidationError
from hlmem.domain.forgetting import ForgottenContent

#: Most events one transaction takes (a bound on how long the first of them waits).
MAX_GROUP = 256
#: What ``add_many`` raises before it writes anything: safe to retry event by event.
_REFUSED = (ValidationError, ForgottenContent, ExceptionGroup)


@define(eq=False)
class _Waiter:
    event: dict[str, Any]
    extract: bool
    process: bool
    done: bool = False
    result: Any = None
    error: BaseException | None = None


@define
class GroupCommit:
    """Queues single-event writes and commits them in groups under ``lock`` (the memory's)."""

    lock: threading.Lock
    max_group: int = MAX_GROUP
    _pending: list[_Waiter] = field(factory=list, init=False)
    _queue_lock: threading.Lock = field(factory=threading.Lock, init=False)
    #: Groups written and events they held (for tests and the benchmark).
    groups: int = field(default=0, init=False)
    grouped: int = field(default=0, init=False)

    def add(self, memory: Any, event: dict[str, Any], *, extract: bool = True, process: bool = True) -> Any:
        """``memory.add(**event, extract=…, process=…)``, possibly in one transaction with others."""
        waiter = _Waiter(event, extract, process)
        with self._queue_lock:
            self._pending.append(waiter)
        while True:
            with self.lock:
                if waiter.done:
                    break
                with self._queue_lock:
                    group, self._pending = self._pending[:self.max_group], self._pending[self.max_group:]
                self._write(memory, group)
            if waiter.done:  # served by this round (it is always in the first max_group unless others queued first)
                break
        if waiter.error is not None:
            raise waiter.error
        return waiter.result

    def _write(self, memory: Any, group: list[_Waiter]) -> None:
        self.groups += 1
        self.grouped += len(group)
        try:
            try:
                results = memory.add_many([w.event | {"extract": w.extract, "process": w.process} for w in group])
            except _REFUSED:
                if len(group) == 1:
                    raise
                for w in group:  # nothing was written: each event on its own, with its own outcome
                    try:
                        w.result = memory.add(**w.event, extract=w.extract, process=w.process)
                    except Exception as exc:  # noqa: BLE001 - handed to that request
                        w.error = exc
                    w.done = True
                return
            for w, result in zip(group, results, strict=True):
                w.result, w.done = result, True
        except Exception as exc:  # noqa: BLE001 - every member's failure
            for w in group:
                if not w.done:
                    w.error, w.done = exc, True
