"""The CLI's renderers keep stored text inert: markup shown as typed, controls visible, JSON exact."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console
from rich.table import Table

from hlmem.adapters.cli.render import cell, json_text, plain

CONTROLS = [chr(c) for c in (*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0))] + \
    ["\u061c", "\u200e", "\u200f", "\u2028", "\u2029", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))]


@pytest.mark.parametrize("ch", CONTROLS, ids=lambda c: f"U+{ord(c):04X}")
def test_every_control_is_written_out(ch: str) -> None:
    shown = plain(f"a{ch}b")
    assert ch not in shown and shown.startswith("a\\") and shown.endswith("b")
    assert ch not in cell(f"a{ch}b").plain
    assert json.loads(json_text({"t": f"a{ch}b"})) == {"t": f"a{ch}b"} and ch not in json_text(f"a{ch}b")


def test_newlines_and_tabs_are_escaped_unless_lines_are_wanted() -> None:
    assert plain("a\nb\tc") == "a\\x0ab\\x09c"
    assert plain("a\nb\tc", lines=True) == "a\nb\tc"


def test_ordinary_text_is_unchanged() -> None:
    text = "我住在杭州 — café [not markup] ✓ 🎉 \\x1b"
    assert plain(text) == text and cell(text).plain == text


def test_a_table_cell_is_never_markup() -> None:
    table = Table()
    table.add_column("text")
    table.add_row(cell("[bold red]x[/] [link=http://x]y[/link] :smile: \x1b[31mred"))
    out = io.StringIO()
    Console(file=out, width=200, force_terminal=True, color_system="truecolor").print(table)
    shown = out.getvalue()
    assert "[bold red]x[/] [link=http://x]y[/link] :smile: \\x1b[31mred" in shown
    assert "\x1b]8;" not in shown  # no hyperlink escape
    assert "\x1b[1;31m" not in shown  # no bold red
