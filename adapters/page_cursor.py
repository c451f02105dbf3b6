"""Page cursors as REST and MCP take them back: a ``next_cursor`` this server gave, or nothing.

A listing's cursor is the id of the last item of the previous page (a claim's ``cl_…``, an
episode's ``ep_…``). Any other text used to be read as an id to start after, so a mistyped or
made-up cursor answered an empty page with ``200``, as if the listing had ended. Now it is
refused, saying what a cursor looks like.
"""

from __future__ import annotations

import re

from hlmem.domain.errors import ValidationError

_ID = re.compile(r"[a-z]{2}_[0-9A-Za-z]{1,64}")


class InvalidCursor(ValidationError):
    """A cursor that is not a ``next_cursor`` a listing gave."""


def check_cursor(cursor: str | None, prefix: str) -> str | None:
    """``cursor`` when it is None or an id with ``prefix`` (``cl``, ``ep``).

    :raises InvalidCursor: anything else, with the cursor (shortened) and what was expected.
    """
    if cursor is None or (_ID.fullmatch(cursor) and cursor.startswith(f"{prefix}_")):
        return cursor
    shown = cursor if len(cursor) <= 40 else cursor[:37] + "…"
    raise InvalidCursor(f"cursor {shown!r} is not a next_cursor this server gave (an id {prefix}_…); pass the "
                        "previous page's next_cursor, or leave cursor out for the first page", field="cursor")
