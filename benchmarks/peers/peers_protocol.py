"""The JSON-lines protocol between ``run.py`` and one system's driver process.

Every driver runs in its own system's interpreter (hlmem's, Mem0's venv, HL-Mem's venv), so this
module uses the standard library only and runs on Python 3.10 and later. One request is one line
of JSON on the driver's stdin; one reply is one line on its stdout. The driver's first line is a
``hello`` naming the system, its version and its Python.

Requests (``op`` and its fields)::

    {"op": "warm",   "dir": PATH, "dim": N, "model": ID, "texts": [...], "vectors": [B64, ...],
                     "query": Q, "query_vector": B64}
    {"op": "open",   "dir": PATH, "dim": N, "model": ID, "scope": "conv-26"}
    {"op": "add",    "id": "D1:3", "text": "...", "vector": B64, "session": "session_1", "speaker": "Caroline",
                     "occurred_at": ISO or null}
    {"op": "recall", "text": "...", "vector": B64, "k": 10, "now": ISO or null}
    {"op": "close"}
    {"op": "quit"}

Replies are ``{"ok": true, ...}`` with ``cpu_ms`` and ``wall_ms``: the driver's process CPU time
(``time.process_time``, every thread of the process) and wall time measured around the system's
own API call only, after the vector was decoded into the system's format and before its answer
was mapped back to dataset ids. ``add`` answers ``ref`` (the system's id for the memory),
``recall`` answers ``ids`` (dataset ids, best first). A failure is ``{"ok": false, "error": ...}``.

Lines are ASCII (JSON escapes the rest), so no locale can garble a turn's text. Vectors travel as
base64 of little-endian float32 (exact, and a fifth of JSON floats' size).
"""

from __future__ import annotations

import base64
import json
import os
import platform
import queue
import resource
import subprocess
import sys
import threading
import time
import traceback
from array import array
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

PROTOCOL_VERSION = 1
OPS = ("warm", "open", "add", "recall", "close")


class ProtocolError(RuntimeError):
    """A malformed message, a driver that died or answered an error, or one that took too long."""


# --- vectors -----------------------------------------------------------------------------------

def encode_vector(values: Sequence[float] | Any) -> str:
    """Base64 of ``values`` as little-endian float32 (a numpy row or any sequence of numbers)."""
    raw = array("f", (float(v) for v in values))
    if sys.byteorder == "big":
        raw.byteswap()
    return base64.b64encode(raw.tobytes()).decode("ascii")


def decode_vector(text: str, dim: int | None = None) -> array:
    """The float32 array :func:`encode_vector` wrote; ``dim``, when given, must match."""
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (ValueError, AttributeError) as exc:
        raise ProtocolError(f"vector is not base64: {exc}") from None
    if len(raw) % 4:
        raise ProtocolError(f"vector of {len(raw)} bytes is not float32")
    values = array("f")
    values.frombytes(raw)
    if sys.byteorder == "big":
        values.byteswap()
    if dim is not None and len(values) != dim:
        raise ProtocolError(f"vector has {len(values)} dimensions, expected {dim}")
    return values


# --- the driver's side ------------------------------------------------------------------------

class Stopwatch:
    """Process CPU and wall milliseconds spent inside ``with watch:`` blocks (they add up)."""

    def __init__(self) -> None:
        self.cpu_ms = 0.0
        self.wall_ms = 0.0
        self.blocks = 0
        self._start: tuple[float, float] | None = None

    def __enter__(self) -> Stopwatch:
        self._start = (time.process_time(), time.perf_counter())
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._start is not None
        cpu, wall = self._start
        self.cpu_ms += (time.process_time() - cpu) * 1000
        self.wall_ms += (time.perf_counter() - wall) * 1000
        self.blocks += 1
        self._start = None


