"""Which streams two SQLite stores project identically, found by SQLite itself (ADR 0086).

Replay's comparison used to read every projection row of both stores into Python, stream by
stream (``projection_fingerprints``): a third of a replay's time. Here the other store is attached
read-only and each projection table is compared with ``EXCEPT`` both ways inside SQLite; a stream
is identical when none of its rows, in any projection table, is on one side only. These are the
rows ``projection_fingerprints`` reads (equal rows decode to equal states), so the streams found
identical are exactly those whose fingerprints would be equal.
"""

from __future__ import annotations

from pathlib import Path

import apsw

#: Projection tables compared: (table, the column naming the stream, the columns compared; None:
#: every column of the table, as ``projection_fingerprints`` reads ``SELECT *``).
TABLES: tuple[tuple[str, str, tuple[str, ...] | None], ...] = (
    ("claims", "claim_id", None),
    ("claim_versions", "claim_id", ("claim_id", "seq", "valid_from", "valid_to", "recorded_from", "recorded_to")),
    ("claim_evidence", "claim_id", ("claim_id", "event_id", "seq")),
    ("observations", "event_id", None),
    ("conflicts", "conflict_id", None),
    ("derived_items", "derived_id", None),
    ("derived_sources", "derived_id", None),
    ("relations", "relation_id", None),
)
#: The tables with one row per stream: the streams a store projects.
OWNERS = (("claims", "claim_id"), ("observations", "event_id"), ("conflicts", "conflict_id"),
          ("derived_items", "derived_id"), ("relations", "relation_id"))
_ALIAS = "hlmem_compared"


def _columns(con: apsw.Connection, schema: str, table: str) -> list[str]:
    return [row[1] for row in con.execute(f"PRAGMA {schema}.table_info({table})")]


def identical_streams(con: apsw.Connection, other: str | Path) -> frozenset[str] | None:
    """Streams whose projection rows in ``con``'s store and the store file ``other`` are
    identical (every row of every projection table); None when the two cannot be compared here
    (the file cannot be attached, or a table's columns differ between the stores).

    Call outside a transaction (``ATTACH`` needs it). The connection is ``query_only`` meanwhile:
    neither store can be written through it while the other is attached.
    """
    path = Path(other)
    if con.in_transaction or not path.is_file():
        return None  # ATTACH would create it
    con.pragma("query_only", True)
    try:
        con.execute(f"ATTACH DATABASE ? AS {_ALIAS}", (str(path.resolve()),))
    except apsw.Error:
        con.pragma("query_only", False)
        return None
    try:
        differing: set[str] = set()
        for table, key, wanted in TABLES:
            mine = _columns(con, "main", table)
            theirs = _columns(con, _ALIAS, table)
            columns = list(wanted) if wanted else mine
            if not columns or (wanted is None and sorted(mine) != sorted(theirs)) or not set(columns) <= set(theirs):
                return None
            listed = ", ".join(f'"{c}"' for c in columns)
            for left, right in (("main", _ALIAS), (_ALIAS, "main")):
                differing.update(row[0] for row in con.execute(
                    f'SELECT "{key}" FROM (SELECT {listed} FROM {left}."{table}" '
                    f'EXCEPT SELECT {listed} FROM {right}."{table}")'))
        same: set[str] = set()
        for table, key in OWNERS:
            same.update(row[0] for row in con.execute(f'SELECT "{key}" FROM main."{table}"'))
        return frozenset(same - differing)
    except apsw.Error:
        return None
    finally:
        con.execute(f"DETACH DATABASE {_ALIAS}")
        con.pragma("query_only", False)
