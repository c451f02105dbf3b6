"""Running ``hlmem`` from tests: one environment, one result type, in this process or in a new one.

``run_cli`` runs the console script's own entry function (the ``hlmem`` entry point, which is
``main`` in adapters/cli/main.py) in this process by default: the same error handling, exit codes
and last-resort handler, without an interpreter, jieba and embedder start-up per command. Set
``HLMEM_TEST_CLI=subprocess`` to run every such command through the installed script instead (the
two must agree: ``HLMEM_TEST_CLI=subprocess pytest tests/e2e``). ``process=True`` always runs the
installed script: for what only a real process shows (several processes on one store, a real
standard input).

In this process each command sees what a new process would: exactly the environment it is given
(``os.environ`` is swapped, then restored), ``db``'s folder as working directory, its own
``sys.argv``, standard input (empty unless given: never a terminal) and captured output, and
Click's help width taken from ``COLUMNS``. Signal handlers and logging handlers it installs are
removed afterwards. Commands run one at a time (a lock): tests that start them from threads get
them one after the other. Caches of pure results (jieba's dictionary, embeddings, parsed times)
stay warm between commands; that is what makes it fast, and they do not depend on the store.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from attrs import frozen

#: The installed console script (None when hlmem is not installed: tests skip).
HLMEM = shutil.which("hlmem")
#: ``subprocess`` runs every command through the installed script; anything else, in this process.
MODE_VARIABLE = "HLMEM_TEST_CLI"

_one_at_a_time = threading.Lock()


@frozen
class Run:
    """One finished command."""

    args: tuple[str, ...]
    code: int
    out: str
    err: str

    def json(self) -> Any:
        assert self.code == 0, self
        return json.loads(self.out)


def cli_env(db: Path, **extra: str) -> dict[str, str]:
    """This process's environment without any ``HLMEM_*`` setting, pointed at ``db``, plain output."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HLMEM_")}
    env.update(HLMEM_DB=str(db), NO_COLOR="1", COLUMNS="200", PYTHONIOENCODING="utf-8")
    env.update(extra)
    return env


def in_subprocesses() -> bool:
    """Whether ``run_cli`` runs commands through the installed script (``HLMEM_TEST_CLI=subprocess``)."""
    return os.environ.get(MODE_VARIABLE, "").strip().lower() == "subprocess"


def run_cli(db: Path, argv: Sequence[str], *, env: dict[str, str] | None = None, stdin: str | bytes | None = None,
            timeout: float = 180, shown: Sequence[str] | None = None, process: bool = False) -> Run:
    """Run ``hlmem *argv`` in ``db``'s folder; ``shown`` is what the Run reports as its args.

    ``stdin`` is the whole standard input (none given: empty). Output is decoded as UTF-8; with text
    or no input its line ends are translated as ``subprocess.run(text=True)`` does, with bytes input
    they are kept. ``timeout`` bounds a subprocess only. ``process=True`` always runs the installed
    script.
    """
    env = env or cli_env(db)
    data = stdin.encode("utf-8") if isinstance(stdin, str) else (stdin or b"")
    if process or in_subprocesses():
        assert HLMEM is not None, "the hlmem console script is not installed"
        done = subprocess.run([HLMEM, *argv], env=env, capture_output=True, timeout=timeout, input=data,
                              cwd=db.parent)
        code, out, err = done.returncode, done.stdout, done.stderr
    else:
        code, out, err = _in_this_process(db.parent, list(argv), env, data)
    text = not isinstance(stdin, bytes)
    return Run(tuple(shown if shown is not None else argv), code, _decode(out, text), _decode(err, text))


def _decode(data: bytes, text: bool) -> str:
    decoded = data.decode("utf-8")
    return decoded.replace("\r\n", "\n").replace("\r", "\n") if text else decoded


@cache
def _entry() -> Callable[[], Any]:
    """The function the installed ``hlmem`` script calls (``sys.exit(main())``)."""
    (point,) = entry_points(group="console_scripts", name="hlmem")
    return point.load()


def _in_this_process(cwd: Path, argv: list[str], env: dict[str, str], stdin: bytes) -> tuple[int, bytes, bytes]:
    """Run the entry function as the script does; returns the exit code and the bytes written."""
    from click import formatting
    from click.testing import CliRunner

    entry = _entry()
    # Every variable this process has that the command's environment lacks is unset meanwhile.
    overrides: dict[str, str | None] = {k: None for k in os.environ if k not in env}
    overrides.update(env)
    with _one_at_a_time, _kept_process_state(cwd, argv), \
            CliRunner(charset="utf-8").isolation(input=stdin, env=overrides) as (out, err, _):
        formatting.FORCED_WIDTH = None  # the runner fixes 80 columns; a process reads COLUMNS (restored on exit)
        code = _exit_code(entry)
        sys.stdout.flush()
        sys.stderr.flush()
        return code, out.getvalue(), err.getvalue()


def _exit_code(entry: Callable[[], Any]) -> int:
    """What ``sys.exit(entry())`` ends the process with, and what the interpreter prints on the way."""
    try:
        status = entry()
    except SystemExit as exc:
        status = exc.code
    except BaseException:  # noqa: BLE001 - the interpreter's own last resort: a traceback, exit 1
        traceback.print_exc()
        return 1
    if status is None or isinstance(status, int):
        return status or 0
    print(status, file=sys.stderr)  # sys.exit("text") prints it and exits 1
    return 1


@contextmanager
def _kept_process_state(cwd: Path, argv: list[str]) -> Iterator[None]:
    """Working directory, ``sys.argv``, signal and logging handlers, as before once the command ends."""
    old_cwd, old_argv = os.getcwd(), sys.argv
    main_thread = threading.current_thread() is threading.main_thread()
    signals = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    loggers = {name: list(logging.getLogger(name).handlers) for name in ("", "hlmem", "jieba")}
    os.chdir(cwd)
    sys.argv = ["hlmem", *argv]
    try:
        yield
    finally:
        sys.argv = old_argv
        os.chdir(old_cwd)
        for name, handlers in loggers.items():
            logging.getLogger(name).handlers[:] = handlers
        if main_thread:  # a command run from another thread cannot install any (Python refuses)
            for number, handler in signals.items():
                if signal.getsignal(number) is not handler:
                    signal.signal(number, handler)


def end_process(proc: subprocess.Popen, timeout: float = 15) -> None:
    """Terminate a server process a test started, kill it if it will not stop, close its stderr."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=timeout)
    if proc.stderr:
        proc.stderr.close()
