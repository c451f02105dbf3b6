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

import pytest

URL_VARIABLE = "HLMEM_TEST_POSTGRES_URL"
TEMPLATE = "hlmem_test_template"
_counter = itertools.count()


def _psycopg():  # noqa: ANN202 - the module, imported only where a test needs PostgreSQL
    return pytest.importorskip("psycopg", reason="psycopg 3 is not installed (pip install -e '.[test]')")


def _with_database(url: str, database: str) -> str:
    """``url`` pointing at ``database`` (libpq accepts a ``dbname`` keyword after a URI's query)."""
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
