"""Stored text made safe to show, and JSON text that a terminal cannot act on.

Stored text is the user's (or a web page's), never ours to interpret: :func:`plain` makes control
characters visible (ESC as the four characters ``\\x1b``) so no escape sequence, carriage return
or bidirectional override reaches a terminal or a tool's error text. JSON stays exact:
:func:`json_text` only writes the same characters as ``\\uXXXX`` escapes, which decode to the same
value. (The CLI's Rich table cells, built on :func:`plain`, are in ``adapters/cli/render.py``.)
"""

from __future__ import annotations

import json
import re
from typing import Any

#: Characters a terminal may act on: C0 controls (but newline and tab), DEL, C1 controls, and the
#: bidirectional marks, embeddings, overrides and isolates that reorder what is shown.
_CONTROL = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_UNSAFE_LINES = re.compile(f"[{_CONTROL}]")
_UNSAFE = re.compile(f"[{_CONTROL}\n\t]")


def _visible(m: re.Match[str]) -> str:
    code = ord(m[0])
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def plain(text: object, *, lines: bool = False) -> str:
    """``text`` safe to print: each control character written out as ``\\xNN`` / ``\\uNNNN``.

    :param lines: keep newlines and tabs (a multi-line text such as a context packet); by
        default they are escaped too, so a value cannot start a line of output of its own.
    """
    return (_UNSAFE_LINES if lines else _UNSAFE).sub(_visible, str(text))


_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_text(data: Any, *, indent: int | None = None) -> str:
    """``data`` as JSON (non-ASCII kept) with the characters a terminal may act on as ``\\u`` escapes.

    ``json.dumps`` already escapes C0 controls; DEL, C1 and the bidirectional controls are
    escaped here. The text decodes to exactly ``data``.
    """
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m[0]):04x}", json.dumps(data, ensure_ascii=False, indent=indent))
