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
import re

from attrs import frozen

from hlmem.domain.errors import ValidationError

_UTF8_BOM = codecs.BOM_UTF8
_UTF16 = ((codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
_UTF32 = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)
_UTF8_BREAK = re.compile(rb"\r\n|\n|\r")


class UnreadableFile(ValidationError):
    """An import file in an encoding hlmem does not read (UTF-32, UTF-16 without a byte-order mark)."""


@frozen
class DecodedInput:
    """A file's lines as text, in order, one per physical line.

    ``lines[i]`` is line ``i + 1``; a line that could not be decoded is ``""`` there (a blank
    line, which the parser skips) and is described in ``errors`` as ``"line N, byte B: …"``.
    """

    lines: tuple[str, ...]
    errors: tuple[str, ...]
    encoding: str


def _utf8_lines(data: bytes, start: int) -> list[tuple[int, bytes]]:
    out: list[tuple[int, bytes]] = []
    at = start
    for m in _UTF8_BREAK.finditer(data, start):
        out.append((at, data[at:m.start()]))
        at = m.end()
    if at < len(data):
        out.append((at, data[at:]))
    return out


def _utf16_lines(data: bytes, start: int, encoding: str) -> list[tuple[int, bytes]]:
    """Split at LF / CR LF / CR *code units* (two bytes, at even offsets from the mark)."""
    lf, cr = "\n".encode(encoding), "\r".encode(encoding)
    out: list[tuple[int, bytes]] = []
    at = i = start
    end = len(data) - 1
    while i < end:
        unit = data[i:i + 2]
        if unit == lf or unit == cr:
            out.append((at, data[at:i]))
            i += 4 if unit == cr and data[i + 2:i + 4] == lf else 2
            at = i
        else:
            i += 2
    if at < len(data):
        out.append((at, data[at:]))
    return out


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


def decode_jsonl(data: bytes) -> DecodedInput:
    """Split ``data`` into lines and decode each on its own.

    :param data: the whole file (or standard input) as bytes.
    :raises UnreadableFile: for UTF-32, and for UTF-16 without a byte-order mark.
    """
    encoding, start = _encoding(data)
    pieces = _utf8_lines(data, start) if encoding == "utf-8" else _utf16_lines(data, start, encoding)
    lines: list[str] = []
    errors: list[str] = []
    for number, (offset, raw) in enumerate(pieces, start=1):
        try:
            lines.append(raw.decode(encoding))
        except UnicodeDecodeError as exc:
            lines.append("")
            bad = raw[exc.start:exc.end]
            name = "UTF-8" if encoding == "utf-8" else "UTF-16"
            what = f"byte 0x{bad[0]:02x}" if len(bad) == 1 else f"bytes {bad.hex(' ')}"
            errors.append(f"line {number}, byte {offset + exc.start}: not valid {name} ({what}: {exc.reason})")
    return DecodedInput(tuple(lines), tuple(errors), encoding)
