"""A real PostgreSQL server with pgvector for the tests (issue 18; docs/postgres.md, ADR 0047).

One server per test session: the one ``HLMEM_TEST_POSTGRES_URL`` names, else a private one started
by the ``pgserver`` package (a PostgreSQL 16 build bundling pgvector; in the ``test`` extra) in a
temporary folder. Each test gets a fresh database cloned from a template that already has the
``vector`` extension: ``CREATE DATABASE … TEMPLATE`` copies files, which is far cheaper than
creating the extension again, so isolation costs a few milliseconds per test.

As root (CI), pgserver cannot run ``postgres`` itself (PostgreSQL refuses root): it creates a
system user ``pgserver`` with ``useradd`` and runs the server as that user; the data folder and
the path leading to it are made traversable for it. A test skips, saying why, only when neither a
given URL nor pgserver is available.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

URL_VARIABLE = "HLMEM_TEST_POSTGRES_URL"
TEMPLATE = "hlmem_test_template"
_counter = itertools.count()


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
        yield given
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
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_admin_url: str) -> Iterator[str]:
    """A fresh, empty database with pgvector, for this test only (dropped afterwards)."""
    psycopg = _psycopg()
    name = f"hlmem_t{os.getpid()}_{next(_counter)}"
    with psycopg.connect(postgres_admin_url, autocommit=True) as con:
        con.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
    try:
        yield _with_database(postgres_admin_url, name)
    finally:
        with psycopg.connect(postgres_admin_url, autocommit=True) as con:
            con.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def new_database(admin_url: str) -> tuple[str, str]:
    """A further fresh database cloned from the template: ``(url, name)``; drop it with :func:`drop_database`."""
    psycopg = _psycopg()
    name = f"hlmem_t{os.getpid()}_{next(_counter)}"
    with psycopg.connect(admin_url, autocommit=True) as con:
        con.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
    return _with_database(admin_url, name), name


def drop_database(admin_url: str, name: str) -> None:
    psycopg = _psycopg()
    with psycopg.connect(admin_url, autocommit=True) as con:
        con.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
