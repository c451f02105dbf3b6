"""A real PostgreSQL server with pgvector for the tests (issue 18; docs/postgres.md, ADR 0047).

One server per test session: the one ``HLMEM_TEST_POSTGRES_URL`` names, else a private one started
by the ``pgserver`` package (a PostgreSQL 16 build bundling pgvector; in the ``test`` extra) in a
temporary folder. Each test gets a fresh database cloned from a template that already has the
``vector`` extension and hlmem's schema: ``CREATE DATABASE … TEMPLATE`` copies files, which is far
cheaper than creating the extension again. Cheaper still, ``postgres_url`` hands the next test of
the same worker the database the last one used, emptied back to the template's content (tables
truncated, the template's rows copied back, planner statistics cleared) — but only when its schema
is still exactly the template's (a test that dropped a table or changed a trigger gets its
database dropped instead); ``new_database`` always clones.

As root (CI), pgserver cannot run ``postgres`` itself (PostgreSQL refuses root): it creates a
system user ``pgserver`` with ``useradd`` and runs the server as that user; the data folder and
the path leading to it are made traversable for it. A test skips, saying why, only when neither a
given URL nor pgserver is available.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

URL_VARIABLE = "HLMEM_TEST_POSTGRES_URL"
TEMPLATE = "hlmem_test_template"


def _fresh_name() -> str:
    """A database name no other test process, nor another copy of this module, can pick."""
    return f"hlmem_t{os.getpid()}_{secrets.token_hex(6)}"


def _psycopg():  # noqa: ANN202 - the module, imported only where a test needs PostgreSQL
    return pytest.importorskip("psycopg", reason="psycopg 3 is not installed (pip install -e '.[test]')")


def _with_database(url: str, database: str) -> str:
    """``url`` pointing at ``database``, as a ``postgresql://`` URL (what ``Memory`` takes) when
    ``url`` is one, else as libpq keywords."""
    if url.startswith(("postgresql://", "postgres://")):
        parts = urlsplit(url)
        return urlunsplit((parts.scheme, parts.netloc, "/" + database, parts.query, parts.fragment))
    psycopg = _psycopg()
    params = psycopg.conninfo.conninfo_to_dict(url)
    params["dbname"] = database
    return psycopg.conninfo.make_conninfo(**params)


def _prepare_template(admin_url: str) -> None:
    psycopg = _psycopg()
    with psycopg.connect(admin_url, autocommit=True) as con:
        con.execute(f"DROP DATABASE IF EXISTS {TEMPLATE}")
        con.execute(f"CREATE DATABASE {TEMPLATE}")
    with psycopg.connect(_with_database(admin_url, TEMPLATE), autocommit=True) as con:
        con.execute("CREATE EXTENSION IF NOT EXISTS vector")
    # hlmem's schema in the template too (a test database is then ready at once), without the
    # identity rows: each clone makes its own store id and salt when first opened.
    from hlmem.adapters.postgres.db import ensure_schema

    with psycopg.connect(_with_database(admin_url, TEMPLATE), autocommit=True) as con:
        ensure_schema(con)
        con.execute("DELETE FROM meta WHERE key IN ('store_id', 'tombstone_salt')")


def _throwaway_durability(admin_url: str) -> None:
    """The private server's data is thrown away after the session: it need not reach the disk
    (no fsync, asynchronous commits). Commits then cost no disk flush on a shared machine."""
    psycopg = _psycopg()
    with psycopg.connect(admin_url, autocommit=True) as con:
        for setting in ("fsync = off", "synchronous_commit = off", "full_page_writes = off"):
            con.execute(f"ALTER SYSTEM SET {setting}")
        con.execute("SELECT pg_reload_conf()")


@pytest.fixture(scope="session")
def postgres_admin_url() -> Iterator[str]:
    """A connection string for a superuser on the session's server (template prepared)."""
    _psycopg()
    given = os.environ.get(URL_VARIABLE)
    if given:
        _prepare_template(given)
        try:
            yield given
        finally:
            if (name := _spare.forget_server(given)) is not None:
                drop_database(given, name)
        return
    pgserver = pytest.importorskip(
        "pgserver", reason=f"neither {URL_VARIABLE} nor the pgserver package (pip install -e '.[test]')")
    folder = Path(tempfile.mkdtemp(prefix="hlmem-pg-"))
    server = pgserver.get_server(folder, cleanup_mode="stop")
    try:
        url = server.get_uri()
        _throwaway_durability(url)
        _prepare_template(url)
        yield url
    finally:
        _spare.forget_server(url)
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


