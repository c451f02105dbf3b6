"""The audit: every governance action (forget, expire, archive, revive, restore, conflict decision,
retract) as one line with its time, kind, actor, target and reason, newest first.

Governance actions are events (:data:`hlmem.domain.events.AUDIT_EVENT_TYPES`), so the audit is
a read of the log, never a table of its own: nothing a replay or a restore rebuilds can disagree
with it. The log is read through ``EventLog.read_types``, newest first, and stops at ``limit``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

from attrs import frozen

from hlmem.application.ports import EventLog
from hlmem.domain.errors import ValidationError
from hlmem.domain.events import (
    AUDIT_EVENT_TYPES,
    ClaimArchived,
    ClaimExpired,
    ClaimRetracted,
    ClaimRevived,
    ConflictResolved,
    DomainEvent,
    ForgetRequested,
    StoreRestored,
)
from hlmem.domain.time import format_timestamp

#: The audit's name for each governance event (``hlmem audit --kind``).
KINDS: Mapping[str, type[DomainEvent]] = {
    "forget": ForgetRequested,
    "expire": ClaimExpired,
    "archive": ClaimArchived,
    "revive": ClaimRevived,
    "restore": StoreRestored,
    "conflict": ConflictResolved,
    "retract": ClaimRetracted,
}
_KIND_OF = {cls: kind for kind, cls in KINDS.items()}
#: The most entries one call returns.
MAX_LIMIT = 10_000


@frozen
class AuditEntry:
    """One governance action.

    ``target`` is what the action was about (a claim or conflict id, the forget target — an id,
    or a subject's salted fingerprint — or the restored backup's id); ``stream_id`` the stream
    the event belongs to; ``detail`` the reason, or the decision of a conflict; ``extra`` holds
    kind-specific facts as text pairs (forget counts, expiry time, reapplied tombstones, …).
    """

    position: int
    event_id: str
    at: datetime
    kind: str
    actor: str
    target: str
    stream_id: str
    namespace: str
    detail: str
    extra: tuple[tuple[str, str], ...] = ()


class AuditService:
    """Lists governance events from the log.

    :param log: the store's log (any ``EventLog``).
    """

    def __init__(self, log: EventLog) -> None:
        self._log = log

    def list(self, *, since: datetime | None = None, kinds: Iterable[str] | None = None, limit: int = 50,
             namespace: str | None = None) -> list[AuditEntry]:
        """Governance actions recorded at or after ``since``, newest first (log order), at most
        ``limit``.

        :param kinds: names from :data:`KINDS` (default all).
        :param namespace: one namespace only (default: every namespace; a restore is store-wide).
        :raises ValidationError: an unknown kind or a limit outside 1..10,000.
        """
        types = _types(kinds)
        if not 1 <= limit <= MAX_LIMIT:
            raise ValidationError(f"limit must be between 1 and {MAX_LIMIT}, not {limit}", field="limit")
        out: list[AuditEntry] = []
        # Newest first by position; ``since`` filters on recorded time, which imports may set in
        # the past, so it cannot stop the scan early.
        for stored in self._log.read_types(types, newest_first=True):
            event = stored.event
            if since is not None and event.recorded_at < since:
                continue
            if namespace is not None and event.namespace != namespace:
                continue
            out.append(entry(stored.position, event))
            if len(out) >= limit:
                break
        return out


def _types(kinds: Iterable[str] | None) -> tuple[type[DomainEvent], ...]:
    if kinds is None:
        return AUDIT_EVENT_TYPES
    chosen = list(dict.fromkeys(kinds))
    unknown = [k for k in chosen if k not in KINDS]
    if unknown:
        raise ValidationError(f"unknown audit kind {', '.join(map(repr, unknown))}; one of {', '.join(KINDS)}",
                              field="kind")
    return tuple(KINDS[k] for k in chosen) or AUDIT_EVENT_TYPES


def entry(position: int, event: DomainEvent) -> AuditEntry:
    """The audit line of one governance event."""
    kind = _KIND_OF.get(type(event))
    if kind is None:
        raise ValidationError(f"{type(event).__name__} is not a governance event", field="event")
    target, detail, extra = event.stream_id, getattr(event, "reason", ""), ()
    if isinstance(event, ForgetRequested):
        target = event.target
        extra = (("target_kind", event.target_kind), *((f"removed_{k}", str(n)) for k, n in event.counts))
    elif isinstance(event, ClaimExpired):
        extra = (("valid_to", format_timestamp(event.valid_to) or ""),)
    elif isinstance(event, ClaimArchived):
        extra = (("activation", f"{event.activation:.4g}"),)
    elif isinstance(event, StoreRestored):
        target = event.backup_id
        extra = (("backup_position", str(event.backup_position)), ("reapplied", str(event.reapplied)))
    elif isinstance(event, ConflictResolved):
        detail = event.decision
        extra = (("claim_id", event.claim_id),) if event.claim_id else ()
    return AuditEntry(position=position, event_id=event.event_id, at=event.recorded_at, kind=kind,
                      actor=getattr(event, "actor", ""), target=target, stream_id=event.stream_id,
                      namespace=event.namespace, detail=detail, extra=extra)
