"""The experience channel through ``Memory`` on SQLite: the forget cascade leaves no bytes, replay
rebuilds it exactly, restore enforces its tombstones, recall answers how-to questions (docs/experience.md)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from hlmem import Memory
from hlmem.domain.errors import NotFound, ValidationError
from hlmem.domain.experience_decisions import EpisodeEndedError
from hlmem.domain.evidence import UnusableEvidence

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
LOW = {"rule": "wilson", "min_support": 3, "min_reliability": 0.3, "min_lead": 0.0, "probation": 1, "procedure_min_successes": 2,
       "procedure_min_reliability": 0.3}


def episode(mem: Memory, goal: str, approach: str, ok: bool, *, steps=("build", "ship")) -> str:
    ep = mem.start_episode(goal, approach=approach)
    for s in steps:
        mem.record_step(ep.episode_id, s, tool=approach)
    mem.end_episode(ep.episode_id, "succeeded" if ok else "failed", reward=1.0 if ok else 0.0)
    return ep.episode_id


def file_bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in path.parent.iterdir() if p.name.startswith(path.name))


@pytest.fixture
def mem(tmp_path: Path):
    with Memory(tmp_path / "m.db", embedder="hash", now=T0) as m:
        m.set_experience_thresholds(LOW)
        yield m


def test_forgetting_the_only_support_removes_policy_and_procedure_to_the_byte(mem: Memory, tmp_path: Path) -> None:
    ids = [episode(mem, "calibrate the zebraquartz sensor", "zq-tool", True, steps=("zebraquartz warmup", "read"))
           for _ in range(4)]
    [policy] = mem.policies()
    assert policy.status == "active" and set(policy.recent_episodes) == set(ids)
    [proc] = mem.procedures()
    assert proc.source_episode in ids
    for eid in ids[:-1]:
        report = mem.forget(eid)
        assert report.counts["episodes"] == 1
    left = mem.policies()
    assert [p.recent_episodes for p in left] == [(ids[-1],)]
    assert mem.procedures(status="active") == [] or mem.procedures()[0].source_episode == ids[-1]
    last = mem.forget_episode(ids[-1])
    assert last.counts["policies"] == 1 and policy.policy_id in last.items
    assert mem.policies() == [] and mem.procedures() == []
    assert mem.policies(status="forgotten")[0].signature == ""
    assert mem.recall("how do I calibrate the zebraquartz sensor").items == ()
    assert b"zebraquartz" not in file_bytes(tmp_path / "m.db")
    assert mem.replay().equal


def test_a_surviving_policy_keeps_its_other_support(mem: Memory) -> None:
    ids = [episode(mem, "rotate the logs", "logrotate", True) for _ in range(4)]
    report = mem.forget_episode(ids[0])
    assert report.counts == {**report.counts, "episodes": 1, "policies": 0, "policy_support": 1}
    assert report.forgotten_at is not None and mem.forget_episode(ids[0]).forgotten_at == report.forgotten_at
    [policy] = mem.policies()
    assert policy.recent_episodes == tuple(ids[1:]) and policy.successes == 3
    assert mem.forget_episode(ids[0]).already_forgotten
    dry = mem.forget_episode(ids[1], dry_run=True)
    assert dry.dry_run and dry.counts["episodes"] == 1 and mem.episode(ids[1]).status == "succeeded"
    assert dry.forgotten_at is None
    assert mem.replay().equal


def test_restore_keeps_a_forgotten_episode_forgotten(tmp_path: Path) -> None:
    path = tmp_path / "live.db"
    with Memory(path, embedder="hash", now=T0) as mem:
        mem.set_experience_thresholds(LOW)
        ids = [episode(mem, "renew the certificate", "certbot", True) for _ in range(4)]
        mem.backup(tmp_path / "backup.db")
        mem.forget_episode(ids[0])
        mem.restore(tmp_path / "backup.db")
        assert mem.episode(ids[0]).status == "forgotten" and mem.episode(ids[0]).goal == ""
        assert all(ids[0] not in p.recent_episodes for p in mem.policies())
        assert {mem.episode(i).status for i in ids[1:]} == {"succeeded"}
        assert mem.replay().equal


def test_demotion_then_a_new_version(mem: Memory) -> None:
    for _ in range(4):
        episode(mem, "publish the package", "twine", True)
    [first] = mem.procedures()
    episode(mem, "publish the package", "twine", False)
    assert mem.procedures(status="demoted") == [mem.procedures()[0]] and mem.procedures()[0].procedure_id == \
        first.procedure_id
    episode(mem, "publish the package", "twine", True)
    active = mem.procedures(status="active")
    assert [p.number for p in active] == [2]


def test_how_to_questions_bring_procedures_and_facts_stay_as_they_were(mem: Memory) -> None:
    mem.remember("user", "preferred_ui_theme", "dark")
    before = mem.recall("what theme does the user prefer")
    for _ in range(4):
        episode(mem, "set up the dev database", "docker-compose", True, steps=("compose up", "migrate"))
    after = mem.recall("what theme does the user prefer")
    assert [i.id for i in after.items] == [i.id for i in before.items]
    found = mem.recall("How do I set up the dev database?", budget=400)
    assert [i.kind for i in found.items[:2]] == ["procedure", "policy"]
    assert found.items[1].support == 4 and found.items[0].steps == ("docker-compose: compose up",
                                                                     "docker-compose: migrate")
    assert "[procedure]" in found.packet.text and found.packet.included[0].startswith("pd_")
    assert "[procedure; id pd_" in mem.recall("How do I set up the dev database?", budget=400,
                                              packet_version=1).packet.text
    zh = mem.recall("怎么设置开发数据库？", intent="procedure")
    assert zh.items == () or zh.items[0].kind in ("procedure", "policy", "claim", "event")
    assert mem.recall("set up dev database", intent="procedure").items[0].kind == "procedure"
    assert all(i.kind in ("claim", "event") for i in mem.recall("How do I set up the dev database?",
                                                                intent="facts").items)
    with pytest.raises(ValidationError):
        mem.recall("x", intent="guess")


def test_chinese_goals_are_matched_by_their_bigrams(mem: Memory) -> None:
    for _ in range(4):
        episode(mem, "部署后端服务", "k8s", True)
    found = mem.recall("怎么部署后端服务？")
    assert found.items and found.items[0].kind == "procedure"


def test_errors_lose_nothing(mem: Memory) -> None:
    ep = mem.start_episode("tidy the repo")
    with pytest.raises(NotFound):
        mem.record_step("ep_unknown", "x")
    with pytest.raises(UnusableEvidence):
        mem.record_step(ep.episode_id, "x", evidence=["ev_nothing"])
    event = mem.add("the repo has 3 stale branches", extract=False)
    with_evidence = mem.record_step(ep.episode_id, "delete stale branches", evidence=[event.id])
    assert with_evidence.steps[0].evidence == (event.id,)
    with pytest.raises(ValidationError):
        mem.end_episode(ep.episode_id, "succeeded", reward=-0.1)
    with pytest.raises(ValidationError):
        mem.record_step(ep.episode_id, "y", cost=float("nan"))
    assert len(mem.episode(ep.episode_id).steps) == 1
    mem.end_episode(ep.episode_id, "succeeded")
    with pytest.raises(EpisodeEndedError):
        mem.end_episode(ep.episode_id, "failed")
    with pytest.raises(ValidationError):
        mem.set_experience_thresholds({"min_support": 0})
    with pytest.raises(ValidationError):
        mem.set_experience_thresholds({"nope": 1})


def test_a_candidate_is_offered_marked_unless_active_ones_only_are_asked_for(tmp_path: Path) -> None:
    # probation 3 keeps the proposal a candidate for a while: a how-to question sees it, marked.
    with Memory(tmp_path / "c.db", embedder="hash", now="2026-03-01T09:00:00Z") as mem:
        mem.set_experience_thresholds({**LOW, "probation": 3, "min_support": 3})
        for _ in range(3):
            episode(mem, "install the zebraquartz sensor", "zq-tool", True)
        [policy] = mem.policies()
        assert policy.status == "candidate"
        items = mem.recall("how do I install the zebraquartz sensor?").items
        assert items[0].kind == "policy" and items[0].status == "candidate" and items[0].support == 3
        assert items[0].text.startswith("candidate on probation: ") and items[0].successes == 3
        assert [p.policy_id for p in mem.policies(query="how do I install the zebraquartz sensor?")] == [
            policy.policy_id]
        assert mem.policies(query="how do I install the zebraquartz sensor?", status="active") == []
        assert mem.policies(query="how do I uninstall the zebraquartz sensor?") == []  # another task
        with pytest.raises(ValidationError):
            mem.policies(query="install", status="retired")
        with pytest.raises(ValidationError):
            mem.policies(query="  ")
        for _ in range(3):
            episode(mem, "install the zebraquartz sensor", "zq-tool", True)
        [active] = mem.policies(query="how do I install the zebraquartz sensor?", status="active")
        assert active.status == "active"
