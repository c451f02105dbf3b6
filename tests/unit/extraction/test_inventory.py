"""docs/extraction.md lists every rule (generated from the rule tables), and every example fires its rule."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

import pytest

from hlmem.application.extraction import frames_en, frames_zh
from hlmem.application.extraction.inventory import rows, rule_table
from hlmem.application.extraction.rules import extract
from hlmem.domain.candidates import SourceEvent
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

DOC = Path(__file__).resolve().parents[3] / "docs" / "extraction.md"


def test_the_doc_holds_the_generated_table() -> None:
    page = DOC.read_text(encoding="utf-8")
    table = re.search(r"<!-- rules:begin -->\n(.*?)\n<!-- rules:end -->", page, re.S)
    assert table, "docs/extraction.md needs the <!-- rules:begin --> … <!-- rules:end --> block"
    assert table.group(1) == rule_table(), "regenerate: python -m hlmem.application.extraction.inventory"


def test_rule_names_are_unique() -> None:
    names = [r[0] for r in rows()]
    assert len(names) == len(set(names))


@pytest.mark.parametrize(("name", "lang", "what", "slot", "example"), rows(), ids=[r[0] for r in rows()])
def test_every_example_makes_a_claim_of_its_rule(name: str, lang: str, what: str, slot: str, example: str) -> None:
    event = SourceEvent(event_id="ev_1", text=example, role="user", session_id="s", origin_class="direct_user",
                        session_kind="interactive", occurred_at=datetime(2026, 6, 3, tzinfo=timezone.utc))
    found = extract([event], DEFAULT_REGISTRY)
    frame_names = {r.name for r in (*frames_zh.RULES, *frames_en.RULES)}
    if ".pattern." in name:
        # a pattern is reached when no frame reads the clause: its example may be read by one first
        assert any(c.rule == name or c.predicate == slot or not slot.isidentifier() for c in found), found
    else:
        assert name in {c.rule for c in found} or name not in frame_names and found, found
