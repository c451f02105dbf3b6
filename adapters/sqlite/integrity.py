"""The health check of a SQLite store file: SQLite's page and index checks, then FTS5's own.

One check serves ``replay --verify`` (the live store), ``backup`` (the copy before it is renamed
into place) and ``restore`` (the copy before it goes live).
"""

from __future__ import annotations

import os

import apsw

from hlmem.adapters.sqlite.errors import CORRUPT_ADVICE, storage_error
from hlmem.domain.errors import StorageCorrupt

#: Problems ``integrity_check`` reports at most (the first few say enough).
MAX_PROBLEMS = 20


def check_integrity(con: apsw.Connection, path: str | os.PathLike[str], *, full: bool = True,
                    name: str | None = None, fts: bool = True) -> None:
    """``integrity_check`` (pages, b-trees, indexes against their tables, constraints; in SQLite
    3.54 the FTS5 tables too) or, with ``full=False``, ``quick_check`` (the same without matching
    indexes to tables: a third of the time), then FTS5's ``integrity-check`` of each full-text index.

    :param name: how messages name the file (default ``path``).
    :param fts: also FTS5's checks (an ``INSERT``: a read-only connection cannot run them).
    :raises StorageCorrupt: any problem, with the first five SQLite names.
    """
    shown = name or str(path)
    pragma = "integrity_check" if full else "quick_check"
    try:
        problems = [str(r[0]) for r in con.execute(f"PRAGMA {pragma}({MAX_PROBLEMS})")]
        if problems != ["ok"]:
            raise StorageCorrupt(f"{shown} is corrupt: {pragma} found {'; '.join(problems[:5])}; {CORRUPT_ADVICE}",
                                 path=str(path))
        if not fts:
            return
        con.execute("INSERT INTO items_fts(items_fts) VALUES ('integrity-check')")
        if con.execute("SELECT 1 FROM sqlite_schema WHERE name = 'context_fts'").fetchone():  # from 0012 on
            con.execute("INSERT INTO context_fts(context_fts) VALUES ('integrity-check')")
        if con.execute("SELECT 1 FROM sqlite_schema WHERE name = 'derived_fts'").fetchone():  # from 0023 on
            con.execute("INSERT INTO derived_fts(derived_fts) VALUES ('integrity-check')")
    except (apsw.Error, UnicodeDecodeError) as exc:
        error = storage_error(exc, f"{pragma} and the full-text check", path=path, con=con)
        if isinstance(error, StorageCorrupt) and name:
            error = StorageCorrupt(str(error).replace(str(path), shown, 1), path=str(path))
        raise error from exc
