"""A rich progress bar for long CLI work (replay, import); silent when quiet or not a terminal."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn


@contextmanager
def progress_bar(label: str, total: int | None, *, quiet: bool = False) -> Iterator[Callable[..., None]]:
    """Yield ``advance(done, total=None)``: set the bar to ``done`` (of ``total`` when given: a
    total not known at the start, None, is given later)."""
    if quiet or not sys.stderr.isatty():
        yield lambda done, total=None: None
        return
    with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  transient=True, console=Console(stderr=True)) as bar:
        task = bar.add_task(label, total=total)

        def advance(done: int, total: int | None = None) -> None:
            if total is not None:
                bar.update(task, completed=done, total=total)
            else:
                bar.update(task, completed=done)

        yield advance
