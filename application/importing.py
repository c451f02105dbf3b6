"""Import: JSONL of observations and claims, with their original times, parsed and validated up front.

Format (one JSON object per line; docs/import-format.md)::

    {"type": "observation", "text": "…", "occurred_at": "2026-03-01T09:00:00+08:00",
     "recorded_at": "…", "session": "s1", "role": "user", "origin": "direct_user",
     "session_kind": "interactive", "namespace": "default", "id": "local-1"}
    {"type": "claim", "subject": "用户", "predicate": "works_in", "value": "杭州",
     "qualifiers": {"temporary": "暂时"}, "coordinates": {}, "valid_from": "…", "valid_to": null,
     "recorded_at": "…", "importance": 0.5, "scope": "permanent", "polarity": true,
     "cardinality": null, "evidence": ["local-1"], "namespace": "default"}

``id`` is file-local: claims may cite observations of the same file by it. A claim's evidence
must name events that exist (earlier in the file, or in the store) and were not forgotten
(:func:`unusable_evidence`, docs/forgetting.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from attrs import evolve, frozen

from hlmem.domain.commands import AssertClaim, RecordObservation, validate_observation
from hlmem.domain.errors import ValidationError
from hlmem.domain.events import Cardinality, OriginClass, Scope, SessionKind
from hlmem.domain.evidence import EVIDENCE_FORGOTTEN, EvidenceProblem, describe, evidence_problems
from hlmem.domain.time import parse_timestamp, require_aware

if TYPE_CHECKING:
    from hlmem.application.ports import ClaimReader

_OBS_KEYS = {"type", "text", "occurred_at", "recorded_at", "session", "role", "origin", "session_kind",
             "namespace", "id"}
_CLAIM_KEYS = {"type", "subject", "predicate", "value", "qualifiers", "coordinates", "valid_from", "valid_to",
               "recorded_at", "importance", "scope", "polarity", "cardinality", "evidence", "namespace", "id"}


@frozen
class ImportLine:
    """One parsed line: the command and the recorded time it carries (None = now)."""

    line: int
    command: RecordObservation | AssertClaim
    recorded_at: datetime | None


def _time(record: dict[str, Any], key: str) -> datetime | None:
    value = record.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValidationError(f"{key} must be an ISO 8601 string", field=key)
    return require_aware(parse_timestamp(value, field=key), field=key)  # in range, or the line is refused


def _pairs(record: dict[str, Any], key: str) -> tuple[tuple[str, str], ...]:
    value = record.get(key) or {}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ValidationError(f"{key} must be an object of strings", field=key)
    return tuple(sorted(value.items()))


def _enum(kind: type, value: Any, key: str):
    try:
        return kind(value)
    except ValueError:
        allowed = ", ".join(m.value for m in kind)
        raise ValidationError(f"{key} {value!r} is not one of {allowed}", field=key) from None


def parse_record(record: Any, new_event_id: Callable[[str], str], local_ids: dict[str, str]) -> tuple:
    """Turn one decoded JSON object into ``(command, recorded_at)``; file-local ids are mapped."""
    if not isinstance(record, dict):
        raise ValidationError("each line must be a JSON object", field="line")
    kind = record.get("type")
    if kind == "observation":
        unknown = set(record) - _OBS_KEYS
        if unknown:
            raise ValidationError(f"unknown keys {sorted(unknown)}", field="line")
        cmd = RecordObservation(
            text=record.get("text"), namespace=record.get("namespace", "default"), role=record.get("role", "user"),
            session_id=str(record.get("session", "default")),
            origin_class=_enum(OriginClass, record.get("origin", "direct_user"), "origin"),
            session_kind=_enum(SessionKind, record.get("session_kind", "interactive"), "session_kind"),
            occurred_at=_time(record, "occurred_at"),
        )
        recorded_at = _time(record, "recorded_at")
        try:
            validate_observation(cmd)
        except ExceptionGroup as group:
            raise ValidationError("; ".join(str(e) for e in group.exceptions), field="line") from None
        if record.get("id") is not None:
            # Registered only once the line is known good, so no claim can cite a skipped line.
            event_id = new_event_id("ev")
            local_ids[str(record["id"])] = event_id
            cmd = evolve(cmd, event_id=event_id)
        return cmd, recorded_at
    if kind == "claim":
        unknown = set(record) - _CLAIM_KEYS
        if unknown:
            raise ValidationError(f"unknown keys {sorted(unknown)}", field="line")
        evidence = record.get("evidence") or []
        if not isinstance(evidence, list):
            raise ValidationError("evidence must be a list of ids", field="evidence")
        polarity = record.get("polarity", True)
        if not isinstance(polarity, bool):
            raise ValidationError("polarity must be true or false", field="polarity")
        card = record.get("cardinality")
        importance = record.get("importance", 0.5)
        if isinstance(importance, bool) or not isinstance(importance, (int, float)):
            raise ValidationError("importance must be a number between 0 and 1", field="importance")
        cmd = AssertClaim(
            subject=record.get("subject"), predicate=record.get("predicate"), value=record.get("value"),
            namespace=record.get("namespace", "default"), qualifiers=_pairs(record, "qualifiers"),
            coordinates=_pairs(record, "coordinates"), polarity=polarity, importance=importance,
            scope=_enum(Scope, record.get("scope", "permanent"), "scope"),
            cardinality=None if card is None else _enum(Cardinality, card, "cardinality"),
            valid_from=_time(record, "valid_from"), valid_to=_time(record, "valid_to"),
            evidence=tuple(local_ids.get(str(e), str(e)) for e in evidence), source="import",
        )
        return cmd, _time(record, "recorded_at")
    raise ValidationError(f"type must be 'observation' or 'claim', not {kind!r}", field="type")


def parse_jsonl(lines: Iterable[str], new_event_id: Callable[[str], str]) -> tuple[list[ImportLine], list[str]]:
    """Parse every line; return the parsed lines and one message per bad line (``line N: …``)."""
    parsed: list[ImportLine] = []
    errors: list[str] = []
    local_ids: dict[str, str] = {}
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
            cmd, recorded_at = parse_record(record, new_event_id, local_ids)
        except json.JSONDecodeError as exc:
            errors.append(f"line {number}: not JSON ({exc.msg})")
            continue
        except (RecursionError, ValueError) as exc:
            if isinstance(exc, ValidationError):
                errors.append(f"line {number}: {exc}")
            else:
                errors.append(f"line {number}: not usable JSON ({type(exc).__name__})")
            continue
        parsed.append(ImportLine(number, cmd, recorded_at))
    return parsed, errors


def unusable_evidence(lines: Sequence[ImportLine], reader: ClaimReader, *,
                      dropped: Collection[str] = ()) -> dict[int, tuple[EvidenceProblem, ...]]:
    """Claim lines whose evidence cannot support them, by line number, before anything is written.

    An id is usable when an observation line before the claim records it (and is not in
    ``dropped``) or the store holds it, not forgotten. ``dropped`` are the event ids of lines that
    will not be written because their content was forgotten (re-ingest blocking): citing one is
    :data:`~hlmem.domain.evidence.EVIDENCE_FORGOTTEN`.

    :param lines: the lines to be written, in file order.
    """
    local = {i.command.event_id for i in lines if isinstance(i.command, RecordObservation) and i.command.event_id}
    stored = sorted({e for i in lines if isinstance(i.command, AssertClaim) for e in i.command.evidence}
                    - local - set(dropped))
    cited = reader.get_observations(stored) if stored else {}
    recorded: set[str] = set()
    out: dict[int, tuple[EvidenceProblem, ...]] = {}
    for item in lines:
        cmd = item.command
        if isinstance(cmd, RecordObservation):
            if cmd.event_id and cmd.event_id not in dropped:
                recorded.add(cmd.event_id)
            continue
        problems = tuple(EvidenceProblem(p.event_id, EVIDENCE_FORGOTTEN) if p.event_id in dropped else p
                         for p in evidence_problems(cmd.evidence, cited, recorded))
        if problems:
            out[item.line] = problems
    return out


def screen(lines: Sequence[ImportLine], blocked: Sequence[bool],
           reader: ClaimReader) -> tuple[list[ImportLine], list[str], list[str]]:
    """Split valid lines into those to write, refusals and blocked lines, before anything is written.

    :param blocked: per line, whether its content was forgotten (re-ingest blocking).
    :returns: ``(to write, errors, blocked)``; an error (a claim citing a forgotten or unknown
        event of the store) refuses the file unless invalid lines are skipped; a blocked line (its
        content, or every unusable piece of its evidence, is forgotten content of this file) is
        skipped and reported.
    """
    dropped = {i.command.event_id for i, b in zip(lines, blocked)
               if b and isinstance(i.command, RecordObservation) and i.command.event_id}
    kept = [i for i, b in zip(lines, blocked) if not b]
    unusable = unusable_evidence(kept, reader, dropped=dropped)
    errors: list[str] = []
    held = [(i.line, "forgotten content") for i, b in zip(lines, blocked) if b]
    for number, problems in unusable.items():
        if {p.event_id for p in problems} <= dropped:
            held.append((number, describe(problems)))
        else:
            errors.append(f"line {number}: {describe(problems)}")
    return ([i for i in kept if i.line not in unusable], errors,
            [f"line {number}: blocked: {why}" for number, why in sorted(held)])
