"""What the SQL stores count for ``counts()``: the same tables and statements in SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any


def projection_counts(con: Any) -> dict[str, int]:
    """Observations, claims by status and in all, vectors, conflicts by status, read through
    ``con.execute`` (an APSW or psycopg connection: the statements take no parameters)."""
    out = {"observations": con.execute("SELECT count(*) FROM observations").fetchone()[0]}
    for status, n in con.execute("SELECT status, count(*) FROM claims GROUP BY status"):
        out[f"claims_{status}"] = n
    out["claims"] = sum(v for k, v in out.items() if k.startswith("claims_"))
    out["vectors"] = con.execute("SELECT count(*) FROM vectors").fetchone()[0]
    for status, n in con.execute("SELECT status, count(*) FROM conflicts GROUP BY status"):
        out[f"conflicts_{status}"] = n
    return out
