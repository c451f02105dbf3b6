"""Layout 6 -> 7 on PostgreSQL (ADR 0084): the current derived items get their full-text rows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hlmem.adapters.postgres import derived, postings
from hlmem.adapters.postgres.projection import _index
from hlmem.application.indexing import state_index_text
from hlmem.domain.derived import index_namespace

if TYPE_CHECKING:
    import psycopg


def index_current(con: psycopg.Connection) -> None:
    """Each current derived item gets its full-text row (kind ``derived``), as a build indexes it
    from now on; no vector (``hlmem reembed``, or the item's next rebuild, gives one)."""
    ids = [r[0] for r in con.execute("SELECT derived_id FROM derived_items WHERE status = 'current' "
                                     "AND derived_id NOT IN (SELECT item_id FROM items) ORDER BY derived_id")]
    adds = {did: (did, "derived", index_namespace(d.namespace), text, None) for did, d in derived.load(con, ids).items()
            if (text := state_index_text(d))}
    if adds:
        counts = postings.TextCounts()
        _index(con, adds, set(), counts)
        postings.apply(con, counts)
