"""The query-parts benchmark (benchmarks/query_parts.py): what counts as right, and a whole run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))

import query_parts  # noqa: E402


@pytest.mark.parametrize(("got", "gold", "corrected", "ok"), [
    (("Where does Tom work?", "when is his birthday?"), ["Where does Tom work?", "when is his birthday?"], False, True),
    (("最近好忙。Tom在哪上班？",), ["最近好忙。Tom在哪上班？"], False, True),
    (("hi! Tom在哪上班", "他生日几号"), ["Tom在哪上班", "他生日几号"], False, True),  # context kept: fine
    (("Tom在哪上班 他生日几号",), ["Tom在哪上班", "他生日几号"], False, False),  # not split
    (("Tom在哪上班 他生日几号", "他生日几号"), ["Tom在哪上班", "他生日几号"], False, False),  # a part holds two
    (("他弟弟在哪上班",), ["是他弟弟在哪上班"], True, True),  # a cue's remnant
    (("老张在哪上班，不对，是他弟弟在哪上班",), ["是他弟弟在哪上班"], True, False),  # the disowned question kept
])
def test_what_counts_as_right(got, gold, corrected, ok):
    assert query_parts.right(got, gold, corrected=corrected) is ok


def test_a_run_prints_a_table_and_a_json_line(tmp_path, capsys):
    rows = [{"id": "1", "lang": "en", "class": "compound", "text": "where does Tom work and when's his birthday",
             "parts": ["where does Tom work", "when's his birthday"]},
            {"id": "2", "lang": "zh", "class": "single", "text": "我表哥住哪？", "parts": ["我表哥住哪？"]}]
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    assert query_parts.main(["--set", str(path)]) == 0
    out = capsys.readouterr().out
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["accuracy"]["all"] == 1.0 and summary["messages"] == 2 and summary["misses"] == []


def test_the_repository_sets_parse_and_their_parts_are_in_their_texts():
    for name in ("dev.jsonl", "fresh_b.jsonl"):
        for line in (BENCHMARKS / "query_parts" / name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            assert row["parts"] and all(part in row["text"] for part in row["parts"])
