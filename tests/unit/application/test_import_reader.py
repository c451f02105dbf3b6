"""The import reader: bytes → lines, each decoded on its own, bad lines named by number and byte offset."""

from __future__ import annotations

import codecs
import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hlmem.application.import_reader import UnreadableFile, decode_jsonl, read_jsonl

A = '{"type": "observation", "text": "a"}'
ZH = '{"type": "observation", "text": "我住在杭州"}'


def test_utf8_lines_and_their_ends() -> None:
    decoded = decode_jsonl(f"{A}\n{ZH}\r\n\n{A}\r{A}".encode())
    assert decoded.lines == (A, ZH, "", A, A)
    assert (decoded.errors, decoded.encoding) == ((), "utf-8")


def test_a_utf8_byte_order_mark_is_skipped_and_offsets_still_count_it() -> None:
    decoded = decode_jsonl(codecs.BOM_UTF8 + f"{A}\n".encode() + b'{"text": "\xff"}\n')
    assert decoded.lines == (A, "")
    assert decoded.errors == (f"line 2, byte {3 + len(A) + 1 + 10}: not valid UTF-8 (byte 0xff: invalid start byte)",)


@pytest.mark.parametrize(("bad", "what"), [
    (b"\xff", "byte 0xff: invalid start byte"),
    (b"\xc3", "byte 0xc3: invalid continuation byte"),  # a lead byte followed by '"'
    (b"\xed\xa0\x80", "byte 0xed: invalid continuation byte"),  # an encoded surrogate
    (b"\xc0\xaf", "byte 0xc0: invalid start byte"),  # an overlong '/'
])
def test_one_bad_byte_costs_only_its_line(bad: bytes, what: str) -> None:
    first = f"{A}\n".encode()
    decoded = decode_jsonl(first + b'{"text": "x' + bad + b'"}\n' + f"{ZH}\n".encode())
    assert decoded.lines == (A, "", ZH)
    assert decoded.errors == (f"line 2, byte {len(first) + 11}: not valid UTF-8 ({what})",)


def test_a_truncated_last_line_is_reported() -> None:
    decoded = decode_jsonl(f"{A}\n".encode() + "杭".encode()[:2])
    assert decoded.lines == (A, "")
    assert decoded.errors[0].startswith(f"line 2, byte {len(A) + 1}: not valid UTF-8 (bytes e6 9d")


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_with_a_byte_order_mark_is_decoded_line_by_line(codec: str) -> None:
    bom = codecs.BOM_UTF16_LE if codec == "utf-16-le" else codecs.BOM_UTF16_BE
    decoded = decode_jsonl(bom + f"{A}\r\n{ZH}\n\r{A}".encode(codec))
    assert decoded.lines == (A, ZH, "", A)
    assert (decoded.errors, decoded.encoding) == ((), codec)


def test_utf16_with_a_lone_surrogate_costs_only_its_line() -> None:
    body = f"{A}\n".encode("utf-16-le") + b"\x00\xd8" + "x\n".encode("utf-16-le") + f"{ZH}".encode("utf-16-le")
    decoded = decode_jsonl(codecs.BOM_UTF16_LE + body)
    assert decoded.lines == (A, "", ZH)
    assert decoded.errors == (f"line 2, byte {2 + 2 * (len(A) + 1)}: not valid UTF-16 (bytes 00 d8: illegal UTF-16 "
                              "surrogate)",)


def test_utf16_with_an_odd_byte_at_the_end() -> None:
    decoded = decode_jsonl(codecs.BOM_UTF16_LE + f"{A}\n".encode("utf-16-le") + b"{")
    assert decoded.lines == (A, "")
    assert decoded.errors[0].startswith(f"line 2, byte {2 + 2 * (len(A) + 1)}: not valid UTF-16")


@pytest.mark.parametrize(("data", "message"), [
    (codecs.BOM_UTF32_LE + A.encode("utf-32-le"), "UTF-32"),
    (codecs.BOM_UTF32_BE + A.encode("utf-32-be"), "UTF-32"),
    (A.encode("utf-16-le"), "UTF-16 without a byte-order mark"),
    (A.encode("utf-16-be"), "UTF-16 without a byte-order mark"),
])
def test_encodings_that_would_need_a_guess_are_refused_whole(data: bytes, message: str) -> None:
    with pytest.raises(UnreadableFile, match=message):
        decode_jsonl(data)


def test_empty_input() -> None:
    assert decode_jsonl(b"").lines == ()
    assert decode_jsonl(codecs.BOM_UTF8).lines == ()


@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="\ufeff", blacklist_categories=("Cs", "Cc"))),
                max_size=8),
       st.sampled_from(["\n", "\r\n", "\r"]), st.sampled_from(["utf-8", "utf-8-sig", "utf-16"]))
def test_any_text_round_trips(lines: list[str], end: str, codec: str) -> None:
    # JSON lines hold no raw control characters; utf-16 writes a byte-order mark, as utf-8-sig does.
    decoded = decode_jsonl(end.join(lines).encode(codec))
    assert decoded.errors == ()
    assert decoded.lines == tuple(lines[:-1] if lines and lines[-1] == "" else lines)


# --- streaming (issue 33 item 5): chunk boundaries change nothing, a huge line is not kept -------


@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="\ufeff", blacklist_categories=("Cs",))),
                max_size=6),
       st.sampled_from(["\n", "\r\n", "\r"]), st.sampled_from(["utf-8", "utf-8-sig", "utf-16-le", "utf-16-be"]),
       st.integers(1, 9), st.binary(max_size=3))
def test_reading_in_chunks_of_any_size_gives_what_reading_it_whole_gives(lines: list[str], end: str, codec: str,
                                                                          chunk: int, junk: bytes) -> None:
    bom = {"utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE}.get(codec, b"")
    data = bom + end.join(lines).encode(codec) + junk  # junk: bad bytes, an odd UTF-16 byte, a split CR LF
    try:
        whole = [(r.number, r.text, r.error) for r in read_jsonl(io.BytesIO(data), chunk=len(data) + 1)]
    except UnreadableFile:
        with pytest.raises(UnreadableFile):
            list(read_jsonl(io.BytesIO(data), chunk=chunk))
        return
    assert [(r.number, r.text, r.error) for r in read_jsonl(io.BytesIO(data), chunk=chunk)] == whole
    assert decode_jsonl(data).lines == tuple("" if text is None else text for _, text, _ in whole)


@pytest.mark.parametrize("codec", ["utf-8", "utf-16-le"])
def test_a_line_longer_than_the_limit_is_a_bad_line_and_is_not_kept(codec: str) -> None:
    bom = codecs.BOM_UTF16_LE if codec == "utf-16-le" else b""
    unit = len("a".encode(codec))  # A is ASCII
    long_line = '{"type": "observation", "text": "' + "x" * 300 + '"}'
    data = bom + "\r\n".join([A, long_line, ZH, long_line]).encode(codec)

    class Counting(io.BytesIO):
        def read(self, n: int = -1) -> bytes:
            assert 0 < n <= 256, "reads are bounded (the encoding is recognised from 256 bytes)"
            return super().read(n)

    got = list(read_jsonl(Counting(data), chunk=16, max_line=100))
    assert [r.text for r in got] == [A, None, ZH, None]
    offset = len(bom) + (len(A) + 2) * unit
    assert got[1].error == (f"line 2, byte {offset}: longer than 100 bytes; not read (a record of the import "
                            "format is far shorter)")
    fourth = len(bom) + len(f"{A}\r\n{long_line}\r\n{ZH}\r\n".encode(codec))
    assert got[3].error.startswith(f"line 4, byte {fourth}: longer")
