"""``PgDb``: one psycopg connection, the lock that guards it, nested transactions and error translation.

What the store's feature modules (jobs, tombstones, activity, the embedding cache) share with
:class:`~hlmem.adapters.postgres.store.PostgresStorage`, as ``adapters/sqlite/db.py`` does for SQLite.
The connection runs in autocommit mode: a statement outside ``transaction()`` is its own
transaction; ``transaction()`` opens one (``BEGIN``, READ COMMITTED) and a nested block is a
savepoint. Nothing here takes a database-wide lock (ADR 0048).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from hlmem.adapters.postgres.schema import DDL, SCHEMA_LOCK, SCHEMA_VERSION, UPGRADES
from hlmem.domain.errors import ConcurrencyConflict, ConfigurationError, HlmemError, SchemaError, StorageError

if TYPE_CHECKING:
    import psycopg

__all__ = ["PgDb", "connect", "is_postgres_url", "redacted_url", "shown_store", "translated"]

_SCHEMES = ("postgresql://", "postgres://")


def _psycopg():  # noqa: ANN202 - the module
    """psycopg 3, imported only when a PostgreSQL store is used (the extra ``hlmem[postgres]``), so
    the plugin loads and SQLite users need none of it."""
    try:
        import psycopg
        import pgvector.psycopg  # noqa: F401 - the vector type's adapters
    except ModuleNotFoundError as exc:
        raise ConfigurationError(f"a postgresql:// store needs psycopg 3 and pgvector ({exc.name} is not installed): "
                                 "pip install 'hlmem[postgres]' (docs/postgres.md)") from exc
    return psycopg


def is_postgres_url(path: str) -> bool:
    """Whether a store path names a PostgreSQL database (``postgresql://…`` or ``postgres://…``)."""
    return str(path).startswith(_SCHEMES)


def redacted_url(url: str) -> str:
    """``url`` with its password (in the user part or a ``password=`` parameter) shown as ``***``, for
    messages and for anything the CLI or a report prints. Pure string work: it needs no psycopg, so
    ``hlmem doctor`` can show a URL it cannot connect to."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "a PostgreSQL URL"
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        if ":" in userinfo:
            netloc = f"{userinfo.split(':', 1)[0]}:***@{host}"
    query = "&".join(f"{k}=***" if k.lower() == "password" else f"{k}={v}" if sep else k
                     for k, sep, v in (p.partition("=") for p in parts.query.split("&") if p))
    # Put together by hand: urlunsplit drops the empty host of ``postgresql:///db``.
    return (f"{parts.scheme}://{netloc}{parts.path}" + (f"?{query}" if query else "")
            + (f"#{parts.fragment}" if parts.fragment else ""))


def shown_store(db: str) -> str:
    """How a store is shown to people: a PostgreSQL URL without its password, a file path as given."""
    return redacted_url(db) if is_postgres_url(db) else db


@contextmanager
def translated(what: str) -> Iterator[None]:
    """psycopg errors as the hlmem tree: unique or serialization failures and deadlocks are
    :class:`ConcurrencyConflict` (another writer won), everything else :class:`StorageError`."""
    psycopg = _psycopg()
    pg_errors = psycopg.errors
    try:
        yield
    except HlmemError:
        raise
    except (pg_errors.UniqueViolation, pg_errors.SerializationFailure, pg_errors.DeadlockDetected) as exc:
        raise ConcurrencyConflict(f"{what}: another writer changed the same rows first ({exc.diag.message_primary})"
                                  ) from exc
    except psycopg.Error as exc:
        raise StorageError(f"{what}: PostgreSQL said: {str(exc).strip()}") from exc
    except UnicodeEncodeError as exc:
        raise StorageError(f"{what}: text is not valid Unicode ({exc.reason})") from exc


def connect(url: str) -> psycopg.Connection:
    """An autocommit connection to ``url`` with pgvector's types registered."""
    psycopg = _psycopg()
    with translated(f"connecting to {redacted_url(url)}"):
        con = psycopg.connect(url, autocommit=True)
    return con


def _identity(con: psycopg.Connection) -> None:
    # The store's identity and tombstone salt, made once (a database cloned from a template that
    # has the schema but not these rows gets its own).
    con.execute("INSERT INTO meta (key, value) VALUES ('store_id', 'st_' || md5(gen_random_uuid()::text || "
                "clock_timestamp()::text)) ON CONFLICT (key) DO NOTHING")
    con.execute("INSERT INTO meta (key, value) VALUES ('tombstone_salt', encode(sha256(gen_random_uuid()::text::bytea "
                "|| gen_random_uuid()::text::bytea || clock_timestamp()::text::bytea), 'hex')) "
                "ON CONFLICT (key) DO NOTHING")


def ensure_schema(con: psycopg.Connection,
                  after: Mapping[str, Callable[[psycopg.Connection], None]] | None = None) -> None:
    """Create the extension and the tables once, or upgrade an older layout (``after``: the Python
    steps of an upgrade, by the layout they start from); several processes may race here."""
    psycopg = _psycopg()
    with translated("opening the store"):
        if con.execute("SELECT to_regclass('meta') IS NOT NULL").fetchone()[0]:
            found = con.execute("SELECT value FROM meta WHERE key = 'pg_schema'").fetchone()
            if found is not None and found[0] == SCHEMA_VERSION:
                with con.transaction():
                    con.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
                    _identity(con)
                return
    with translated("creating the schema"), con.transaction():
        con.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        # Another process may have made the schema while this one waited for the lock: running the
        # DDL again beside its writers can deadlock (CREATE INDEX IF NOT EXISTS locks the table
        # first; seen with 8 processes opening a new database). Asked of pg_tables, not to_regclass:
        # this transaction began before that commit, and to_regclass answers from the backend's
        # catalog cache, which still holds "no such table" until something makes it read the news.
        layout = None
        if con.execute("SELECT EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = current_schema() "
                       "AND tablename = 'meta')").fetchone()[0]:
            found = con.execute("SELECT value FROM meta WHERE key = 'pg_schema'").fetchone()
            layout = found[0] if found else None
        if layout == SCHEMA_VERSION:
            _identity(con)
            return
        if layout is not None:
            _upgrade(con, layout, after or {})
            _identity(con)
            return
        found = con.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone()
        if found is None:
            try:
                with con.transaction():
                    con.execute("CREATE EXTENSION IF NOT EXISTS vector")
            except psycopg.Error as exc:
                raise StorageError(
                    "the pgvector extension is not installed in this database and could not be created "
                    f"(run CREATE EXTENSION vector as a superuser; docs/postgres.md): {str(exc).strip()}") from exc
        con.execute(DDL)
        con.execute("INSERT INTO meta (key, value) VALUES ('pg_schema', %s) ON CONFLICT (key) DO NOTHING",
                    (SCHEMA_VERSION,))
        _identity(con)


def _upgrade(con: psycopg.Connection, layout: str, after: Mapping[str, Callable[[psycopg.Connection], None]]) -> None:
    """Bring an older layout up to this one, step by step, in the caller's transaction; ``after``
    holds the steps that are Python, not SQL (run after the SQL step from the same layout)."""
    while layout != SCHEMA_VERSION:
        step = UPGRADES.get(layout)
        if step is None:
            raise SchemaError(f"this PostgreSQL store has layout {layout!r}, which this hlmem cannot read "
                              f"(it writes layout {SCHEMA_VERSION}); use the hlmem that made it")
        con.execute(step)
        if layout in after:
            after[layout](con)
        layout = str(int(layout) + 1)
        con.execute("UPDATE meta SET value = %s WHERE key = 'pg_schema'", (layout,))


def _nothing() -> None:
    return None


class PgDb:
    """A connection used by one thread at a time (``lock``), with nested write transactions.

    :param undone: called when a transaction or a nested block rolls back (caches drop what they
        took from it).
    """

    def __init__(self, con: psycopg.Connection, *, undone: Callable[[], None] = _nothing) -> None:
        self.con = con
        self.lock = threading.RLock()
        #: 0 outside a transaction, else how many ``transaction()`` blocks are open.
        self.depth = 0
        self._undone = undone
        #: Called once after the outer transaction commits (then cleared).
        self.after_commit: list[Callable[[], None]] = []

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self.lock:
            self.depth += 1
            try:
                with translated("writing"), self.con.transaction():
                    yield
            except BaseException:
                self._undone()
                if self.depth == 1:
                    self.after_commit.clear()
                raise
            finally:
                self.depth -= 1
            if self.depth == 0:
                hooks, self.after_commit = self.after_commit, []
                for hook in hooks:
                    hook()

    def execute(self, sql: str, params: Any = None) -> psycopg.Cursor:
        """One statement under the lock (joins an open transaction)."""
        with self.lock:
            return self.con.execute(sql, params)

    def meta(self, key: str) -> str | None:
        with self.lock, translated("reading metadata"):
            row = self.con.execute("SELECT value FROM meta WHERE key = %s", (key,)).fetchone()
            return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction():
            self.con.execute("INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE "
                             "SET value = excluded.value", (key, value))
