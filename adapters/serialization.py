"""The one cattrs converter for persisted events, with an explicit, append-only tag registry.

Tags name event types on disk; they are never class names, so renaming a class cannot orphan
stored events. A tag, once written, is never reused or removed: add ``….v2`` and an upcaster.
"""

from __future__ import annotations

import enum
import functools
import json
import re
from collections.abc import Callable, Collection, Mapping
from datetime import datetime
from typing import Any

import cattrs

from hlmem.domain.errors import SchemaError, StorageCorrupt
from hlmem.domain.events import (
    ENVELOPE_FIELDS,
    ClaimArchived,
    ClaimAsserted,
    ClaimCorroborated,
    ClaimExpired,
    ClaimRetracted,
    ClaimRevived,
    ClaimSuperseded,
    ConflictOpened,
    ConflictResolved,
    DerivedBecameStale,
    DerivedBuilt,
    DerivedRebuilt,
    DerivedRemoved,
    DomainEvent,
    EvidenceForgotten,
    ExtractionRecorded,
    FeedbackRecorded,
    ForgetRequested,
    ItemForgotten,
    ObservationRecorded,
    StoreRestored,
)
from hlmem.domain.experience_events import (
    EpisodeEnded,
    EpisodeStarted,
    PolicyActivated,
    PolicyOutcomeRecorded,
    PolicyProposed,
    PolicyRetired,
    PolicySupportForgotten,
    ProcedureDemoted,
    ProcedurePromoted,
    StepRecorded,
)
from hlmem.domain.relation_events import (
    RelationAccepted,
    RelationCorroborated,
    RelationProposed,
    RelationRejected,
    RelationRetired,
)
from hlmem.domain.time import format_timestamp, parse_timestamp

#: Append-only: tag -> event class. Never edit or remove a line; add new tags at the end.
#: The shape of every tag hlmem has ever written (``kind.verb.vN``, lowercase): a stored tag of
#: another shape is damage, not a newer version.
TAG_SHAPE = re.compile(r"[a-z][a-z_]*(?:\.[a-z_]+)+\.v[0-9]+")

TAGS: Mapping[str, type[DomainEvent]] = {
    "observation.recorded.v1": ObservationRecorded,
    "claim.asserted.v1": ClaimAsserted,
    "claim.corroborated.v1": ClaimCorroborated,
    "claim.superseded.v1": ClaimSuperseded,
    "claim.retracted.v1": ClaimRetracted,
    "item.forgotten.v1": ItemForgotten,
    "extraction.recorded.v1": ExtractionRecorded,
    "conflict.opened.v1": ConflictOpened,
    "conflict.resolved.v1": ConflictResolved,
    "evidence.forgotten.v1": EvidenceForgotten,
    "forget.requested.v1": ForgetRequested,
    "claim.expired.v1": ClaimExpired,
    "claim.archived.v1": ClaimArchived,
    "claim.revived.v1": ClaimRevived,
    "store.restored.v1": StoreRestored,
    "feedback.recorded.v1": FeedbackRecorded,
    # The experience channel (docs/experience.md, ADR 0045).
    "episode.started.v1": EpisodeStarted,
    "episode.step_recorded.v1": StepRecorded,
    "episode.ended.v1": EpisodeEnded,
    "policy.proposed.v1": PolicyProposed,
    "policy.outcome_recorded.v1": PolicyOutcomeRecorded,
    "policy.activated.v1": PolicyActivated,
    "policy.retired.v1": PolicyRetired,
    "policy.support_forgotten.v1": PolicySupportForgotten,
    "procedure.promoted.v1": ProcedurePromoted,
    "procedure.demoted.v1": ProcedureDemoted,
    "derived.built.v1": DerivedBuilt,
    "derived.rebuilt.v1": DerivedRebuilt,
    "derived.became_stale.v1": DerivedBecameStale,
    "derived.removed.v1": DerivedRemoved,
    # Relations between people and things (docs/relations.md, ADR 0081).
    "relation.proposed.v1": RelationProposed,
    "relation.corroborated.v1": RelationCorroborated,
    "relation.accepted.v1": RelationAccepted,
    "relation.rejected.v1": RelationRejected,
    "relation.retired.v1": RelationRetired,
}
TAG_OF: Mapping[type[DomainEvent], str] = {cls: tag for tag, cls in TAGS.items()}

#: Upcasters: old tag -> (new tag, function turning the old payload dict into the new one).
UPCASTERS: Mapping[str, tuple[str, Callable[[dict[str, Any]], dict[str, Any]]]] = {}


