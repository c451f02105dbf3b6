"""Commands: validated, frozen requests to change memory (imperative names), and their limits."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from datetime import datetime

from attrs import frozen

from hlmem.domain.errors import ValidationError
from hlmem.domain.events import Cardinality, OriginClass, Scope, SessionKind
from hlmem.domain.slots import SlotRegistry
from hlmem.domain.time import require_aware

#: Longest raw observation text, in characters (a long document belongs in chunks).
MAX_TEXT_CHARS = 32_000
#: Longest subject or predicate, in characters.
MAX_NAME_CHARS = 256
#: Longest claim value, in characters.
MAX_VALUE_CHARS = 4_000
#: Most qualifiers on one claim.
MAX_QUALIFIERS = 16

NAMESPACE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:\-]{0,63}$")
QUALIFIER_KEY_RE = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
EVENT_ID_RE = re.compile(r"^ev_[0-9A-Za-z]{1,64}$")


@frozen(kw_only=True)
class RecordObservation:
    """Record a raw event verbatim."""

    text: str
    namespace: str = "default"
    role: str = "user"
    session_id: str = "default"
    origin_class: OriginClass = OriginClass.DIRECT_USER
    session_kind: SessionKind = SessionKind.INTERACTIVE
    occurred_at: datetime | None = None
    event_id: str | None = None


@frozen(kw_only=True)
class AssertClaim:
    """Assert a structured claim (the explicit write path: no LLM)."""

    subject: str
    predicate: str
    value: str
    namespace: str = "default"
    qualifiers: tuple[tuple[str, str], ...] = ()
    coordinates: tuple[tuple[str, str], ...] = ()
    polarity: bool = True
    importance: float = 0.5
    scope: Scope = Scope.PERMANENT
    cardinality: Cardinality | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    evidence: tuple[str, ...] = ()
    source: str = "explicit"
    #: The statement reports a change that holds when said ("moved to Seattle in May", "bought a
    #: Pixel"): it also retires what its slot learned between its start and now, and values of the
    #: same kind in a multi-valued slot (ADR 0059). Decided once, recorded as supersede events.
    change: bool = False


def _raise_all(problems: list[ValidationError], what: str) -> None:
    if len(problems) == 1:
        raise problems[0]
    if problems:
        raise ExceptionGroup(f"invalid {what}: {len(problems)} problems", problems)


def _text_problems(value: object, field: str, limit: int) -> list[ValidationError]:
    if not isinstance(value, str) or not value.strip():
        return [ValidationError(f"{field} is empty", field=field)]
    if len(value) > limit:
        return [ValidationError(f"{field} is {len(value)} characters; the limit is {limit}", field=field)]
    if "\x00" in value:
        return [ValidationError(f"{field} contains a NUL character", field=field)]
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return [ValidationError(f"{field} is not valid Unicode text (it contains a lone surrogate)", field=field)]
    return []


def check_namespace(namespace: str) -> list[ValidationError]:
    """Problems with a namespace name (letters, digits, ``_.:-``; 1–64 characters)."""
    if not isinstance(namespace, str) or not NAMESPACE_RE.match(namespace):
        return [ValidationError(f"namespace {namespace!r} must match {NAMESPACE_RE.pattern}", field="namespace")]
    return []


def validate_observation(cmd: RecordObservation) -> RecordObservation:
    """Return the command with normalised times, or raise every problem at once."""
    problems = _text_problems(cmd.text, "text", MAX_TEXT_CHARS) + check_namespace(cmd.namespace)
    problems += _text_problems(cmd.session_id, "session", MAX_NAME_CHARS)
    problems += _text_problems(cmd.role, "role", 64)
    occurred = cmd.occurred_at
    if occurred is not None:
        try:
            occurred = require_aware(occurred, field="occurred_at")
        except ValidationError as exc:
            problems.append(exc)
    if cmd.event_id is not None and not EVENT_ID_RE.match(str(cmd.event_id)):
        problems.append(ValidationError(f"event id {cmd.event_id!r} is not of the form ev_…", field="event_id"))
    _raise_all(problems, "observation")
    return RecordObservation(event_id=cmd.event_id,
        text=cmd.text, namespace=cmd.namespace, role=cmd.role.strip(), session_id=cmd.session_id.strip(),
        origin_class=OriginClass(cmd.origin_class), session_kind=SessionKind(cmd.session_kind),
        occurred_at=occurred,
    )


def _qualifier_problems(
    pairs: Iterable[tuple[str, str]], field: str, registry: SlotRegistry, predicate: str, coordinate: bool
) -> list[ValidationError]:
    problems: list[ValidationError] = []
    seen: set[str] = set()
    for key, value in pairs:
        if not isinstance(key, str) or not QUALIFIER_KEY_RE.match(key):
            problems.append(ValidationError(f"{field} key {key!r} must match {QUALIFIER_KEY_RE.pattern}", field=field))
            continue
        if key in seen:
            problems.append(ValidationError(f"{field} {key!r} is given twice", field=field))
        seen.add(key)
        problems += _text_problems(value, f"{field} {key}", MAX_NAME_CHARS)
        if not coordinate and not registry.is_known_qualifier(predicate, key):
            problems.append(ValidationError(
                f"unknown qualifier {key!r}; known descriptive qualifiers and coordinates are listed in "
                "docs/slots.md, or declare it as a slot coordinate", field=field))
    return problems


def validate_claim(cmd: AssertClaim, registry: SlotRegistry) -> AssertClaim:
    """Return the command with canonical predicate, sorted qualifiers and UTC times, or raise.

    Qualifier keys that the registry knows as coordinates move to ``coordinates``.

    :raises ValidationError: or an ``ExceptionGroup`` of them when several fields are wrong.
    """
    problems = _text_problems(cmd.subject, "subject", MAX_NAME_CHARS)
    problems += _text_problems(cmd.predicate, "predicate", MAX_NAME_CHARS)
    problems += _text_problems(cmd.value, "value", MAX_VALUE_CHARS)
    problems += check_namespace(cmd.namespace)
    predicate = registry.canonical(cmd.predicate) if not problems else cmd.predicate
    problems += _qualifier_problems(cmd.qualifiers, "qualifier", registry, predicate, coordinate=False)
    problems += _qualifier_problems(cmd.coordinates, "coordinate", registry, predicate, coordinate=True)
    if len(cmd.qualifiers) + len(cmd.coordinates) > MAX_QUALIFIERS:
        problems.append(ValidationError(f"more than {MAX_QUALIFIERS} qualifiers", field="qualifier"))
    if not isinstance(cmd.importance, (int, float)) or not math.isfinite(cmd.importance) or not 0 <= cmd.importance <= 1:
        problems.append(ValidationError(f"importance {cmd.importance!r} must be between 0 and 1", field="importance"))
    for ev in cmd.evidence:
        if not isinstance(ev, str) or not EVENT_ID_RE.match(ev):
            problems.append(ValidationError(f"evidence id {ev!r} is not an event id (ev_…)", field="evidence"))
    times: dict[str, datetime | None] = {"valid_from": cmd.valid_from, "valid_to": cmd.valid_to}
    for name, value in list(times.items()):
        if value is not None:
            try:
                times[name] = require_aware(value, field=name)
            except ValidationError as exc:
                problems.append(exc)
                times[name] = None
    vf, vt = times["valid_from"], times["valid_to"]
    if vf is not None and vt is not None and vt <= vf:
        problems.append(ValidationError(
            f"valid_to {vt.isoformat()} is not after valid_from {vf.isoformat()}", field="valid_to"))
    try:
        scope = Scope(cmd.scope)
    except ValueError:
        problems.append(ValidationError(f"scope {cmd.scope!r} must be temporal or permanent", field="scope"))
        scope = Scope.PERMANENT
    _raise_all(problems, "claim")
    descriptive = tuple(sorted((k, v.strip()) for k, v in cmd.qualifiers if not registry.is_coordinate(predicate, k)))
    coords = tuple(sorted(
        [(k, v.strip()) for k, v in cmd.qualifiers if registry.is_coordinate(predicate, k)]
        + [(k, v.strip()) for k, v in cmd.coordinates]
    ))
    return AssertClaim(
        subject=" ".join(cmd.subject.split()), predicate=predicate, value=cmd.value.strip(),
        namespace=cmd.namespace, qualifiers=descriptive, coordinates=coords, polarity=bool(cmd.polarity),
        importance=float(cmd.importance), scope=scope, cardinality=cmd.cardinality,
        valid_from=vf, valid_to=vt, evidence=tuple(dict.fromkeys(cmd.evidence)), source=cmd.source,
        change=bool(cmd.change),
    )
