"""Stores written before the counts projection (ADR 0071) are brought to it when opened: SQLite by
migration ``0019_experience_counts``, PostgreSQL by the layout 3 -> 4 upgrade. Each older shape is
made from a store the current code wrote (policies' states with their whole support list, the
``policy_support`` table, no counts), and must migrate back to exactly what that code projected."""

from __future__ import annotations

import json
from pathlib import Path

from hlmem import Memory
from hlmem.adapters.sqlite.connection import open_connection

T0 = "2026-03-01T09:00:00Z"


def _workload(mem: Memory) -> None:
    """Policies that are proposed, retired and proposed again, and forgets that cut their support."""
    mem.set_experience_thresholds({"rule": "wilson", "min_support": 3, "min_reliability": 0.3, "min_lead": 0.05, "probation": 1,
                                   "retire_after": 2, "procedure_min_successes": 3,
                                   "procedure_min_reliability": 0.3})
    pattern = [True, True, True, False, True, False, False, True, True, True, False, True]
    ids = []
    for n, ok in enumerate(pattern * 2):
        approach = "make" if n % 3 else "ninja"
        ep = mem.start_episode(f"build the site {n}.py" if n % 4 else "lint the docs", approach=approach)
        mem.record_step(ep.episode_id, f"{approach} all", tool=approach)
        mem.end_episode(ep.episode_id, "succeeded" if ok or approach == "make" and n % 5 else "failed")
        ids.append(ep.episode_id)
    for victim in (ids[1], ids[7], ids[13]):
        mem.forget_episode(victim)


def _snapshot(mem: Memory) -> tuple:
    x = mem.storage.experience
    policies = x.policies("default")
    for status in ("forgotten",):
        policies += x.policies("default", status=status)
    ids = [p.policy_id for p in policies]
    return (sorted(policies, key=lambda p: p.policy_id), x.situation_counts("default"),
            {p: list(v.items()) for p, v in x.support_of(ids).items()})


def _old_policy_state(text: str, links: list[tuple[str, bool]]) -> str:
    state = json.loads(text)
    for key in ("successes", "failures", "recent"):
        state.pop(key)
    state["support"] = [[e, ok] for e, ok in links]
    state["since_proposal"] = 0
    return json.dumps(state, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def test_migration_0018_brings_an_older_sqlite_store_to_the_counts(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with Memory(path, embedder="none", now=T0) as mem:
        _workload(mem)
        expected = _snapshot(mem)
    assert expected[0] and expected[1] and expected[2]
    con = open_connection(str(path))
    with con:  # back to the shape 0015_experience made: whole support lists, policy_support, no counts
        links = {}
        for pid, episode_id, ok in con.execute("SELECT policy_id, episode_id, succeeded FROM policy_links "
                                               "ORDER BY policy_id, seq"):
            links.setdefault(pid, []).append((episode_id, bool(ok)))
        for pid, text in con.execute("SELECT policy_id, state FROM policies").fetchall():
            con.execute("UPDATE policies SET state = ? WHERE policy_id = ?",
                        (_old_policy_state(text, links.get(pid, [])), pid))
        con.execute("CREATE TABLE policy_support (episode_id TEXT NOT NULL, policy_id TEXT NOT NULL, "
                    "PRIMARY KEY (episode_id, policy_id)) WITHOUT ROWID")
        con.executemany("INSERT INTO policy_support VALUES (?, ?)",
                        [(e, p) for p, rows in links.items() for e, _ in rows])
        con.execute("DROP TABLE experience_counts")
        con.execute("DROP TABLE policy_links")
        con.execute("DELETE FROM _migrations WHERE name = '0019_experience_counts'")
    con.close()
    with Memory(path, embedder="none", now=T0) as mem:  # opening migrates
        assert _snapshot(mem) == expected
        assert mem.replay().equal


def test_layout_4_brings_an_older_postgres_store_to_the_counts(postgres_url: str) -> None:
    import psycopg

    with Memory(postgres_url, embedder="none", now=T0) as mem:
        _workload(mem)
        expected = _snapshot(mem)
    with psycopg.connect(postgres_url, autocommit=True) as con:  # back to layout 3's shape
        links = {}
        for pid, episode_id, ok in con.execute("SELECT policy_id, episode_id, succeeded FROM policy_links "
                                               "ORDER BY policy_id, seq"):
            links.setdefault(pid, []).append((episode_id, bool(ok)))
        for pid, text in con.execute("SELECT policy_id, state FROM policies").fetchall():
            con.execute("UPDATE policies SET state = %s WHERE policy_id = %s",
                        (_old_policy_state(text, links.get(pid, [])), pid))
        con.execute("CREATE TABLE policy_support (episode_id text NOT NULL, policy_id text NOT NULL, "
                    "PRIMARY KEY (episode_id, policy_id))")
        con.execute("DROP TABLE experience_counts, policy_links")
        con.execute("UPDATE meta SET value = '3' WHERE key = 'pg_schema'")
    with Memory(postgres_url, embedder="none", now=T0) as mem:
        assert _snapshot(mem) == expected
    with psycopg.connect(postgres_url) as con:
        assert con.execute("SELECT to_regclass('policy_support')").fetchone() == (None,)
