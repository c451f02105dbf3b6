"""Turning results into JSON-safe dicts and rich tables for the CLI.

Stored text is the user's (or a web page's), never ours to interpret: every human-readable
output shows it inert. Table cells are :class:`rich.text.Text` (never parsed as Rich markup or
emoji codes, so ``[bold red]`` and ``[link=…]`` print as typed), and :func:`plain` makes control
characters visible (ESC as the four characters ``\\x1b``) so no escape sequence, carriage
return or bidirectional override reaches the terminal. JSON stays exact: :func:`json_text`
only writes the same characters as ``\\uXXXX`` escapes, which decode to the same value.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

from hlmem.domain.state import ClaimState, ClaimVersion, ObservationState

if TYPE_CHECKING:  # types only: ``hlmem --help`` need not import the recall service
    from hlmem.application.inspect import Explanation
    from hlmem.application.recall import RecallItem, RecallResult
from hlmem.domain.time import format_timestamp as ts


#: Characters a terminal may act on: C0 controls (but newline and tab), DEL, C1 controls, and the
#: bidirectional marks, embeddings, overrides and isolates that reorder what is shown.
_CONTROL = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_UNSAFE_LINES = re.compile(f"[{_CONTROL}]")
_UNSAFE = re.compile(f"[{_CONTROL}\n\t]")


def _visible(m: re.Match[str]) -> str:
    code = ord(m[0])
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def plain(text: object, *, lines: bool = False) -> str:
    """``text`` safe to print: each control character written out as ``\\xNN`` / ``\\uNNNN``.

    :param lines: keep newlines and tabs (a multi-line text such as a context packet); by
        default they are escaped too, so a value cannot start a line of output of its own.
    """
    return (_UNSAFE_LINES if lines else _UNSAFE).sub(_visible, str(text))


def cell(text: object) -> Text:
    """A table cell that shows ``text`` as typed: no markup, no emoji codes, controls visible."""
    return Text(plain(text, lines=True))


_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_text(data: Any, *, indent: int | None = None) -> str:
    """``data`` as JSON (non-ASCII kept) with the characters a terminal may act on as ``\\u`` escapes.

    ``json.dumps`` already escapes C0 controls; DEL, C1 and the bidirectional controls are
    escaped here. The text decodes to exactly ``data``.
    """
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m[0]):04x}", json.dumps(data, ensure_ascii=False, indent=indent))


def _row(*values: object) -> list[Text]:
    return [cell(v) for v in values]


def version_dict(row: ClaimVersion) -> dict[str, Any]:
    """A bitemporal row as JSON."""
    return {"valid_from": ts(row.valid_from), "valid_to": ts(row.valid_to),
            "recorded_from": ts(row.recorded_from), "recorded_to": ts(row.recorded_to)}


def claim_dict(claim: ClaimState) -> dict[str, Any]:
    """A claim as JSON: its fields, status, current clocks and every bitemporal row."""
    last = claim.versions[-1]
    return {
        "id": claim.claim_id, "kind": "claim", "namespace": claim.namespace, "subject": claim.subject,
        "predicate": claim.predicate, "value": claim.value, "qualifiers": dict(claim.qualifiers),
        "coordinates": dict(claim.coordinates), "polarity": claim.polarity, "importance": claim.importance,
        "scope": claim.scope.value, "cardinality": claim.cardinality.value, "status": claim.status.value,
        "archived": claim.archived,
        "valid_from": ts(last.valid_from), "valid_to": ts(last.valid_to),
        "recorded_from": ts(last.recorded_from), "recorded_to": ts(last.recorded_to),
        "superseded_by": claim.superseded_by, "supersedes": list(claim.supersedes),
        "evidence": list(claim.evidence), "versions": [version_dict(v) for v in claim.versions],
    }


def observation_dict(obs: ObservationState) -> dict[str, Any]:
    """An event as JSON (verbatim text)."""
    return {
        "id": obs.event_id, "kind": "event", "namespace": obs.namespace, "text": obs.text, "role": obs.role,
        "session": obs.session_id, "origin": obs.origin_class.value, "session_kind": obs.session_kind.value,
        "occurred_at": ts(obs.occurred_at), "recorded_at": ts(obs.recorded_at), "forgotten": obs.forgotten,
    }


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
                         "history": p.history}
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


def explanation_dict(exp: Explanation) -> dict[str, Any]:
    """Explain as JSON (a forgotten id: only its id and when it was forgotten)."""
    if exp.kind == "forgotten":
        return {"kind": "forgotten", "id": exp.item_id, "forgotten_at": ts(exp.forgotten_at)}
    if exp.kind == "claim" and exp.claim is not None:
        return {"kind": "claim", "claim": claim_dict(exp.claim),
                "evidence": [observation_dict(o) for o in exp.evidence],
                "missing_evidence": list(exp.missing_evidence),
                "chain": [claim_dict(c) for c in exp.chain]}
    assert exp.observation is not None
    return {"kind": "event", "event": observation_dict(exp.observation),
            "cited_by": [claim_dict(c) for c in exp.cited_by]}


def _short(value: str | None) -> str:
    return (value or "")[:19].replace("T", " ") if value else "∞"


def recall_table(result: RecallResult) -> Table:
    """Recall as a table."""
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


def job_dict(job) -> dict[str, Any]:
    """A job as JSON."""
    return {"id": job.job_id, "kind": job.kind, "state": job.state, "attempts": job.attempts,
            "max_attempts": job.max_attempts, "session": job.session_id, "payload": dict(job.payload),
            "available_at": ts(job.available_at), "created_at": ts(job.created_at), "updated_at": ts(job.updated_at),
            "last_error": job.last_error, "last_error_class": job.last_error_class,
            # Why a pending job waits (the budget defers, ADR 0034): its reason; null when it does not.
            "waiting": job.last_error if job.state == "pending" and job.last_error_class == "BudgetExceeded" else None}


def jobs_table(counts: dict[str, dict[str, int]], jobs: list) -> Table:
    """Job counts by type and state, then the listed jobs."""
    title = "; ".join(f"{kind}: " + ", ".join(f"{n} {state}" for state, n in sorted(by.items()))
                      for kind, by in sorted(counts.items())) or "no jobs"
    table = Table(title=cell(title))
    for col in ("id", "kind", "state", "attempts", "session", "event", "last error"):
        table.add_column(col, overflow="fold")
    for j in jobs:
        table.add_row(*_row(j.job_id, j.kind, j.state, f"{j.attempts}/{j.max_attempts}", j.session_id,
                            str(j.payload.get("event_id", "")), (j.last_error or "")[:80]))
    return table


def conflict_dict(conflict) -> dict[str, Any]:
    """A conflict as JSON."""
    cand = dict(conflict.candidate)
    if cand:  # a forgotten conflict keeps no candidate
        cand.update(scope=getattr(cand["scope"], "value", cand["scope"]), valid_from=ts(cand["valid_from"]),
                    valid_to=ts(cand["valid_to"]), qualifiers=dict(cand["qualifiers"]),
                    coordinates=dict(cand["coordinates"]), evidence=list(cand["evidence"]))
    return {"id": conflict.conflict_id, "status": conflict.status, "version": conflict.version,
            "reason": conflict.reason, "existing": list(conflict.existing), "candidate": cand,
            "opened_at": ts(conflict.opened_at), "decision": conflict.decision, "claim_id": conflict.claim_id}


def conflicts_table(conflicts: list) -> Table:
    """Conflicts as a table."""
    table = Table(title="conflicts")
    for col in ("id", "status", "reason", "candidate", "existing"):
        table.add_column(col, overflow="fold")
    for c in conflicts:
        cand = c.candidate
        shown = f"{cand['subject']} · {cand['predicate']} · {cand['value']}" if cand else "(forgotten)"
        table.add_row(*_row(c.conflict_id, c.status, c.reason, shown, ", ".join(c.existing)))
    return table
