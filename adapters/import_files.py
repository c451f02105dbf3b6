"""Where an import's lines come from, read twice without holding them (issue 33 item 5).

``ImportService.import_stream`` reads its input twice (check every line, then write): a file is
opened again for the second pass (and must not have changed in between), a stream that cannot
seek (standard input) is first copied to a private temporary file, and a one-shot iterator of
lines given to ``Memory.import_jsonl`` is spooled the same way. Nothing here holds more than a
chunk of the input at a time.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from hlmem.application.import_reader import CHUNK, RawLine, read_jsonl
from hlmem.domain.errors import ValidationError

Reader = Callable[[], Iterator[RawLine]]


def _line_number(error: str) -> int:
    head = error.split(":", 1)[0].split(",", 1)[0]
    return int(head.split()[1]) if head.startswith("line ") and head.split()[1].isdigit() else 0


@contextmanager
def file_reader(path: str | os.PathLike[str], *, chunk: int = CHUNK) -> Iterator[Reader]:
    """Read the file at ``path`` from its start at each call, ``chunk`` bytes at a time; a file
    that changed between the calls (size, modification time or inode) is refused before the
    second pass writes anything."""
    target = Path(path)
    first: list[tuple[int, int, int]] = []

    def read() -> Iterator[RawLine]:
        with open(target, "rb") as stream:
            st = os.fstat(stream.fileno())
            seen = (st.st_size, st.st_mtime_ns, st.st_ino)
            if first and first[0] != seen:
                raise ValidationError(f"{target} changed while it was being checked; nothing was imported "
                                      "(import it again when nothing writes to it)", field="file")
            first.append(seen)
            yield from read_jsonl(stream, chunk=chunk)

    yield read


@contextmanager
def stream_reader(stream: BinaryIO) -> Iterator[Reader]:
    """Read a binary stream at each call: from where it stood if it can seek, else from a private
    temporary copy made chunk by chunk (standard input)."""
    try:
        start = stream.tell() if stream.seekable() else None
    except OSError:
        start = None
    if start is not None:
        def read() -> Iterator[RawLine]:
            stream.seek(start)
            yield from read_jsonl(stream)

        yield read
        return
    with tempfile.TemporaryFile(prefix="hlmem-import-") as copy:
        shutil.copyfileobj(stream, copy, CHUNK)

        def read_copy() -> Iterator[RawLine]:
            copy.seek(0)
            yield from read_jsonl(copy)

        yield read_copy


@contextmanager
def lines_reader(lines: Iterable[str], invalid: Sequence[str] = ()) -> Iterator[Reader]:
    """Lines already decoded, read twice: a sequence as it is, a one-shot iterator spooled to a
    private temporary file first (one JSON string per line, so a line keeps any character)."""
    bad = {_line_number(e): e for e in invalid}
    if isinstance(lines, Sequence):
        def read() -> Iterator[RawLine]:
            for number, text in enumerate(lines, start=1):
                yield RawLine(number, None if number in bad else text, bad.get(number))

        yield read
        return
    with tempfile.TemporaryFile(prefix="hlmem-import-") as spool:
        for text in lines:
            spool.write(json.dumps(text).encode("ascii") + b"\n")

        def read_spool() -> Iterator[RawLine]:
            spool.seek(0)
            for number, raw in enumerate(spool, start=1):
                yield RawLine(number, None if number in bad else json.loads(raw), bad.get(number))

        yield read_spool
