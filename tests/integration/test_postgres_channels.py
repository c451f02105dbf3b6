"""The experience channel and the derived layer on a PostgreSQL store, through ``Memory`` (issues 17, 18).

The same walk-throughs as tests/integration/test_experience.py and test_derived_layer.py, on a
fresh database of the session's server (tests/support/postgres.py): policies and procedures
induced and recalled, a derived item stale in the transaction of its source's supersede and
rebuilt by the worker, forget removing every trace of the content from the database's tables,
and ``replay`` rebuilding both projections exactly.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from hlmem import Memory
from hlmem.domain.events import DerivedBecameStale

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
LOW = {"rule": "wilson", "min_support": 3, "min_reliability": 0.3, "min_lead": 0.0, "probation": 1, "procedure_min_successes": 2,
       "procedure_min_reliability": 0.3}
#: Every table that holds content (text columns or state documents).
CONTENT_TABLES = ("event_payloads", "claims", "observations", "items", "derived_items", "episodes", "policies",
                  "procedures")


def _holding(mem: Memory, needle: str) -> list[str]:
    con = mem.storage.db.con
    return [t for t in CONTENT_TABLES
            if con.execute(f"SELECT count(*) FROM {t} AS r WHERE strpos(r::text, %s) > 0", (needle,)).fetchone()[0]]


def _episode(mem: Memory, goal: str, approach: str, ok: bool) -> str:
    ep = mem.start_episode(goal, approach=approach)
    for step in ("zebraquartz warmup", "read"):
        mem.record_step(ep.episode_id, step, tool=approach)
    mem.end_episode(ep.episode_id, "succeeded" if ok else "failed", reward=1.0 if ok else 0.0)
    return ep.episode_id


@pytest.fixture
def mem(postgres_url: str):
    with Memory(postgres_url, embedder="hash", now=T0) as m:
        m.set_experience_thresholds(LOW)
        yield m


def test_episodes_policies_and_procedures_on_postgresql(mem: Memory) -> None:
    ids = [_episode(mem, "calibrate the zebraquartz sensor", "zq-tool", True) for _ in range(4)]
    [policy] = mem.policies()
    assert policy.status == "active" and set(policy.recent_episodes) == set(ids)
    [proc] = mem.procedures()
    assert proc.source_episode in ids and proc.status == "active"
    items = mem.recall("how do I calibrate the zebraquartz sensor").items
    assert [i.kind for i in items[:2]] == ["procedure", "policy"] and items[1].value == "zq-tool"
    assert mem.replay().equal
    assert {"event_payloads", "episodes", "procedures"} <= set(_holding(mem, "zebraquartz"))
    for eid in ids:
        mem.forget_episode(eid)
    assert mem.policies() == [] and mem.procedures() == []
    assert mem.recall("how do I calibrate the zebraquartz sensor").items == ()
    assert _holding(mem, "zebraquartz") == []
    assert mem.replay().equal


def test_derived_items_go_stale_and_are_rebuilt_on_postgresql(mem: Memory) -> None:
    mem.remember("user", "theme", "dark")
    mem.remember("user", "preferred_editor_theme", "dark")
    assert len(mem.derive().built) == 2
    [summary] = mem.observations(subject="user")
    assert summary.item.text == "user prefers dark across 2 preferences (preferred editor theme, preferred UI theme)."
    position = mem.storage.last_position()
    mem.remember("user", "theme", "light")
    stale = [s.event for s in mem.storage.read(after=position) if isinstance(s.event, DerivedBecameStale)]
    assert len(stale) == 2 and mem.observations(subject="user")[0].item.status == "stale"
    stats = mem._container.worker().run_once()
    assert stats.jobs_succeeded == 2 and not stats.errors
    [summary] = mem.observations(subject="user")
    assert summary.item.status == "current"
    assert summary.item.text == "user — preferences: preferred editor theme: dark; preferred UI theme: light."
    assert mem.replay().equal


def test_forgetting_a_derived_items_only_support_leaves_nothing_on_postgresql(mem: Memory) -> None:
    mem.remember("Alice", "likes", "quokkaberry jam")
    mem.remember("Alice", "likes", "黑加仑果酱")
    mem.derive(subject="Alice")
    model = mem.mental_model("Alice").item.derived_id
    assert "derived_items" in _holding(mem, "quokkaberry")
    mem.forget(subject="Alice")
    assert mem.derived(model).item.status == "forgotten"
    assert _holding(mem, "quokkaberry") == [] and _holding(mem, "黑加仑果酱") == []
    assert mem.replay().equal
