"""The memory tools the Hermes provider offers the model: OpenAI function schemas and their dispatch onto ``Memory``.

Results and errors are JSON strings in Hermes' shape (``tools.registry.tool_result`` /
``tool_error``): a result is an object, an error is ``{"error": "<what is wrong and what to
do>"}``; nothing is raised to the agent. Each tool is one ``Memory`` call.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from hlmem.adapters.wire.claims import claim_dict, explanation_dict
from hlmem.adapters.wire.recall import recall_dict
from hlmem.adapters.wire.text import json_text
from hlmem.domain.errors import HlmemError

if TYPE_CHECKING:
    from hlmem.adapters.memory_api import Memory

_STR = {"type": "string"}
#: An item: its id (cl_…/ev_…), or its handle in the memory context packet (``fxqwtzk.3``, ADR 0092).
_ID = {"type": "string", "description": "a memory's id (cl_…, ev_…), or item [n] of the memory context as <tag>.n "
                                       "(the tag is in the context's first line, e.g. fxqwtzk.3)"}
_TIME = {"type": "string", "description": "ISO 8601 instant with offset, e.g. 2026-05-01T00:00:00+08:00"}


def _schema(name: str, description: str, properties: Mapping[str, Any], required: tuple[str, ...]) -> dict:
    return {"name": name, "description": description,
            "parameters": {"type": "object", "properties": dict(properties), "required": list(required)}}


SCHEMAS: tuple[dict, ...] = (
    _schema("hlmem_recall", "Search long-term memory (facts and past conversation) for a query. Use before "
            "answering about the user or earlier sessions; valid_at/known_at ask about the past.",
            {"query": _STR, "k": {"type": "integer", "minimum": 1, "maximum": 50}, "valid_at": _TIME,
             "known_at": _TIME,
             "session": {"type": "string", "description": "keep only this session's past turns (facts stay)"}},
            ("query",)),
    _schema("hlmem_remember", "Store an explicit fact as subject / predicate / value (a new value of a "
            "single-valued slot supersedes the old one; history keeps both).",
            {"subject": _STR, "predicate": _STR, "value": _STR, "valid_from": _TIME, "valid_to": _TIME},
            ("subject", "predicate", "value")),
    _schema("hlmem_forget", "Erase a memory by id, a whole session, or everything about a subject (give "
            "exactly one). dry_run=true only reports what would go.",
            {"id": _ID, "session": _STR, "subject": _STR, "dry_run": {"type": "boolean"}}, ()),
    _schema("hlmem_explain", "Show a memory's evidence verbatim, its supersede chain and both clocks.",
            {"id": _ID}, ("id",)),
    _schema("hlmem_history", "The values a subject's slot (predicate) has had, oldest first.",
            {"subject": _STR, "predicate": _STR}, ("subject", "predicate")),
    _schema("hlmem_feedback", "Say whether a recalled memory was helpful or unhelpful (steers ranking).",
            {"id": _ID, "verdict": {"type": "string", "enum": ["helpful", "unhelpful"]}}, ("id", "verdict")),
)
NAMES = frozenset(s["name"] for s in SCHEMAS)


def tool_error(message: str) -> str:
    """Hermes' tool error shape: ``{"error": message}`` as JSON."""
    return json.dumps({"error": str(message)}, ensure_ascii=False)


def _recall(mem: Memory, a: Mapping[str, Any]) -> dict:
    session = a.get("session")
    result = mem.recall(_text(a, "query"), k=_k(a.get("k", 8)), valid_at=a.get("valid_at"),
                        known_at=a.get("known_at"), session=None if session is None else _text(a, "session"))
    return recall_dict(result)


def _remember(mem: Memory, a: Mapping[str, Any]) -> dict:
    w = mem.remember(_text(a, "subject"), _text(a, "predicate"), _text(a, "value"),
                     valid_from=a.get("valid_from"), valid_to=a.get("valid_to"))
    return {"id": w.id, "outcome": w.outcome}


def _forget(mem: Memory, a: Mapping[str, Any]) -> dict:
    dry_run = a.get("dry_run", False)
    if not isinstance(dry_run, bool):
        raise ValueError("argument 'dry_run' must be true or false")
    r = mem.forget(a.get("id"), session=a.get("session"), subject=a.get("subject"), dry_run=dry_run,
                   actor="agent", reason="hermes tool hlmem_forget")
    return {"target": r.target, "target_kind": r.target_kind, "counts": dict(r.counts), "dry_run": dry_run}


def _explain(mem: Memory, a: Mapping[str, Any]) -> dict:
    return explanation_dict(mem.explain(_text(a, "id")))


def _history(mem: Memory, a: Mapping[str, Any]) -> dict:
    return {"claims": [claim_dict(c) for c in mem.history(_text(a, "subject"), _text(a, "predicate"))]}


def _feedback(mem: Memory, a: Mapping[str, Any]) -> dict:
    w = mem.feedback(_text(a, "id"), _text(a, "verdict"), actor="agent")
    return {"id": w.id, "outcome": w.outcome}


_HANDLERS: dict[str, Callable[[Memory, Mapping[str, Any]], dict]] = {
    "hlmem_recall": _recall, "hlmem_remember": _remember, "hlmem_forget": _forget,
    "hlmem_explain": _explain, "hlmem_history": _history, "hlmem_feedback": _feedback,
}


def _text(args: Mapping[str, Any], key: str) -> str:
    value = args.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"argument {key!r} is required and must be a non-empty string")
    return value


def _k(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 50:
        raise ValueError(f"argument 'k' must be an integer from 1 to 50, got {value!r}")
    return value


def dispatch(mem: Memory, name: str, args: Any) -> str:
    """Run tool ``name`` with ``args`` on ``mem``; a JSON result, or a JSON ``{"error": …}`` for an
    unknown tool, arguments that are not an object, invalid values or a refused operation."""
    handler = _HANDLERS.get(name)
    if handler is None:
        return tool_error(f"unknown tool {name!r}: the hlmem provider offers {', '.join(sorted(NAMES))}")
    if not isinstance(args, Mapping):
        return tool_error(f"{name}: arguments must be a JSON object, got {type(args).__name__}")
    try:
        return json_text(handler(mem, args))
    except (HlmemError, ValueError, TypeError, LookupError) as exc:
        return tool_error(f"{name}: {exc}")
