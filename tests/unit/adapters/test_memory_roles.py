"""``Memory``'s role namespaces (ADR 0077): each call is the earlier flat name's, and every front end
uses the namespaced spelling."""

from __future__ import annotations

import ast
from datetime import datetime, timezone
from pathlib import Path

import pytest

from hlmem import Memory
from hlmem.adapters.flat_names import FlatNames
from hlmem.adapters.memory_roles import Conflicts, Derived, Episodes, Policies, Procedures, Worker
from hlmem.domain.errors import NotFound

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
ROOT = Path(__file__).resolve().parents[3]
#: The earlier flat names and the namespace call each one is.
FLAT = {"start_episode": "episodes.start", "record_step": "episodes.step", "end_episode": "episodes.end",
        "episode": "episodes.get", "episode_page": "episodes.page", "forget_episode": "episodes.forget",
        "induce_policies": "policies.induce", "experience_thresholds": "policies.thresholds",
        "set_experience_thresholds": "policies.set_thresholds", "derive": "derived.build",
        "observations": "derived.observations", "mental_model": "derived.profile",
        "resolve_conflict": "conflicts.resolve", "run_worker": "worker.run", "stop_worker": "worker.stop",
        "worker_config": "worker.config"}


@pytest.fixture
def mem():
    with Memory(":memory:", embedder="hash", now=T0) as m:
        yield m


def test_the_namespaces_are_what_the_flat_names_call(mem: Memory) -> None:
    assert isinstance(mem.episodes, Episodes) and isinstance(mem.policies, Policies)
    assert isinstance(mem.procedures, Procedures) and isinstance(mem.derived, Derived)
    ep = mem.episodes.start("install package foo", approach="pip")
    assert mem.record_step(ep.episode_id, "pip install foo", tool="pip").steps[-1].action == "pip install foo"
    assert mem.episodes.step(ep.episode_id, "check").steps[-1].action == "check"
    ended = mem.end_episode(ep.episode_id, "succeeded", reward=1.0)
    assert ended.episode.status == "succeeded"
    assert mem.episode(ep.episode_id) == mem.episodes.get(ep.episode_id) == ended.episode
    assert mem.episodes(status="succeeded") == mem.episodes.list(status="succeeded") == [ended.episode]
    assert mem.episode_page().items == mem.episodes.page().items == (ended.episode,)
    assert mem.policies() == mem.policies.list() and mem.procedures() == mem.procedures.list()
    assert mem.experience_thresholds == mem.policies.thresholds
    assert mem.set_experience_thresholds({"min_support": 4}) == mem.policies.thresholds
    assert mem.policies.thresholds.min_support == 4
    assert mem.episodes.forget(ep.episode_id, dry_run=True) == mem.forget_episode(ep.episode_id, dry_run=True)
    assert mem.episodes.get(ep.episode_id).status == "succeeded"  # a dry run forgets nothing


def test_the_derived_namespace_reads_and_builds(mem: Memory) -> None:
    mem.remember("Alice", "likes", "tea")
    report = mem.derived.build(subject="Alice")
    assert report.built and mem.derive(subject="Alice").built == ()
    model = mem.derived.profile("Alice")
    assert mem.mental_model("Alice") == model == mem.derived(model.item.derived_id) == mem.derived.get(
        model.item.derived_id)
    assert mem.observations(subject="Alice") == mem.derived.observations(subject="Alice")
    with pytest.raises(NotFound):
        mem.derived("dv_none")


def test_conflicts_and_the_worker(mem: Memory) -> None:
    assert isinstance(mem.conflicts, Conflicts) and isinstance(mem.worker, Worker)
    assert mem.conflicts() == mem.conflicts.list() == [] and mem.conflicts(status=None) == []
    mem.add("I live in Berlin.", process=False)
    pending = lambda: sum(by.get("pending", 0) for by in mem.jobs.job_counts().values())  # noqa: E731
    assert pending() == 1 and mem.worker_config is mem.worker.config
    assert mem.worker.run().jobs_succeeded == 1 and pending() == 0
    mem.add("I work in Hamburg.", process=False)
    assert mem.run_worker().jobs_succeeded == 2 and pending() == 0  # the same worker, its stats go on
    mem.stop_worker()
    assert mem._container.worker().stop_event.is_set()
    with pytest.raises(NotFound):
        mem.conflicts.resolve("cf_none", "keep-new")
    with pytest.raises(NotFound):
        mem.resolve_conflict("cf_none", "keep-new")


def test_the_namespaces_read_the_facades_default_namespace(mem: Memory) -> None:
    mem.namespace = "work"
    ep = mem.episodes.start("deploy the site")
    assert ep.namespace == "work" and mem.episodes() == [ep] and mem.episodes.list(namespace="default") == []


def test_every_flat_name_calls_its_namespace() -> None:
    assert {n for n in vars(FlatNames) if not n.startswith("_")} == set(FLAT)
    for flat, target in FLAT.items():
        role, name = target.split(".")
        owner = {"episodes": Episodes, "policies": Policies, "derived": Derived, "conflicts": Conflicts,
                 "worker": Worker}[role]
        assert hasattr(owner, name), target
        assert f"mem.{target}" in (getattr(FlatNames, flat).__doc__ or ""), flat


@pytest.mark.parametrize("front_end", ["cli", "server", "mcp", "hermes"])
def test_front_ends_use_the_namespaced_spelling(front_end: str) -> None:
    found = []
    for path in sorted((ROOT / "adapters" / front_end).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                attr, owner = node.func.attr, node.func.value
                if attr in FLAT and not (isinstance(owner, ast.Attribute) and owner.attr in ("episodes", "derived")):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} .{attr}(…)")
            elif isinstance(node, ast.Attribute) and node.attr in ("experience_thresholds", "worker_config"):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} .{node.attr}")
    assert found == []
