"""How long each write transaction waited for SQLite's write lock and how long it held it.

Off unless asked for, and then cheap: one record per outermost write transaction of a
:class:`~hlmem.adapters.sqlite.db.Db`, made after its ``COMMIT`` (or ``ROLLBACK``) returned.

- In a process: set ``Db.on_timing`` (``storage.db.on_timing = records.append``).
- Across processes: ``HLMEM_LOCK_TRACE=FILE`` makes every store opened by the process append one
  JSON line per write transaction to ``FILE`` (one ``write`` of one line in append mode, so
  several processes may share the file). ``benchmarks/cli_contention.py`` reads it.

``wait_ms`` is the time ``BEGIN IMMEDIATE`` took (waiting for another writer, retries included);
``hold_ms`` the time from the lock's grant to the end of ``COMMIT`` (the fsync included): while it
runs, every other writer of the file waits (ADR 0064).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable

from attrs import asdict, frozen

#: The environment variable naming the file write-lock timings are appended to.
TRACE_ENV = "HLMEM_LOCK_TRACE"

#: Modules whose frames are not the "site" of a transaction (the machinery around it).
_MACHINERY = ("hlmem.adapters.sqlite.", "contextlib")


@frozen
class LockTiming:
    """One write transaction: when it began (Unix time), how long it waited for the lock and held
    it, and of that how long its ``COMMIT`` took (milliseconds; the commit is mostly the fsync);
    how it ended (``commit``, ``rollback`` or ``busy``: it never got the lock), the code that
    opened it (``module:Class.method``), the process and the store file."""

    started: float
    wait_ms: float
    hold_ms: float
    commit_ms: float
    outcome: str
    site: str
    pid: int
    path: str


def site() -> str:
    """``module:function`` of the first caller outside the SQLite adapter and ``contextlib``."""
    frame = sys._getframe(1)
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if not module.startswith(_MACHINERY):
            name = getattr(frame.f_code, "co_qualname", frame.f_code.co_name).replace(".<locals>", "")
            return f"{module.removeprefix('hlmem.')}:{name}"
        frame = frame.f_back
    return "?"


def _file_writer(path: str) -> Callable[[LockTiming], None]:
    def write(timing: LockTiming) -> None:
        line = (json.dumps(asdict(timing), ensure_ascii=False) + "\n").encode()
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        except OSError:
            return  # a trace must never fail a write
        try:
            os.write(fd, line)
        except OSError:
            pass
        finally:
            os.close(fd)

    return write


def from_environment(environ: dict[str, str] | None = None) -> Callable[[LockTiming], None] | None:
    """The trace ``HLMEM_LOCK_TRACE`` asks for (a file writer), or None when it is unset."""
    path = (os.environ if environ is None else environ).get(TRACE_ENV, "")
    return _file_writer(path) if path else None
