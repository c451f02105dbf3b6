"""What every route shares: the app's one ``Memory`` and the lock that serialises calls into it.

FastAPI runs the (sync) route functions in its thread pool. One ``Memory`` holds one SQLite
connection whose transactions are per connection, not per thread, so two threads must never be
inside it at once: :func:`call` takes :attr:`ServerState.lock` around each call (ADR 0036).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from attrs import define, field
from fastapi import Request

from hlmem.adapters.server.group_commit import GroupCommit

T = TypeVar("T")


@define
class ServerState:
    """The served store: its ``Memory``, the lock around it, the body limit and where backups go."""

    memory: Any
    max_body_bytes: int
    #: ``POST /v1/backup`` writes only here (:mod:`hlmem.adapters.server.backups`).
    backup_dir: Path
    lock: threading.Lock = field(factory=threading.Lock)
    #: Concurrent ``POST /v1/events`` share transactions under :attr:`lock`.
    group: GroupCommit = field(init=False)

    @group.default
    def _group(self) -> GroupCommit:
        return GroupCommit(self.lock)


def state(request: Request) -> ServerState:
    """The app's :class:`ServerState`."""
    return request.app.state.hlmem


def call(request: Request, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(memory, *args, **kwargs)`` with the memory lock held."""
    served = state(request)
    with served.lock:
        return fn(served.memory, *args, **kwargs)
