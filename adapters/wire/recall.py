"""Recall as JSON: ``{"items": [...], "valid_at": …, "known_at": …}``, with intent and packet."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hlmem.domain.time import format_timestamp as ts

if TYPE_CHECKING:  # types only: ``hlmem --help`` need not import the recall service
    from hlmem.application.recall import RecallItem, RecallResult


def recall_item_dict(item: RecallItem) -> dict[str, Any]:
    """One recall item as JSON."""
    out: dict[str, Any] = {"id": item.id, "kind": item.kind, "text": item.text, "score": round(item.score, 6),
                           "ranks": item.ranks, "evidence": list(item.evidence)}
    if item.kind == "claim":
        out.update(subject=item.subject, predicate=item.predicate, value=item.value,
                   qualifiers=dict(item.qualifiers), polarity=item.polarity, status=item.status, archived=item.archived,
                   valid_from=ts(item.valid_from), valid_to=ts(item.valid_to),
                   recorded_from=ts(item.recorded_from), recorded_to=ts(item.recorded_to))
    elif item.kind in ("policy", "procedure"):  # the experience channel (docs/experience.md)
        out.update(status=item.status, situation=item.subject, approach=item.value, support=item.support,
                   successes=item.successes, failures=item.failures, reliability=item.reliability,
                   steps=list(item.steps), policy_id=item.policy_id, recorded_at=ts(item.recorded_from))
    elif item.kind in ("mental_model", "observation_summary"):  # a derived item (ADR 0084): evidence = its claims
        out.update(status=item.status, subject=item.subject, family=item.predicate, label=item.value,
                   built_at=ts(item.recorded_from))
    else:
        out.update(occurred_at=ts(item.occurred_at), recorded_at=ts(item.recorded_from),
                   session=item.session_id, role=item.role, history=item.history)
    return out


def recall_dict(result: RecallResult) -> dict[str, Any]:
    """Recall as JSON: ``{"items": [...], "valid_at": …, "known_at": …}``."""
    out = {"items": [recall_item_dict(i) for i in result.items], "valid_at": ts(result.valid_at),
           "known_at": ts(result.known_at), "notes": list(result.notes)}
    if result.intent is not None:
        out["intent"] = intent_dict(result.intent)
    if result.packet is not None:
        p = result.packet
        out["packet"] = {"version": p.version, "text": p.text, "tokens": p.tokens, "budget": p.budget,
                         "truncated": p.truncated, "included": p.included, "cut": p.cut, "omitted": p.omitted,
                         "history": p.history, "tag": p.tag}
    return out


def intent_dict(intent) -> dict[str, Any]:
    """What recall read from the query: time mode and inferred instants, entities, reasons."""
    vrange = intent.valid_range
    return {
        "time_mode": intent.time_mode.value, "valid_at": ts(intent.valid_at), "known_at": ts(intent.known_at),
        "valid_range": None if vrange is None else [ts(vrange.start), ts(vrange.end)], "as_of": intent.as_of,
        "about_user": intent.about_user,
        "entities": [{"text": e.text, "key": e.key, "kind": e.kind, "confidence": e.confidence}
                     for e in intent.entities],
        "reasons": list(intent.reasons),
    }
