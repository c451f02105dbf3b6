"""A rich progress bar for long CLI work (replay, import); silent when quiet or not a terminal."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn


@contextmanager
def progress_bar(label: str, total: int, *, quiet: bool = False) -> Iterator[Callable[[int], None]]:
    """Yield ``advance(done)``: set the bar to ``done`` of ``total``."""
    if quiet or not sys.stderr.isatty():
        yield lambda done: None
        return
    with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  transient=True, console=Console(stderr=True)) as bar:
        task = bar.add_task(label, total=total)
        yield lambda done: bar.update(task, completed=done)
