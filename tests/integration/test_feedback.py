"""Feedback is an event: it counts on claims and events, survives replay, and refuses bad input."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from hlmem import Memory
from hlmem.domain.errors import DomainRuleViolation, NotFound

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from support.cli import HLMEM, run_cli  # noqa: E402

NOW = "2026-05-01T10:00:00+00:00"


@pytest.fixture(params=["memory", "sqlite"])
def mem(request, tmp_path: Path):
    path = ":memory:" if request.param == "memory" else tmp_path / "m.db"
    with Memory(path, embedder="hash", now=NOW) as m:
        yield m


def test_feedback_counts_on_claims_and_events(mem: Memory) -> None:
    claim = mem.remember("user", "preferred_ui_theme", "dark").id
    event = mem.add("今天心情不错", extract=False).id
    mem.feedback(claim, "helpful")
    mem.feedback(claim, "helpful")
    mem.feedback(claim, "unhelpful", reason="stale")
    result = mem.feedback(event, "unhelpful")
    assert result.outcome == "unhelpful"
    explained = mem.explain(claim)
    assert (explained.claim.helpful, explained.claim.unhelpful) == (2, 1)
    storage = mem._container.storage()
    assert storage.get_observations([event])[event].unhelpful == 1


def test_feedback_refuses_bad_verdicts_and_unknown_ids(mem: Memory) -> None:
    claim = mem.remember("user", "preferred_ui_theme", "dark").id
    with pytest.raises(DomainRuleViolation, match="helpful"):
        mem.feedback(claim, "great")
    with pytest.raises(NotFound):
        mem.feedback("cl_missing", "helpful")
    with pytest.raises(NotFound):
        mem.feedback("ev_missing", "helpful")
    assert mem.explain(claim).claim.helpful == 0


def test_feedback_survives_replay(tmp_path: Path) -> None:
    with Memory(tmp_path / "a.db", embedder="hash", now=NOW) as mem:
        claim = mem.remember("user", "home_city", "上海").id
        mem.feedback(claim, "helpful")
        report = mem.replay(into=tmp_path / "b.db")
        assert report.equal, report.differences
    with Memory(tmp_path / "b.db", embedder="hash", now=NOW) as copy:
        assert copy.explain(claim).claim.helpful == 1


@pytest.mark.skipif(HLMEM is None, reason="console script not installed")
def test_cli_feedback(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    with Memory(db, embedder="hash", now=NOW) as mem:
        claim = mem.remember("user", "preferred_ui_theme", "dark").id
    done = run_cli(db, ["feedback", claim, "helpful"])
    assert done.code == 0 and f"helpful: {claim}" in done.out
    bad = run_cli(db, ["feedback", claim, "meh"])
    assert bad.code == 2
    missing = run_cli(db, ["feedback", "cl_nope", "helpful"])
    assert missing.code != 0 and "cl_nope" in missing.err