def _make_converter() -> cattrs.Converter:
    conv = cattrs.Converter()
    conv.register_unstructure_hook(datetime, format_timestamp)
    conv.register_unstructure_hook_func(
        lambda t: isinstance(t, type) and issubclass(t, enum.Enum), lambda v: v.value
    )
    conv.register_structure_hook(datetime, _stored_timestamp)
    return conv


def _stored_timestamp(value: Any, _type: object = None) -> datetime:
    """A stored timestamp: what :func:`format_timestamp` writes (``2026-03-01T09:30:00.000000Z``)
    is read by ``fromisoformat`` alone (a replay reads millions); anything else goes through
    :func:`parse_timestamp`'s checks."""
    if type(value) is str and len(value) == 27 and value[10] == "T" and value[26] == "Z" and value[19] == ".":
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            pass
    return parse_timestamp(value, field="stored timestamp")


converter = _make_converter()


@functools.cache
def prepare_encoders() -> None:
    """Build the converter's unstructure function of every event type now (once per process).

    cattrs builds one on an event type's first encoding, 1-5 ms each: a store calls this before a
    write transaction, so a new process does not build them while it holds the write lock (ADR 0064).
    Each is registered as the type's hook: cattrs empties its cache of built hooks whenever it
    registers one for a nested tuple type, so a built hook only stays built when registered.
    """
    for cls in TAGS.values():
        converter.register_unstructure_hook(cls, converter.get_unstructure_hook(cls))


def tag_of(event: DomainEvent) -> str:
    """The stored tag of an event's type."""
    try:
        return TAG_OF[type(event)]
    except KeyError:
        raise SchemaError(f"event type {type(event).__name__} has no registered tag") from None


def stored_tags(types: Collection[type[DomainEvent]]) -> list[str]:
    """Every stored tag that decodes to one of ``types`` (old tags through their upcasters too), sorted."""
    wanted = set(types)
    out = []
    for tag in (*TAGS, *UPCASTERS):
        final = tag
        while final in UPCASTERS:
            final = UPCASTERS[final][0]
        if TAGS.get(final) in wanted:
            out.append(tag)
    return sorted(set(out))


def split(event: DomainEvent) -> tuple[dict[str, Any], dict[str, Any]]:
    """Unstructure an event into (envelope, payload) dicts of JSON-safe values."""
    data = converter.unstructure(event)
    envelope = {k: data.pop(k) for k in ENVELOPE_FIELDS}
    return envelope, data


def encode_payload(event: DomainEvent) -> str:
    """The payload as compact JSON (UTF-8 kept as is, keys sorted for stable bytes)."""
    return json.dumps(split(event)[1], ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def decode(tag: str, envelope: Mapping[str, Any], payload: str | Mapping[str, Any] | None) -> DomainEvent:
    """Rebuild an event from its tag, envelope and payload (upcasting old tags).

    A ``None`` payload (erased by forget) is only valid for types whose payload fields all have
    defaults; otherwise :class:`SchemaError` is raised.
    """
    try:
        data = json.loads(payload) if isinstance(payload, str) else dict(payload or {})
    except ValueError as exc:  # hlmem writes only JSON objects: these bytes changed on disk
        raise StorageCorrupt(f"the log is corrupt: the payload of event {envelope.get('event_id')!r} is not JSON "
                             f"({exc})") from exc
    while tag in UPCASTERS:
        tag, upcast = UPCASTERS[tag]
        data = upcast(data)
    cls = TAGS.get(tag)
    if cls is None:
        if not isinstance(tag, str) or not TAG_SHAPE.fullmatch(tag):
            # No hlmem, newer or older, writes a tag of another shape: this is damage, not a version.
            raise StorageCorrupt(f"the log is corrupt: event {envelope.get('event_id')!r} has the tag {tag!r}, "
                                 "which no hlmem writes")
        raise SchemaError(f"unknown event tag {tag!r} (event {envelope.get('event_id')!r}): written by a newer "
                          "hlmem, or the log is damaged (hlmem replay --verify checks the file)")
    if not isinstance(data, dict):
        raise StorageCorrupt(f"the log is corrupt: the payload of event {envelope.get('event_id')!r} is not a "
                             "JSON object")
    data.update(envelope)
    try:
        return converter.structure(data, cls)
    except Exception as exc:  # cattrs raises ClassValidationError groups; one clear error is kinder
        raise SchemaError(f"cannot decode {tag} event {envelope.get('event_id')}: {exc}") from exc
