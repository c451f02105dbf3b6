"""The current-truth benchmark (benchmarks/current_truth.py): its data, its scoring, one small run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))

import current_truth as ct  # noqa: E402

VALUES = [{"key": "A", "mentions": ["Pixel"]}, {"key": "B", "mentions": ["iPhone"]}, {"key": "C", "mentions": ["4500"]}]


def test_the_dev_set_is_well_formed() -> None:
    sequences = ct.load(ct.DEFAULT_DATA)
    assert len(sequences) >= 100 and {s["lang"] for s in sequences} == {"zh", "en"}
    for s in sequences:
        keys = [v["key"] for v in s["values"]]
        assert len(keys) >= 2 and all(q["answer"] in keys for q in s["questions"].values()), s["id"]
        assert all(ct.mentioned(" ".join(t["text"] for t in s["turns"]), [v]) for v in s["values"]), s["id"]


def test_mentions_are_whole_words_but_for_plurals() -> None:
    assert ct.mentioned("got an iPhone 15", VALUES) == {"B"}
    assert ct.mentioned("two Pixels and an iPhone", VALUES) == {"A", "B"}
    assert ct.mentioned("rent went to 14500", VALUES) == set()
    assert ct.mentioned("房租4500块", VALUES) == {"C"}


def test_the_first_item_naming_a_value_is_the_answer() -> None:
    class Item:
        def __init__(self, text: str) -> None:
            self.text = text

    items = [Item("rainy day"), Item("switched from my Pixel to an iPhone"), Item("user · phone · iPhone")]
    assert ct.first_answer(items, VALUES) == ("ambiguous", 2, "switched from my Pixel to an iPhone")
    assert ct.first_answer(items[2:], VALUES) == ("B", 1, "user · phone · iPhone")
    assert ct.first_answer(items[:1], VALUES) == (None, None, "")


def test_a_small_run_scores_and_routes_its_misses(tmp_path: Path, capsys) -> None:
    data = tmp_path / "mini.jsonl"
    sequences = ct.load(ct.DEFAULT_DATA)
    other = next(s for s in sequences if ct.FAMILY.get(s["topic"], s["topic"]) != "home")
    data.write_text("".join(json.dumps(s, ensure_ascii=False) + "\n" for s in (sequences[0], other)), "utf-8")
    assert ct.main(["--data", str(data), "--embedders", "hash", "--store", "memory", "--claims", "oracle",
                    "--negatives"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    result = summary["results"]["hash"]
    assert summary["sequences"] == 2 and set(result["overall"]) >= {"current", "before", "as_of", "as_of_valid_at"}
    assert result["negatives"]["n"] == 6
    assert all(cause == "recall" or cause.startswith("extraction: ")
               for causes in result["misses"].values() for cause in causes)
