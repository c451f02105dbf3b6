"""The schema that migrating a new file produces, frozen in ``data/sqlite_schema.sql`` (ADR 0030).

Migrations hold their own DDL; this test is what makes "an applied migration is never edited"
checkable: any change to what ``migrate`` builds shows up here as a diff against the checked-in
copy. A new migration changes the copy on purpose (regenerate it with ``python -m
tests.integration.test_sqlite_schema``); an edit to an old one, or to a feature module, must not.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import apsw

from hlmem.adapters.sqlite import migrations
from hlmem.adapters.sqlite.connection import open_connection

EXPECTED = Path(__file__).parent / "data" / "sqlite_schema.sql"
#: What migrations.py may import from hlmem: the error it raises, and the one data step
#: (0012_context_fts writes an existing store's context pairs with the code that writes new ones).
#: The data steps import what writes the rows they fill (context pairs; stems of indexed bodies, ADR 0058).
ALLOWED = {"hlmem.domain.errors", "hlmem.adapters.sqlite", "hlmem.adapters.text.segment"}


def schema_text(con: apsw.Connection) -> str:
    """Every table, index, trigger and view with its SQL, the meta keys and the migrations applied."""
    out = []
    for kind, name, table, sql in con.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name"):
        out.append(f"-- {kind} {name} on {table}\n{sql};" if sql else f"-- {kind} {name} on {table} (automatic)")
    out.append("-- meta keys: " + ", ".join(r[0] for r in con.execute("SELECT key FROM meta ORDER BY key")))
    out.append("-- migrations: " + ", ".join(r[0] for r in con.execute("SELECT name FROM _migrations ORDER BY rowid")))
    return "\n".join(out) + "\n"


def fresh_schema(path: Path) -> str:
    con = open_connection(str(path))
    try:
        migrations.migrate(con, "2026-01-01T00:00:00+00:00")
        return schema_text(con)
    finally:
        con.close()


def test_migrating_a_new_file_builds_the_checked_in_schema(tmp_path: Path) -> None:
    assert fresh_schema(tmp_path / "new.db") == EXPECTED.read_text(encoding="utf-8")


def test_the_comparison_sees_a_changed_schema(tmp_path: Path) -> None:
    con = open_connection(str(tmp_path / "changed.db"))
    migrations.migrate(con, "2026-01-01T00:00:00+00:00")
    con.execute("CREATE INDEX jobs_extra ON jobs(namespace)")
    assert schema_text(con) != EXPECTED.read_text(encoding="utf-8")
    con.close()


def test_migrations_import_no_feature_module() -> None:
    tree = ast.parse(Path(migrations.__file__).read_text(encoding="utf-8"))
    found = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    found |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    hlmem = {name for name in found if name.split(".")[0] == "hlmem"}
    assert hlmem <= ALLOWED, hlmem - ALLOWED
    # ``from hlmem.adapters.sqlite import context``, for the data step only, inside that step.
    names = {alias.name for node in ast.walk(tree)
             if isinstance(node, ast.ImportFrom) and node.module == "hlmem.adapters.sqlite" for alias in node.names}
    assert names <= {"context"}
    top_level = {n.module for n in tree.body if isinstance(n, ast.ImportFrom)}
    assert "hlmem.adapters.sqlite" not in top_level


if __name__ == "__main__":  # regenerate the expected schema after adding a migration
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        EXPECTED.write_text(fresh_schema(Path(tmp) / "new.db"), encoding="utf-8")
    sys.stdout.write(f"wrote {EXPECTED}\n")
