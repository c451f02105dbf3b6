"""The gold answers of LoCoMo and MemDaily questions, by the retrieval loaders' query ids
(``benchmarks/retrieval/data.py``), for the cost-effect benchmark's answer check and LLM mode."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def locomo_answers(path: Path) -> dict[str, dict[str, Any]]:
    """Gold answers of LoCoMo questions by the retrieval loader's query id (``conv-26:q3``)."""
    out = {}
    for sample in json.loads(path.read_text(encoding="utf-8")):
        for i, qa in enumerate(sample["qa"]):
            out[f"{sample['sample_id']}:q{i}"] = {"answer": qa.get("answer", ""), "question": qa["question"]}
    return out


def memdaily_answers(folder: Path) -> dict[str, dict[str, Any]]:
    """Gold answers, choices and the right choice of MemDaily questions by query id (``<file>:<tid>:<qid>``)."""
    out = {}
    for path in sorted(folder.glob("[0-9][0-9]_*.json")):
        for traj in json.loads(path.read_text(encoding="utf-8")):
            for q in traj["question_list"]:
                out[f"{path.stem}:{traj['tid']}:{q['qid']}"] = {
                    "answer": q.get("answer", ""), "choices": q.get("choices") or {},
                    "ground_truth": q.get("ground_truth"), "question": q["question"]}
    return out
