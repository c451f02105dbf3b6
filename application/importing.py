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
(:class:`Screening`, docs/forgetting.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, MutableMapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from attrs import evolve, frozen

from hlmem.domain.commands import AssertClaim, RecordObservation, validate_observation
from hlmem.domain.errors import ValidationError
from hlmem.domain.events import Cardinality, OriginClass, Scope, SessionKind
from hlmem.domain.evidence import EVIDENCE_FORGOTTEN, EvidenceProblem, describe, evidence_problems
from hlmem.domain.time import parse_timestamp, require_aware

if TYPE_CHECKING:
    from hlmem.application.ports import ClaimReader, ScratchMap

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


def parse_record(record: Any, new_event_id: Callable[[str], str], local_ids: MutableMapping[str, str]) -> tuple:
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


class Screening:
    """What a claim line's evidence may cite, learnt line by line in file order, so a file is
    screened in batches with only this kept between them (in ``ScratchMap``s: bounded memory).

    An id is usable when an observation line before the claim records it (and was not blocked)
    or the store holds it, not forgotten. A line blocked by re-ingest blocking (its content was
    forgotten) records nothing; citing it is :data:`~hlmem.domain.evidence.EVIDENCE_FORGOTTEN`,
    and a claim whose every unusable piece of evidence is such a line is blocked, not bad.

    :param recorded: event ids of the kept observation lines so far (as keys).
    :param dropped: event ids of the blocked observation lines so far (as keys).
    """

    def __init__(self, reader: ClaimReader, recorded: ScratchMap, dropped: ScratchMap) -> None:
        self._reader = reader
        self._recorded = recorded
        self._dropped = dropped

    def screen(self, lines: Sequence[ImportLine],
               blocked: Sequence[bool]) -> tuple[list[ImportLine], list[str], list[tuple[int, str]]]:
        """Split one batch of valid lines (in file order, after every earlier batch) into those to
        write, refusals (``"line N: …"``: a claim citing a forgotten or unknown event of the store)
        and blocked lines ``(N, why)``; nothing is written.

        :param blocked: per line, whether its content was forgotten (re-ingest blocking).
        """
        cited_ids = sorted({e for i, b in zip(lines, blocked) if not b and isinstance(i.command, AssertClaim)
                            for e in i.command.evidence if e not in self._recorded and e not in self._dropped})
        cited = self._reader.get_observations(cited_ids) if cited_ids else {}
        keep: list[ImportLine] = []
        errors: list[str] = []
        held: list[tuple[int, str]] = []
        for item, is_blocked in zip(lines, blocked):
            cmd = item.command
            if isinstance(cmd, RecordObservation):
                if cmd.event_id:
                    (self._dropped if is_blocked else self._recorded)[cmd.event_id] = ""
                if is_blocked:
                    held.append((item.line, "forgotten content"))
                else:
                    keep.append(item)
                continue
            if is_blocked:
                held.append((item.line, "forgotten content"))
                continue
            problems = tuple(EvidenceProblem(p.event_id, EVIDENCE_FORGOTTEN) if p.event_id in self._dropped else p
                             for p in evidence_problems(cmd.evidence, cited, _Keys(self._recorded)))
            if not problems:
                keep.append(item)
            elif all(p.event_id in self._dropped for p in problems):
                held.append((item.line, describe(problems)))
            else:
                errors.append(f"line {item.line}: {describe(problems)}")
        return keep, errors, held


class _Keys:
    """``in`` over a scratch map's keys (what :func:`evidence_problems` asks of ``recorded``)."""

    def __init__(self, mapping: ScratchMap) -> None:
        self._mapping = mapping

    def __contains__(self, key: object) -> bool:
        return key in self._mapping

    def __iter__(self) -> Iterator[str]:
        return iter(self._mapping)

    def __len__(self) -> int:
        return len(self._mapping)
