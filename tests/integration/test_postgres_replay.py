"""Migration by replay (issue 18 item 3): ``hlmem replay --into postgresql://…`` and back, with ``--verify``.

A SQLite store with claims, a supersession, a conversation and a forgotten event is replayed into
an empty PostgreSQL database through the CLI; every projection must compare equal, and the
forgotten content must be nowhere in the PostgreSQL tables. The PostgreSQL store is then replayed
back into a new SQLite file, equal again.
"""

from __future__ import annotations

import json
from pathlib import Path

import psycopg

from hlmem.adapters.memory_api import Memory

from support.cli import cli_env, run_cli
from support.postgres import drop_database, new_database

SECRET = "my locker code is 4711"


def _seed(path: Path) -> str:
    with Memory(str(path), embedder="hash") as mem:
        mem.remember("user", "theme", "dark")
        mem.remember("user", "theme", "light")
        mem.add("我下周三去北京出差", extract=False)
        gone = mem.add(SECRET, extract=False).id
        mem.forget(gone)
        return gone


def _all_text(url: str) -> str:
    with psycopg.connect(url, autocommit=True) as con:
        tables = [r[0] for r in con.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
        return " ".join(str(row) for t in tables for row in con.execute(f"SELECT * FROM {t}"))


def test_replay_into_postgresql_and_back(tmp_path: Path, postgres_url: str, postgres_admin_url: str) -> None:
    source = tmp_path / "source.db"
    gone = _seed(source)
    env = {**cli_env(source), "HLMEM_EMBEDDER": "hash"}
    into = run_cli(source, ["--db", str(source), "replay", "--verify", "--json", "--into", postgres_url], env=env)
    assert into.code == 0, into
    report = json.loads(into.out)
    assert report["equal"] and report["differences"] == []
    assert report["counts"]["claims"] == 2 and report["counts"]["vectors"] >= 3
    # Forgotten content stays forgotten: not in any table of the rebuilt store.
    assert "4711" not in _all_text(postgres_url)
    with Memory(postgres_url, embedder="hash") as mem:
        assert [i.value for i in mem.recall("theme").items if i.kind == "claim"] == ["light"]
        assert gone not in {i.id for i in mem.recall("locker code", k=50).items}
    # The tombstones travelled with their salt (issue 33 item 3): re-adding the text is refused.
    with Memory(str(source), embedder="hash") as mem:
        ledger, salt = mem.storage.tombstones.tombstones(), mem.storage.tombstones.salt()
    assert report["tombstones"] == len(ledger) > 0
    with Memory(postgres_url, embedder="hash") as mem:
        assert mem.storage.tombstones.tombstones() == ledger and mem.storage.tombstones.salt() == salt
    refused = run_cli(source, ["--db", postgres_url, "add", SECRET.upper()], env=env)
    assert refused.code == 1 and "was forgotten" in refused.err, refused
    # A database that already holds events is refused: a replay builds a fresh store.
    again = run_cli(source, ["--db", str(source), "replay", "--into", postgres_url], env=env)
    assert again.code != 0 and "already holds events" in again.err
    # And back: the PostgreSQL store replayed into a new SQLite file.
    back = tmp_path / "back.db"
    home = run_cli(source, ["--db", postgres_url, "replay", "--verify", "--json", "--into", str(back)], env=env)
    assert home.code == 0, home
    assert json.loads(home.out)["equal"]
    with Memory(str(back), embedder="hash") as mem:
        assert [i.value for i in mem.recall("theme").items if i.kind == "claim"] == ["light"]
        assert SECRET not in " ".join(repr(s.event) for s in mem.storage.read())
        assert mem.storage.tombstones.tombstones() == ledger and mem.storage.tombstones.salt() == salt
    refused = run_cli(back, ["--db", str(back), "add", SECRET], env=env)
    assert refused.code == 1 and "was forgotten" in refused.err, refused


def test_a_postgres_store_verifies_against_its_own_replay(tmp_path: Path, postgres_url: str,
                                                          postgres_admin_url: str) -> None:
    with Memory(postgres_url, embedder="hash") as mem:
        mem.remember("user", "city", "Hangzhou")
        mem.add("周末去西湖", extract=False)
    # The default target (a temporary SQLite file) and another PostgreSQL database both compare equal.
    env = {**cli_env(tmp_path / "x.db"), "HLMEM_EMBEDDER": "hash"}
    assert run_cli(tmp_path / "x.db", ["--db", postgres_url, "replay", "--verify"], env=env).code == 0
    other, name = new_database(postgres_admin_url)
    try:
        done = run_cli(tmp_path / "x.db", ["--db", postgres_url, "replay", "--verify", "--json", "--into", other],
                       env=env)
        assert done.code == 0 and json.loads(done.out)["equal"], done
    finally:
        drop_database(postgres_admin_url, name)



def test_a_log_with_derived_items_and_episodes_replays_into_postgres_and_back(tmp_path: Path,
                                                                             postgres_admin_url: str) -> None:
    """Both channels' projections travel: derived items and episodes, policies and procedures are
    rebuilt in PostgreSQL and compared (``--verify``), and a forgotten episode stays forgotten."""
    db = tmp_path / "both.db"
    with Memory(str(db), embedder="hash") as mem:
        mem.remember("Alice", "works_in", "Boston")
        mem.remember("Alice", "likes", "tea")
        assert mem.derive().built
        mem.set_experience_thresholds({"rule": "wilson", "min_support": 2, "min_reliability": 0.1, "min_lead": 0.0, "probation": 1,
                                       "procedure_min_successes": 2, "procedure_min_reliability": 0.1})
        episodes = []
        for _ in range(3):
            ep = mem.start_episode("deploy the site", approach="rsync")
            mem.record_step(ep.episode_id, "rsync the build", tool="rsync")
            mem.end_episode(ep.episode_id, "succeeded", reward=1.0)
            episodes.append(ep.episode_id)
        gone = mem.start_episode("mine the wombatite vault", approach="pickaxe").episode_id
        mem.end_episode(gone, "failed")
        mem.forget_episode(gone)
        assert [p.status for p in mem.policies()] == ["active"]
    url, name = new_database(postgres_admin_url)
    try:
        run = run_cli(db, ["replay", "--into", url, "--verify", "--json"], env=cli_env(db, HLMEM_EMBEDDER="hash"))
        assert run.code == 0 and json.loads(run.out)["equal"], run
        with Memory(url, embedder="hash") as pg:
            assert [p.status for p in pg.policies()] == ["active"]
            assert {d.item.subject for d in pg.observations()} | {pg.mental_model("Alice").item.subject} == {"Alice"}
            assert pg.storage.experience.get_episodes([gone])[gone].status == "forgotten"
            assert pg.storage.db.con.execute(
                "SELECT count(*) FROM event_payloads WHERE strpos(payload, 'wombatite') > 0").fetchone()[0] == 0
        back = tmp_path / "back.db"
        run = run_cli(back, ["--db", url, "replay", "--into", str(back), "--verify", "--json"],
                      env=cli_env(back, HLMEM_EMBEDDER="hash"))
        assert run.code == 0 and json.loads(run.out)["equal"], run
    finally:
        drop_database(postgres_admin_url, name)