#: Everything about a database's schema a test could change: relations and their kinds, columns,
#: constraints, indexes, triggers (and whether they are enabled), functions, extensions, schemas,
#: sequences and the database's own settings. Equal digests: the same schema as the template's.
_SCHEMA_DIGEST = """
SELECT md5(coalesce(string_agg(x, E'\\n' ORDER BY x), '')) FROM (
  SELECT 'rel ' || c.relname || ' ' || c.relkind::text || ' ' || n.nspname FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
  UNION ALL SELECT 'col ' || table_schema || '.' || table_name || '.' || column_name || ' ' || data_type
    || ' ' || coalesce(column_default, '') || ' ' || is_nullable
    FROM information_schema.columns WHERE table_schema NOT IN ('pg_catalog', 'information_schema')
  UNION ALL SELECT 'con ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
    WHERE connamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
  UNION ALL SELECT 'idx ' || indexdef FROM pg_indexes WHERE schemaname NOT IN ('pg_catalog', 'information_schema')
  UNION ALL SELECT 'trg ' || tgname || ' ' || tgrelid::regclass::text || ' ' || tgenabled::text || ' '
    || pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal
  UNION ALL SELECT 'fn ' || p.proname || ' ' || md5(coalesce(p.prosrc, '')) FROM pg_proc p
    JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
  UNION ALL SELECT 'ext ' || extname || ' ' || extversion FROM pg_extension
  UNION ALL SELECT 'nsp ' || nspname FROM pg_namespace
  UNION ALL SELECT 'set ' || array_to_string(setconfig, ',') FROM pg_db_role_setting
    WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
) AS parts(x)
"""


class _Spare:
    """This worker's database between two tests, per server (a test module may start a server of
    its own), and what emptying one needs (read from the server's template once): the schema's
    digest, the tables, and the rows the template holds."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.templates: dict[str, tuple[str, list[str], dict[str, bytes]]] = {}

    def template_state(self, admin_url: str) -> tuple[str, list[str], dict[str, bytes]]:
        if admin_url not in self.templates:
            psycopg = _psycopg()
            with psycopg.connect(_with_database(admin_url, TEMPLATE), autocommit=True) as con:
                digest = con.execute(_SCHEMA_DIGEST).fetchone()[0]
                tables = [r[0] for r in con.execute(
                    "SELECT quote_ident(schemaname) || '.' || quote_ident(tablename) FROM pg_tables"
                    " WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1")]
                rows = {}
                for table in tables:
                    if con.execute(f"SELECT EXISTS (SELECT 1 FROM {table})").fetchone()[0]:
                        with con.cursor().copy(f"COPY {table} TO STDOUT") as copy:
                            rows[table] = b"".join(bytes(chunk) for chunk in copy)
            self.templates[admin_url] = (digest, tables, rows)
        return self.templates[admin_url]

    def take(self, admin_url: str) -> str | None:
        return self.names.pop(admin_url, None)

    def forget_server(self, admin_url: str) -> str | None:
        """At the end of a server's session: its spare's name (to drop, if the server stays)."""
        self.templates.pop(admin_url, None)
        return self.names.pop(admin_url, None)

    def give_back(self, admin_url: str, name: str) -> None:
        """Empty ``name`` back to the template's content and keep it for the next test, or drop it
        when its schema is no longer the template's (or emptying it failed)."""
        psycopg = _psycopg()
        digest, tables, rows = self.template_state(admin_url)
        with psycopg.connect(admin_url, autocommit=True) as con:  # a store the test left open
            con.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                        " WHERE datname = %s AND pid <> pg_backend_pid()", (name,))
        try:
            with psycopg.connect(_with_database(admin_url, name), autocommit=True) as con:
                if con.execute(_SCHEMA_DIGEST).fetchone()[0] != digest:
                    raise LookupError("the schema changed")
                with con.transaction():
                    con.execute("SET LOCAL session_replication_role = replica")  # the log's own guard
                    con.execute(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY CASCADE")
                    for sequence in con.execute(
                            "SELECT quote_ident(schemaname) || '.' || quote_ident(sequencename) FROM pg_sequences"
                            " WHERE schemaname NOT IN ('pg_catalog', 'information_schema')").fetchall():
                        con.execute(f"ALTER SEQUENCE {sequence[0]} RESTART")
                    for table, data in rows.items():
                        with con.cursor().copy(f"COPY {table} FROM STDIN") as copy:
                            copy.write(data)
                    con.execute("DELETE FROM pg_statistic WHERE starelid IN (SELECT c.oid FROM pg_class c"
                                " JOIN pg_namespace n ON n.oid = c.relnamespace"
                                " WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast'))")
        except (LookupError, psycopg.Error):
            drop_database(admin_url, name)
            return
        self.names[admin_url] = name


_spare = _Spare()


@pytest.fixture
def postgres_url(postgres_admin_url: str) -> Iterator[str]:
    """A database with pgvector and hlmem's empty schema, for this test only: the template's
    clone, or this worker's previous one emptied back to it (see the module's docstring)."""
    name = _spare.take(postgres_admin_url)
    if name is None:
        _url, name = new_database(postgres_admin_url)
    try:
        yield _with_database(postgres_admin_url, name)
    finally:
        _spare.give_back(postgres_admin_url, name)


def new_database(admin_url: str) -> tuple[str, str]:
    """A further fresh database cloned from the template: ``(url, name)``; drop it with :func:`drop_database`."""
    psycopg = _psycopg()
    name = _fresh_name()
    with psycopg.connect(admin_url, autocommit=True) as con:
        con.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
    return _with_database(admin_url, name), name


def drop_database(admin_url: str, name: str) -> None:
    psycopg = _psycopg()
    with psycopg.connect(admin_url, autocommit=True) as con:
        con.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