def peak_rss_mib() -> float:
    """This process's peak resident set size in MiB (Linux reports KiB)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def hello(name: str, version: str) -> dict[str, Any]:
    """The first line a driver writes."""
    return {"ok": True, "op": "hello", "system": name, "version": version, "protocol": PROTOCOL_VERSION,
            "python": platform.python_version(), "executable": sys.executable, "pid": os.getpid()}


def protocol_stdout() -> IO[str]:
    """A private copy of stdout for the protocol; fd 1 and ``sys.stdout`` then go to stderr.

    Libraries print notices and progress to stdout; they must not corrupt the replies.
    """
    private = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    sys.stdout.flush()
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return private


def handle(handler: Any, message: Mapping[str, Any]) -> dict[str, Any]:
    """One request to ``handler.op_<op>(message, watch)``; the reply with the watch's figures.

    A handler must time its system's call with ``with watch:``; one that did not is a bug in the
    driver and answered as an error, as is any exception.
    """
    op = message.get("op")
    if op not in OPS:
        return {"ok": False, "error": f"unknown op {op!r} (one of {', '.join(OPS)}, quit)"}
    watch = Stopwatch()
    try:
        result = getattr(handler, f"op_{op}")(message, watch) or {}
    except Exception as exc:  # the parent decides what a failure means; the driver keeps serving
        return {"ok": False, "op": op, "error": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc()[-3000:]}
    if op in ("add", "recall") and watch.blocks == 0:
        return {"ok": False, "op": op, "error": f"driver did not time its {op} call"}
    return {"ok": True, "op": op, **result, "cpu_ms": round(watch.cpu_ms, 4), "wall_ms": round(watch.wall_ms, 4)}


def serve(handler: Any, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> None:
    """Answer requests until ``quit`` or end of input; the handler has ``name``, ``version`` and ``op_*``."""
    stdin = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else protocol_stdout()

    def reply(obj: Mapping[str, Any]) -> None:
        out.write(json.dumps(obj) + "\n")
        out.flush()

    reply(hello(handler.name, handler.version))
    for line in stdin:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
            if not isinstance(message, dict):
                raise ValueError("a request is a JSON object")
        except ValueError as exc:
            reply({"ok": False, "error": f"bad request: {exc}"})
            continue
        if message.get("op") == "quit":
            reply({"ok": True, "op": "quit", "peak_rss_mib": peak_rss_mib()})
            return
        reply(handle(handler, message))


# --- the parent's side ------------------------------------------------------------------------

class Driver:
    """A driver process: ``call(op, **fields)`` sends one request and returns its reply.

    :param argv: the command (an interpreter and a driver script).
    :param log: file that receives the driver's stderr (its libraries' chatter and tracebacks).
    :param timeout: seconds to wait for any one reply (the hello included: imports can be slow).
    """

    def __init__(self, name: str, argv: Sequence[str], *, log: Path, env: Mapping[str, str] | None = None,
                 timeout: float = 600.0, cwd: Path | None = None) -> None:
        self.name = name
        self.log = log
        self.timeout = timeout
        log.parent.mkdir(parents=True, exist_ok=True)
        self._log_file = open(log, "w", encoding="utf-8")  # noqa: SIM115 - closed in close()
        self._proc = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=self._log_file, text=True, encoding="utf-8", bufsize=1,
                                      env=dict(env) if env is not None else None, cwd=cwd)
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.hello = self._receive("hello")
        if self.hello.get("protocol") != PROTOCOL_VERSION:
            self.close()
            raise ProtocolError(f"{name}: driver speaks protocol {self.hello.get('protocol')}, "
                                f"expected {PROTOCOL_VERSION}")

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def _receive(self, op: str) -> dict[str, Any]:
        try:
            line = self._lines.get(timeout=self.timeout)
        except queue.Empty:
            self.kill()
            raise ProtocolError(f"{self.name}: no answer to {op} within {self.timeout:.0f} s "
                                f"(log: {self.log})") from None
        if line is None:
            code = self._proc.wait(timeout=10)
            raise ProtocolError(f"{self.name}: driver exited ({code}) before answering {op}; "
                                f"last lines of {self.log}:\n{self.log_tail()}")
        try:
            reply = json.loads(line)
        except ValueError:
            raise ProtocolError(f"{self.name}: not a JSON reply to {op}: {line[:200]!r}") from None
        if not reply.get("ok"):
            raise ProtocolError(f"{self.name}: {op} failed: {reply.get('error')}\n{reply.get('traceback', '')}")
        return reply

    def call(self, op: str, **fields: Any) -> dict[str, Any]:
        """Send ``{"op": op, **fields}`` and return the reply (raises :class:`ProtocolError`)."""
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(json.dumps({"op": op, **fields}) + "\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            raise ProtocolError(f"{self.name}: driver is gone; last lines of {self.log}:\n{self.log_tail()}") from None
        return self._receive(op)

    def log_tail(self, lines: int = 30) -> str:
        """The last lines of the driver's stderr."""
        self._log_file.flush()
        try:
            return "\n".join(self.log.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def close(self) -> dict[str, Any]:
        """Ask the driver to quit; its last reply (peak RSS), or {} when it had to be killed."""
        last: dict[str, Any] = {}
        if self._proc.poll() is None:
            try:
                last = self.call("quit")
                self._proc.wait(timeout=30)
            except (ProtocolError, subprocess.TimeoutExpired):
                self.kill()
        self._log_file.close()
        return last

    def kill(self) -> None:
        """End the driver process now."""
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait(timeout=10)


def run_driver(make_handler: Callable[[], Any]) -> None:
    """A driver script's ``main``: build the handler (imports its system), then :func:`serve`."""
    out = protocol_stdout()
    handler = make_handler()
    serve(handler, stdout=out)
