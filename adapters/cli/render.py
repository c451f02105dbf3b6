"""The CLI's terminal rendering: Rich tables of recall, history, jobs and conflicts.

The JSON shapes are not here: every front end takes them from :mod:`hlmem.adapters.wire`
(ADR 0076). Stored text is the user's (or a web page's), never ours to interpret: every
human-readable output shows it inert. Table cells are :class:`rich.text.Text` (never parsed as
Rich markup or emoji codes, so ``[bold red]`` and ``[link=…]`` print as typed) built on
:func:`~hlmem.adapters.wire.text.plain`, which this module passes on to the CLI's commands
with :func:`~hlmem.adapters.wire.text.json_text`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hlmem.adapters.wire.text import json_text, plain
from hlmem.domain.time import format_timestamp as ts

if TYPE_CHECKING:  # types only: ``hlmem --help`` need not import the recall service
    from rich.table import Table
    from rich.text import Text

    from hlmem.application.recall import RecallResult
    from hlmem.domain.state import ClaimState

#: The inert-text helpers the CLI's commands print with (they live in the wire format).
__all__ = ["cell", "conflicts_table", "history_table", "jobs_table", "json_text", "plain", "recall_table"]


def cell(text: object) -> Text:
    """A table cell that shows ``text`` as typed: no markup, no emoji codes, controls visible."""
    from rich.text import Text  # rich loads when a table is drawn: a JSON or plain answer never needs it

    return Text(plain(text, lines=True))


def _row(*values: object) -> list[Text]:
    return [cell(v) for v in values]


def _short(value: str | None) -> str:
    return (value or "")[:19].replace("T", " ") if value else "∞"


def recall_table(result: RecallResult) -> Table:
    """Recall as a table."""
    from rich.table import Table

    table = Table(title=f"recall (valid at {_short(ts(result.valid_at))}, known at {_short(ts(result.known_at))})")
    for col in ("#", "id", "kind", "text", "valid", "score"):
        table.add_column(col, overflow="fold")
    for n, item in enumerate(result.items, start=1):
        valid = f"{_short(ts(item.valid_from))} → {_short(ts(item.valid_to))}" if item.kind == "claim" \
            else _short(ts(item.occurred_at))
        table.add_row(*_row(str(n), item.id, item.kind, item.text, valid, f"{item.score:.4f}"))
    return table


def history_table(claims: list[ClaimState]) -> Table:
    """A slot's history as a table, oldest first."""
    from rich.table import Table

    table = Table(title="history (oldest first)")
    for col in ("id", "value", "qualifiers", "status", "valid", "recorded"):
        table.add_column(col, overflow="fold")
    for c in claims:
        last = c.versions[-1]
        table.add_row(*_row(c.claim_id, ("NOT " if not c.polarity else "") + c.value,
                            ", ".join(f"{k}={v}" for k, v in c.qualifiers),
                            c.status.value + (" (archived)" if c.archived else ""),
                            f"{_short(ts(last.valid_from))} → {_short(ts(last.valid_to))}",
                            f"{_short(ts(last.recorded_from))} → {_short(ts(last.recorded_to))}"))
    return table


def jobs_table(counts: dict[str, dict[str, int]], jobs: list) -> Table:
    """Job counts by type and state, then the listed jobs."""
    from rich.table import Table

    title = "; ".join(f"{kind}: " + ", ".join(f"{n} {state}" for state, n in sorted(by.items()))
                      for kind, by in sorted(counts.items())) or "no jobs"
    table = Table(title=cell(title))
    for col in ("id", "kind", "state", "attempts", "session", "event", "last error"):
        table.add_column(col, overflow="fold")
    for j in jobs:
        table.add_row(*_row(j.job_id, j.kind, j.state, f"{j.attempts}/{j.max_attempts}", j.session_id,
                            str(j.payload.get("event_id", "")), (j.last_error or "")[:80]))
    return table


def conflicts_table(conflicts: list) -> Table:
    """Conflicts as a table."""
    from rich.table import Table

    table = Table(title="conflicts")
    for col in ("id", "status", "reason", "candidate", "existing"):
        table.add_column(col, overflow="fold")
    for c in conflicts:
        cand = c.candidate
        shown = f"{cand['subject']} · {cand['predicate']} · {cand['value']}" if cand else "(forgotten)"
        table.add_row(*_row(c.conflict_id, c.status, c.reason, shown, ", ".join(c.existing)))
    return table
