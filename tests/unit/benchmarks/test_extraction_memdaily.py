"""benchmarks/extraction.py's MemDaily answer check: an answer of several ``;`` parts counts when
every part is in some claim value; the whole joined string is reported apart."""

from __future__ import annotations

import json
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))

import extraction  # noqa: E402


def _folder(tmp_path: Path, messages: list[str], answers: list[str]) -> Path:
    traj = {"tid": 0, "message_list": [{"mid": i, "message": m} for i, m in enumerate(messages)],
            "question_list": [{"qid": i, "question": "?", "answer": a} for i, a in enumerate(answers)]}
    (tmp_path / "01_simple_roles.json").write_text(json.dumps([traj], ensure_ascii=False), encoding="utf-8")
    return tmp_path


def test_every_part_of_an_answer_must_be_in_some_value(tmp_path: Path) -> None:
    folder = _folder(tmp_path, ["我住在杭州。", "我对青霉素过敏。", "今天天气不错。"],
                     ["杭州; 青霉素", "杭州; 北京", "天气不错", "杭州"])
    out, texts = extraction.memdaily(folder, trajectories=10)
    assert out["messages"] == 3 and out["questions"] == 4 and len(texts) == 3
    # 杭州;青霉素 (both parts in values) and 杭州 count; 北京 is nowhere; 天气不错 makes no claim
    assert out["answer_in_claim_value"] == 0.5
    assert out["answer_in_claim_value_whole"] == 0.25  # only the one-part 杭州
    # the messages hold every part of three answers (北京 is missing), the whole string of two
    assert out["answer_in_message_ceiling"] == 0.75
    assert out["answer_in_message_ceiling_whole"] == 0.5
