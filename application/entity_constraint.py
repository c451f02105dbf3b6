"""The entity constraint (issue 5, docs/recall.md "Entity constraint"): when the query names an
entity with high confidence, items about another entity (a near-homonym: 张卫 for 张伟, v1.3 for
v1.2) never rank above those that mention it.

``mentions`` is the one rule of "this text mentions that name"; the conversation stages use it too.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Mapping, Sequence

from hlmem.application.ranking import Scored

__all__ = ["ENTITY_CONSTRAINT_MODES", "constrain", "mentions", "mentions_folded"]


#: Entity-constraint modes: ``off`` ignores named entities; ``observe`` counts, in the notes, the
#: items about other entities it would move; ``enforce`` (default) ranks items that mention a named
#: entity first and leaves out items about another entity only.
ENTITY_CONSTRAINT_MODES = ("off", "observe", "enforce")


def mentions(text: str, name: str) -> bool:
    """Whether ``text`` mentions ``name`` (NFKC, case-folded): an ASCII letter or digit at an edge of
    ``name`` must be a word edge, and a version is not a prefix of a longer one (v1.2 ≠ v1.2.1)."""
    return mentions_folded(unicodedata.normalize("NFKC", text).casefold(), name)


def mentions_folded(folded: str, name: str) -> bool:
    """:func:`mentions` on a text already NFKC-normalised and case-folded (a scan with ``str.find``:
    a regular expression per name cost more to compile than the whole scan)."""
    needle = _needle(name)
    if not needle:
        return False
    head = needle[0].isascii() and needle[0].isalnum()
    version = needle[0].isdigit()  # "1.2" in "v1.2" and "version 1.2"
    tail = needle[-1].isascii() and needle[-1].isalnum()
    start = folded.find(needle)
    while start >= 0:
        end = start + len(needle)
        head_ok = (not head or _free(folded, start - 1)
                   or (version and start > 0 and folded[start - 1] == "v" and _free(folded, start - 2)))
        tail_ok = not tail or not (
            (end < len(folded) and folded[end] in _WORD)
            or (end + 1 < len(folded) and folded[end] == "." and folded[end + 1] in _DIGITS))
        if head_ok and tail_ok:
            return True
        start = folded.find(needle, start + 1)
    return False


_DIGITS = frozenset("0123456789")
_WORD = frozenset("0123456789abcdefghijklmnopqrstuvwxyz_")
_WORD_OR_DOT = _WORD | {"."}


def _free(folded: str, i: int) -> bool:
    """No ASCII word character or dot at ``i`` (before the start counts as free)."""
    return i < 0 or folded[i] not in _WORD_OR_DOT


@functools.lru_cache(maxsize=4_096)
def _needle(name: str) -> str:
    return unicodedata.normalize("NFKC", name).casefold().strip()


def constrain(scored: Sequence[Scored], texts: Mapping[str, str], names: Sequence[str], others: Sequence[str] = (),
              mode: str = "enforce") -> tuple[list[Scored], int]:
    """Apply the entity constraint for ``names``, the entities the query names with high confidence.

    Items mentioning a name keep their order and come first; items mentioning none of them but
    another known entity (``others``: stored subjects, near-homonyms included — 张卫 for 张伟)
    are about someone else; the rest (mentioning no entity) follow the first group.

    :returns: in ``enforce`` mode the first group then the rest, the items about someone else left
        out; in ``observe`` mode the items unchanged; and, either way, how many items about someone
        else there were (the cross-entity intrusions).
    """
    if mode == "off" or not names:
        return list(scored), 0
    named, rest, elsewhere = [], [], []
    for s in scored:
        folded = unicodedata.normalize("NFKC", texts.get(s.item_id, "")).casefold()  # once, not once per name
        if any(mentions_folded(folded, n) for n in names):
            named.append(s)
        elif any(mentions_folded(folded, o) for o in others):
            elsewhere.append(s)
        else:
            rest.append(s)
    if mode == "observe":
        return list(scored), len(elsewhere)
    return named + rest, len(elsewhere)
