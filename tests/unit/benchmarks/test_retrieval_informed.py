"""The informed baselines (benchmarks/retrieval/informed.py) and the MemDaily protocols: the
baselines see the dates, speakers, neighbours and sessions hlmem sees, with fixed weights."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest

from test_retrieval_metrics import load  # benchmarks/retrieval loaded as a package

informed = load("informed")
data = load("data")
Doc = data.Doc
T = datetime(2024, 4, 1, 8, 30, tzinfo=timezone.utc)


def test_a_document_carries_its_date_and_speaker_once() -> None:
    assert informed.decorated(Doc("a", "I adopted a cat", speaker="Caroline", occurred_at=T)) == \
        "[2024-04-01] Caroline: I adopted a cat"
    assert informed.decorated(Doc("a", "Caroline: I adopted a cat", speaker="Caroline")) == "Caroline: I adopted a cat"


def test_windows_stay_inside_a_session() -> None:
    docs = [Doc("1", "one", session="s1", speaker="A"), Doc("2", "two", session="s1", speaker="B"),
            Doc("3", "three", session="s2", speaker="A")]
    got = informed.windows(docs)
    assert got[0] == "A: one\nB: two" and got[1] == "A: one\nB: two" and got[2] == "A: three"


def test_session_evidence_and_a_named_speaker_lift_a_candidate() -> None:
    docs = {"a": Doc("a", "x", session="s1", speaker="Melanie"), "b": Doc("b", "y", session="s2", speaker="Caroline"),
            "c": Doc("c", "z", session="s2", speaker="Caroline")}
    base = {"a": 0.02, "b": 0.019, "c": 0.03}
    plain = informed.aggregate(base, docs, "what did they say?")
    assert plain["b"] == pytest.approx(0.019 + informed.SESSION_WEIGHT * 0.03)  # its session holds c
    assert plain["a"] == pytest.approx(0.02 + informed.SESSION_WEIGHT * 0.02)
    assert plain["b"] > plain["a"]
    named = informed.aggregate(base, docs, "What did Melanie paint?")
    assert named["a"] - plain["a"] == pytest.approx(informed.SPEAKER_BONUS)
    assert informed.aggregate(base, {**docs, "a": Doc("a", "x", session="s1", speaker="user")},
                              "what did the user say")["a"] == pytest.approx(plain["a"])  # a role is no name


class _Embed:
    """Bag-of-letters vectors: enough to make dense rankings deterministic."""

    def passages(self, texts):
        return np.stack([self._vec(t) for t in texts])

    @staticmethod
    def _vec(text: str) -> np.ndarray:
        v = np.zeros(64, dtype=np.float32)
        for ch in text.lower():
            v[ord(ch) % 64] += 1
        return v / (np.linalg.norm(v) or 1)


def test_every_informed_method_ranks_and_the_date_is_searchable() -> None:
    docs = [Doc("1", "we went hiking", session="s1", speaker="Ann", occurred_at=T),
            Doc("2", "the weather was nice", session="s1", speaker="Bob", occurred_at=T),
            Doc("3", "I bought a guitar", session="s2", speaker="Ann",
                occurred_at=datetime(2024, 5, 2, tzinfo=timezone.utc))]
    rankers = informed.InformedRankers(docs, "rank-bm25", _Embed())
    got = rankers.rank("what did Ann buy in 2024-05-02", _Embed._vec("what did Ann buy"), 10)
    assert set(got) == set(informed.INFORMED)
    assert got["bm25_i"][0] == "3"  # the date written into the text matches
    assert got["rrf_ctx"][0] == "3" and sorted(got["rrf_ctx"]) == ["1", "2", "3"]
    lexical_only = informed.InformedRankers(docs, "rank-bm25", None).rank("guitar", None, 10)
    assert set(lexical_only) == {"bm25_i", "rrf_ctx"} and lexical_only["bm25_i"] == ["3"]


def _memdaily(tmp_path: Path) -> Path:
    trajs = [{"tid": t, "message_list": [{"mid": m, "message": f"user {t} message {m}",
                                           "time": f"2024年04月0{m + 1}日 周一 08:36"} for m in range(3)],
              "question_list": [{"qid": 0, "question": "q?", "answer": "a", "target_step_id": [1],
                                 "time": "2024年04月09日 周二 08:00"}]} for t in range(2)]
    (tmp_path / "01_simple_roles.json").write_text(json.dumps(trajs, ensure_ascii=False), encoding="utf-8")
    return tmp_path


def test_the_mixed_protocol_does_not_reveal_the_user(tmp_path: Path) -> None:
    folder = _memdaily(tmp_path)
    mixed = data.load_memdaily(folder).haystacks[0]
    assert {d.session for d in mixed.docs} == {"d2024-04-01", "d2024-04-02", "d2024-04-03"}
    old = data.load_memdaily(folder, protocol="file").haystacks[0]
    assert {d.session for d in old.docs} == {"t0", "t1"}
    assert [q.reference.day for q in mixed.queries] == [9, 9]  # each question at its own time
    with pytest.raises(ValueError, match="protocol"):
        data.load_memdaily(folder, protocol="user")
