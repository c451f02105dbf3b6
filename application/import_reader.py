"""Reading an import file: bytes → one text per line, each line decoded on its own (docs/import-format.md).

A file is read as bytes and split into lines before anything is decoded, so one bad byte costs
one line, never the file; each bad line is reported with its number and the byte offset (from the
start of the file, 0-based) of the first byte that cannot be decoded. Encodings:

- UTF-8, with or without a byte-order mark (``EF BB BF``, skipped);
- UTF-16 with a byte-order mark (``FF FE`` little-endian, ``FE FF`` big-endian), as Windows
  PowerShell and Notepad write it: decoded, line by line, the same way;
- UTF-32 (by its byte-order mark), and UTF-16 without one (recognised by its NUL bytes), are
  refused as a whole with a message saying to save the file as UTF-8: guessing could import garbage.

Lines end at LF, CR LF or a lone CR (a JSON text can contain none of them unescaped).
"""

from __future__ import annotations

import codecs
import io
import re
from collections.abc import Callable, Iterator
from typing import BinaryIO

from attrs import frozen

from hlmem.domain.errors import ValidationError

_UTF8_BOM = codecs.BOM_UTF8
_UTF16 = ((codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
_UTF32 = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)
_UTF8_BREAK = re.compile(rb"\r\n|\n|\r")
#: Bytes read at a time (:func:`read_jsonl`).
CHUNK = 1 << 20
#: A longer line is a bad line, not read into memory (the longest valid record is far shorter).
MAX_LINE_BYTES = 16 << 20
#: Bytes the encoding is recognised from.
_HEAD = 256


class UnreadableFile(ValidationError):
    """An import file in an encoding hlmem does not read (UTF-32, UTF-16 without a byte-order mark)."""


@frozen
class RawLine:
    """One physical line: its number (from 1) and its text, or why it has none (``error``:
    ``"line N, byte B: …"``, B the file offset of the first byte that does not decode)."""

    number: int
    text: str | None
    error: str | None


@frozen
class DecodedInput:
    """A file's lines as text, in order, one per physical line.

    ``lines[i]`` is line ``i + 1``; a line that could not be decoded is ``""`` there (a blank
    line, which the parser skips) and is described in ``errors`` as ``"line N, byte B: …"``.
    """

    lines: tuple[str, ...]
    errors: tuple[str, ...]
    encoding: str


def _looks_like_utf16(data: bytes) -> bool:
    # ASCII text in UTF-16 has a NUL in every other byte; UTF-8 JSON text has none at all.
    head = data[:256]
    return len(head) >= 4 and (head[1::2].count(0) >= len(head) // 4 or head[0::2].count(0) >= len(head) // 4)


def _encoding(data: bytes) -> tuple[str, int]:
    if data.startswith(_UTF32):
        raise UnreadableFile("the file is UTF-32 (by its byte-order mark); save it as UTF-8", field="file")
    for bom, encoding in _UTF16:
        if data.startswith(bom):
            return encoding, len(bom)
    if data.startswith(_UTF8_BOM):
        return "utf-8", len(_UTF8_BOM)
    if _looks_like_utf16(data):
        raise UnreadableFile("the file looks like UTF-16 without a byte-order mark; save it as UTF-8 "
                             "(or as UTF-16 with a byte-order mark)", field="file")
    return "utf-8", 0


def check_encoding(head: bytes) -> str:
    """The encoding a file starting with ``head`` (its first 256 bytes or more) is read in.

    :raises UnreadableFile: for UTF-32, and for UTF-16 without a byte-order mark.
    """
    return _encoding(head[:_HEAD])[0]


def read_jsonl(stream: BinaryIO, *, chunk: int = CHUNK, max_line: int = MAX_LINE_BYTES) -> Iterator[RawLine]:
    """The lines of ``stream`` (a file opened in binary mode, or standard input's buffer), one by
    one, each decoded on its own; at most ``chunk`` bytes are read at a time and one line is
    held, so memory does not grow with the file.

    A line longer than ``max_line`` bytes (no record of the import format comes near it) is not
    kept: it is reported as a bad line and skipped to its end.

    :raises UnreadableFile: for UTF-32, and for UTF-16 without a byte-order mark.
    """
    head = b""
    while len(head) < _HEAD and (more := stream.read(_HEAD - len(head))):
        head += more
    encoding, start = _encoding(head)
    name = "UTF-8" if encoding == "utf-8" else "UTF-16"
    breaks = _utf8_break if encoding == "utf-8" else _utf16_break(encoding)
    for number, (offset, raw) in enumerate(_split(stream, head, start, chunk, max_line, breaks), start=1):
        if raw is None:
            limit = f"{max_line >> 20} MiB" if max_line >= 1 << 20 else f"{max_line} bytes"
            yield RawLine(number, None, f"line {number}, byte {offset}: longer than {limit}; not read (a record "
                                        "of the import format is far shorter)")
            continue
        try:
            yield RawLine(number, raw.decode(encoding), None)
        except UnicodeDecodeError as exc:
            bad = raw[exc.start:exc.end]
            what = f"byte 0x{bad[0]:02x}" if len(bad) == 1 else f"bytes {bad.hex(' ')}"
            yield RawLine(number, None, f"line {number}, byte {offset + exc.start}: not valid {name} "
                                        f"({what}: {exc.reason})")


def _utf8_break(data: bytes, at: int, eof: bool) -> tuple[int, int] | None:
    """The first line break in ``data`` from ``at`` as (start, end); None when there is none yet
    (a CR at the very end may be the first half of a CR LF)."""
    found = _UTF8_BREAK.search(data, at)
    if found is None or (not eof and found.end() == len(data) and found.group() == b"\r"):
        return None
    return found.start(), found.end()


def _utf16_break(encoding: str) -> Callable[[bytes, int, bool], tuple[int, int] | None]:
    """The same for UTF-16: LF / CR LF / CR *code units*, two bytes at even offsets from ``at``."""
    lf, cr = "\n".encode(encoding), "\r".encode(encoding)

    def unit(data: bytes, unit_bytes: bytes, at: int) -> int:
        i = data.find(unit_bytes, at)
        while i >= 0 and (i - at) % 2:
            i = data.find(unit_bytes, i + 1)
        return i

    def find(data: bytes, at: int, eof: bool) -> tuple[int, int] | None:
        hits = [i for i in (unit(data, lf, at), unit(data, cr, at)) if i >= 0]
        if not hits:
            return None
        i = min(hits)
        if data[i:i + 2] == lf:
            return i, i + 2
        if len(data) < i + 4 and not eof:
            return None  # a CR whose next unit has not been read
        return (i, i + 4) if data[i + 2:i + 4] == lf else (i, i + 2)

    return find


def _split(stream: BinaryIO, data: bytes, start: int, chunk: int, max_line: int,
           find_break: Callable[[bytes, int, bool], tuple[int, int] | None]) -> Iterator[tuple[int, bytes | None]]:
    """``(offset, raw line)`` per line (``None`` for a line over ``max_line`` bytes), reading
    ``chunk`` bytes at a time; ``data`` is what was read already, from offset 0."""
    base = 0  # the file offset of data[0]
    at = start  # where the current line starts, in data
    too_long = False
    start_of_line = 0  # the offset of a line over max_line, reported instead of where reading is
    eof = False
    while True:
        while (found := find_break(data, at, eof)) is not None:
            yield (start_of_line if too_long else base + at), \
                None if too_long or found[0] - at > max_line else data[at:found[0]]
            at, too_long = found[1], False
        if eof:
            if at < len(data) or too_long:
                yield (start_of_line if too_long else base + at), \
                    None if too_long or len(data) - at > max_line else data[at:]
            return
        if len(data) - at > max_line:
            # Drop the line read so far but its last bytes (half a CR LF), an even number of them
            # (UTF-16 code units stay aligned); the line's offset stays its start.
            drop = (len(data) - at - 4) & ~1
            if not too_long:
                start_of_line, too_long = base + at, True
            base, data, at = base + at + drop, data[at + drop:], 0
        else:
            base, data, at = base + at, data[at:], 0
        more = stream.read(chunk)
        if more:
            data += more
        else:
            eof = True


def decode_jsonl(data: bytes) -> DecodedInput:
    """Split ``data`` into lines and decode each on its own (:func:`read_jsonl` over bytes in memory).

    :param data: the whole file (or standard input) as bytes.
    :raises UnreadableFile: for UTF-32, and for UTF-16 without a byte-order mark.
    """
    lines: list[str] = []
    errors: list[str] = []
    encoding = _encoding(data[:_HEAD])[0]
    for raw in read_jsonl(io.BytesIO(data)):
        lines.append(raw.text if raw.text is not None else "")
        if raw.error:
            errors.append(raw.error)
    return DecodedInput(tuple(lines), tuple(errors), encoding)
