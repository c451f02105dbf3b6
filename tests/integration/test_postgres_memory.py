"""``Memory`` on a PostgreSQL URL through the ``postgres`` storage plugin (issue 18; docs/postgres.md).

The contract suites (tests/contract/, ``TestPostgres*``) check each storage role; these check the
whole wiring: the plugin chosen by the URL, the facade's writes, recall and forget, the log's
triggers and the one guarded erasure path.
"""

from __future__ import annotations

import json

import psycopg
import pytest

from hlmem.adapters.memory_api import Memory
from hlmem.adapters.plugin_wiring import make_plugin_registry
from hlmem.adapters.postgres.store import PostgresStorage


def test_the_postgres_plugin_is_listed_and_valid() -> None:
    registry = make_plugin_registry()
    spec = registry.spec("storage", "postgres")
    assert spec.implements is PostgresStorage


def test_memory_runs_on_a_postgresql_url(postgres_url: str) -> None:
    with Memory(postgres_url, embedder="hash") as mem:
        assert isinstance(mem.storage, PostgresStorage)
        mem.remember("user", "theme", "dark")
        mem.add("我下周三去北京出差", extract=False)
        assert [i.value for i in mem.recall("theme").items if i.kind == "claim"] == ["dark"]
        assert any(i.kind == "event" for i in mem.recall("北京").items)
    with Memory(postgres_url, embedder="hash") as again:  # reopened: everything is in the database
        assert [i.value for i in again.recall("theme").items if i.kind == "claim"] == ["dark"]


def test_forget_erases_through_the_guarded_path_only(postgres_url: str) -> None:
    with Memory(postgres_url, embedder="hash") as mem:
        # A secret no id can contain (ids are hex: a bare "4711" turned up inside one once).
        added = mem.add("my locker code is Kq-4711", extract=False)
        mem.forget(added.id)
        assert not [i for i in mem.recall("locker").items]
        assert "Kq-4711" not in " ".join(e.event.__repr__() for e in mem.storage.read())
    with psycopg.connect(postgres_url, autocommit=True) as con:
        (erased,) = con.execute("SELECT count(*) FROM payload_erasures").fetchone()
        assert erased >= 1
        payloads = " ".join(r[0] for r in con.execute("SELECT payload FROM event_payloads"))
        assert "Kq-4711" not in payloads
        for sql in ("UPDATE events SET version = version", "DELETE FROM events", "TRUNCATE events, event_payloads, payload_erasures",
                    "DELETE FROM event_payloads WHERE position NOT IN (SELECT position FROM payload_erasures)",
                    "UPDATE event_payloads SET payload = payload WHERE position NOT IN "
                    "(SELECT position FROM payload_erasures)", "DELETE FROM payload_erasures"):
            with pytest.raises(psycopg.errors.RaiseException, match="hlmem"):
                con.execute(sql)


def test_eight_processes_opening_a_new_database_at_once_make_one_schema(postgres_admin_url: str) -> None:
    """A database with nothing in it (not cloned from the tests' template): every opener races to
    create the schema and writes at once; all succeed and agree on one store id. (Writer processes
    of benchmarks/postgres_scale.py once deadlocked here: a late opener ran the DDL again beside the
    first writers; ensure_schema now checks again under its lock. Threads did not reproduce that
    interleaving; this checks the race's outcome.)"""
    import threading

    from support.postgres import _with_database

    name = "hlmem_bare_open"
    with psycopg.connect(postgres_admin_url, autocommit=True) as con:
        con.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        con.execute(f"CREATE DATABASE {name} TEMPLATE template0")
    url = _with_database(postgres_admin_url, name)
    start, ids, errors = threading.Barrier(8), [], []

    def open_one(n: int) -> None:
        start.wait()
        try:
            with Memory(url, embedder="hash") as mem:
                for i in range(5):
                    mem.remember(f"agent {n}", "works_in", f"city {i}")
                ids.append(mem.storage.meta("store_id"))
        except Exception as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    try:
        threads = [threading.Thread(target=open_one, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert errors == [] and len(ids) == 8 and len(set(ids)) == 1
    finally:
        with psycopg.connect(postgres_admin_url, autocommit=True) as con:
            con.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def test_without_the_postgres_extra_the_plugin_loads_and_a_url_says_what_to_install(tmp_path) -> None:
    """psycopg and pgvector blocked in a fresh interpreter: the plugin still loads (no warning in
    ``plugins list`` or the doctor), a SQLite store works, and a postgresql:// store is refused
    naming the extra."""
    import subprocess
    import sys

    script = f"""
import json, sys
sys.modules['psycopg'] = None
sys.modules['pgvector'] = None
from click.testing import CliRunner
from hlmem.adapters.cli.main import cli
listed = json.loads(CliRunner().invoke(cli, ['plugins', 'list', '--json']).output)
row = [p for p in listed['plugins'] if p['name'] == 'postgres'][0]
added = CliRunner().invoke(cli, ['--db', {str(tmp_path / 'x.db')!r}, '--embedder', 'hash', 'add', 'hello'])
refused = CliRunner().invoke(cli, ['--db', 'postgresql://nobody@127.0.0.1:1/nothing', 'stats'])
print(json.dumps([listed['problem'], row['loaded'], row['error'], added.exit_code, refused.exit_code, refused.output]))
"""
    done = subprocess.run([sys.executable, "-P", "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    problem, loaded, error, added, code, output = json.loads(done.stdout.strip().splitlines()[-1])
    assert (problem, loaded, error, added, code) == (None, True, None, 0, 1)
    assert "pip install 'hlmem[postgres]'" in output and "Traceback" not in output

