"""How a recall joins the recalls of a question's parts and bridges (ADR 0057, docs/recall.md).

:mod:`hlmem.domain.query_parts` reads the parts; :class:`~hlmem.application.recall.RecallService`
recalls each; these pure helpers choose the heads a bridge follows, interleave the lists and say
what was done in the result's notes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from hlmem.application.recall.items import RecallItem
from hlmem.domain.query_referent import note_head, referent
from hlmem.domain.state import SELF_SUBJECTS

__all__ = ["bridge_heads", "interleave", "part_notes"]


def bridge_heads(question: str, texts: Iterable[str], top: int) -> tuple[str, str, list[str]] | None:
    """``(condition, asked, heads)`` when ``question`` asks about "the one whose …": the heads of
    the texts of its best items (in order, each once, at most ``top``), leaving out what the
    question names already and the user's own name; None when it is no such question, or no
    head is found."""
    read = referent(question) if top > 0 else None
    if read is None:
        return None
    folded = question.casefold()
    heads: list[str] = []
    for text in texts:
        head = note_head(text)
        if head and head.casefold() not in folded and head.casefold() not in SELF_SUBJECTS and head not in heads:
            heads.append(head)
            if len(heads) == top:
                break
    return (read[0], read[1], heads) if heads else None


def interleave(lists: Sequence[Sequence[RecallItem]], k: int) -> list[RecallItem]:
    """The first ``k`` items of ``lists`` taken in turn (the best of each, then the second of each,
    …), each item once: every part of a compound question gets its share of the slots, and a part
    with fewer items leaves its slots to the others."""
    if len(lists) == 1:
        return list(lists[0][:k])
    out: dict[str, RecallItem] = {}
    for rank in range(max((len(items) for items in lists), default=0)):
        for items in lists:
            if rank < len(items) and len(out) < k:
                out.setdefault(items[rank].id, items[rank])
    return list(out.values())


def part_notes(parts: tuple[str, ...], query: str, notes: Iterable[Iterable[str]]) -> list[str]:
    """A recall's notes: a line on how the query was read when it was split or narrowed, then each
    part's ``notes``, in order and once."""
    head: list[str] = []
    if len(parts) > 1:
        head.append(f"compound question: {len(parts)} parts searched apart, their best items interleaved: "
                    + " | ".join(repr(p) for p in parts))
    elif parts != (query.strip(),):
        head.append(f"correction: only what follows it is searched: {parts[0]!r}")
    return list(dict.fromkeys([*head, *(n for part in notes for n in part)]))
