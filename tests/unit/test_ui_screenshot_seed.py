"""The inspector screenshots' store (scripts/ui_screenshots.py): realistic data, each change a supersede."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from hlmem import Memory
from hlmem.adapters.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ui_screenshots", ROOT / "scripts" / "ui_screenshots.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_showcase_store_holds_plain_values_and_three_changes_with_their_evidence() -> None:
    with Memory(embedder="hash", settings=Settings()) as mem:
        ids = _script().seed_showcase(mem)
        claims = mem.claims(subject="user", limit=100).items
        values = {c.value for c in claims}
        assert not any("<" in str(v) or ">" in str(v) for v in values), values
        assert {"北京", "上海", "深色模式", "浅色模式", "Acme Robotics", "Northwind Analytics"} <= values
        superseded = sorted(str(c.value) for c in claims if c.status == "superseded")
        assert superseded == sorted(["北京", "深色模式", "Acme Robotics"])
        assert mem.claim(ids.shanghai).value == "上海"
        assert mem.claim(ids.doomed).value == "Bluebird launch plan"
        sister = mem.relations.get(ids.sister).relation
        assert (sister.source_name, sister.relation, sister.target_name, sister.status) == ("user", "sibling", "Anna",
                                                                                            "accepted")
        assert len(mem.relations.list(status="proposed")) >= 3  # a queue worth a screenshot
