"""Recall: the stages that turn a question into a ranked, explained packet (ADR 0031, docs/recall.md).

The room's modules: :mod:`.service` (``RecallService`` and the declared ``STAGES``), :mod:`.query`
(the frozen ``RecallQuery`` read from the caller's arguments), :mod:`.reads` (each claim and
observation read once per recall), :mod:`.features` (the final signals), :mod:`.floor` (when a
weak match is dropped), :mod:`.slots` (between the values of one slot), :mod:`.parts` (questions in
several parts) and :mod:`.items` (``RecallItem`` and ``RecallResult``).

``from hlmem.application.recall import RecallService`` (and the other names below) keeps working.
They are loaded on first use (PEP 562), so a submodule such as :mod:`.items` can be imported by
modules that :mod:`.service` itself imports (``experience_recall``) without an import cycle.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hlmem.application.recall.items import RecallItem, RecallResult
    from hlmem.application.recall.query import MAX_K, MAX_QUERY_CHARS, RecallQuery
    from hlmem.application.recall.service import STAGES, RecallService

#: Public name -> the submodule that defines it.
_EXPORTS = {"RecallService": "service", "STAGES": "service", "RecallQuery": "query", "MAX_K": "query",
            "MAX_QUERY_CHARS": "query", "RecallItem": "items", "RecallResult": "items"}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
