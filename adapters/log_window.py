"""Keyset paging over a window of log positions, shared by the SQL stores' ``read_types``."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

#: Above every log position: the open end of a window.
NO_END = 2 ** 62


def window_rows(fetch: Callable[[int, int, int], Sequence[Sequence]], *, after: int, before: int | None,
                limit: int | None, newest_first: bool, chunk: int) -> Iterator[Sequence]:
    """The rows whose position lies strictly between ``after`` and ``before`` (None: no end), at
    most ``limit`` of them, fetched ``chunk`` at a time. ``fetch(low, high, size)`` returns at
    most ``size`` rows with ``low < position < high``, position (the row's first column)
    ascending, or descending when ``newest_first``; a short page ends the walk."""
    low, high, remaining = after, NO_END if before is None else before, limit
    while remaining is None or remaining > 0:
        size = chunk if remaining is None else min(chunk, remaining)
        found = fetch(low, high, size)
        yield from found
        if len(found) < size:
            return
        if newest_first:
            high = found[-1][0]
        else:
            low = found[-1][0]
        if remaining is not None:
            remaining -= len(found)
