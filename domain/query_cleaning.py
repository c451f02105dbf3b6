"""The cleaned query: the words left when the time words are taken out (an anchor keeps its event) (pure)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from hlmem.domain.query_lexicon import _HAN

if TYPE_CHECKING:
    from hlmem.domain.time_intent import Hit


def clean_query(text: str, hits: Sequence[Hit]) -> str:
    """``text`` without the spans of ``hits`` (but the event an anchor keeps), spaces and punctuation tidied."""
    out, cursor = [], 0
    for h in sorted((h for h in hits if h.kind not in ("clock", "known")), key=lambda h: h.start):
        if h.start < cursor:
            continue
        out.append(text[cursor:h.start])
        if h.keep is not None:
            out.append(" " + text[h.keep[0]:h.keep[1]] + " ")
        cursor = h.end
    out.append(text[cursor:])
    joined = " ".join("".join(out).split())
    joined = re.sub(r"\s+([?？!！,，.。;；:：])", r"\1", joined)
    return re.sub(rf"(?<={_HAN}) (?={_HAN})|(?<={_HAN}) (?=[A-Za-z0-9])|(?<=[A-Za-z0-9]) (?={_HAN})", "", joined).strip()

