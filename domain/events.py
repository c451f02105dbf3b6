"""Domain events: frozen, past-tense facts that make up the immutable log.

Every event carries the envelope: ``event_id``, ``stream_id`` (the claim or observation it is
about), ``version`` (per stream, gapless from 1), ``recorded_at`` (transaction time: when hlmem
learnt it), ``namespace`` and ``schema_version``. The payload is the rest. Adapters persist the
envelope and the payload apart, so that forgetting can erase a payload and keep the log's order.
"""

from __future__ import annotations

import enum
from datetime import datetime

from attrs import field, frozen

#: Names of the envelope fields, in order; everything else on an event is payload.
ENVELOPE_FIELDS = ("event_id", "stream_id", "version", "recorded_at", "namespace", "schema_version")


class OriginClass(str, enum.Enum):
    """Who produced the text of an observation (drives provenance admission)."""

    DIRECT_USER = "direct_user"
    AGENT = "agent"
    EXTERNAL = "external"
    EXTERNAL_DERIVED = "external_derived"
    SYSTEM = "system"
    UNKNOWN = "unknown"


class SessionKind(str, enum.Enum):
    """What kind of session an observation came from."""

    INTERACTIVE = "interactive"
    CRON = "cron"
    HEARTBEAT = "heartbeat"
    SUBAGENT = "subagent"
    UNKNOWN = "unknown"


class Scope(str, enum.Enum):
    """Whether a claim is about a passing state (temporal) or a lasting one (permanent)."""

    TEMPORAL = "temporal"
    PERMANENT = "permanent"


class Cardinality(str, enum.Enum):
    """Whether a slot holds one value at a time (single) or many that coexist (multi)."""

    SINGLE = "single"
    MULTI = "multi"


@frozen(kw_only=True)
class DomainEvent:
    """Base of every event: the envelope."""

    event_id: str
    stream_id: str
    version: int
    recorded_at: datetime
    namespace: str
    schema_version: int = 1


@frozen(kw_only=True)
class ObservationRecorded(DomainEvent):
    """A raw event entered memory verbatim: a chat turn, a tool result, a note."""

    text: str
    role: str
    session_id: str
    origin_class: OriginClass
    session_kind: SessionKind
    occurred_at: datetime


@frozen(kw_only=True)
class ClaimAsserted(DomainEvent):
    """A new claim about a slot, with its valid interval as decided at assertion time.

    ``valid_to`` and ``superseded_by`` are already set when a late-arriving fact lands before a
    claim we knew: the decision closed it at the later claim's start.
    """

    subject: str
    predicate: str
    value: str
    qualifiers: tuple[tuple[str, str], ...] = ()
    coordinates: tuple[tuple[str, str], ...] = ()
    polarity: bool = True
    importance: float = 0.5
    scope: Scope = Scope.PERMANENT
    cardinality: Cardinality = Cardinality.SINGLE
    valid_from: datetime
    valid_to: datetime | None = None
    evidence: tuple[str, ...] = ()
    source: str = "explicit"
    superseded_by: str | None = None


@frozen(kw_only=True)
class ClaimCorroborated(DomainEvent):
    """An identical assertion arrived again: its evidence joins the existing claim."""

    evidence: tuple[str, ...] = ()


@frozen(kw_only=True)
class ClaimSuperseded(DomainEvent):
    """A newer claim of the same slot took over from ``valid_to`` on (the old stays in history)."""

    superseded_by: str
    valid_to: datetime


@frozen(kw_only=True)
class ClaimRetracted(DomainEvent):
    """The claim is no longer believed at all (it was wrong), from ``recorded_at`` on."""

    reason: str = ""
    actor: str = "user"


@frozen(kw_only=True)
class ItemForgotten(DomainEvent):
    """Tombstone: the stream's content was erased on purpose (see :mod:`hlmem.domain.forgetting`).

    The stream's earlier events keep their envelopes and a redacted payload (structure without
    content, :func:`hlmem.domain.redaction.redact`); this event turns the projected state into
    a tombstone whatever that state held. ``fingerprint`` is a salted content hash that stops the
    item from coming back through replay, restore or re-import; it never holds the text.
    ``cascade_of`` is the :class:`ForgetRequested` stream that caused it.
    """

    reason: str = ""
    actor: str = "user"
    fingerprint: str = ""
    cascade_of: str | None = field(default=None)


@frozen(kw_only=True)
class EvidenceForgotten(DomainEvent):
    """Some of a claim's evidence events were forgotten; the claim survives on the rest."""

    evidence: tuple[str, ...] = ()
    cascade_of: str | None = None


@frozen(kw_only=True)
class ForgetRequested(DomainEvent):
    """Audit record of one forget: who asked, what kind of target, and what it removed.

    ``target`` is an id for claim, event and session targets; for a subject it is the salted
    fingerprint of the name (the name itself is what was forgotten). ``counts`` holds
    ``(kind, n)`` pairs; ``items`` the ids of every stream turned into a tombstone.
    """

    target_kind: str
    target: str
    actor: str = "user"
    reason: str = ""
    counts: tuple[tuple[str, int], ...] = ()
    items: tuple[str, ...] = ()


@frozen(kw_only=True)
class ClaimExpired(DomainEvent):
    """The claim's time passed or its TTL ended: it stops being valid at ``valid_to``.

    It leaves current recall and stays in history ("what was true then" still finds it).
    """

    valid_to: datetime
    reason: str = ""
    actor: str = "system"


@frozen(kw_only=True)
class ClaimArchived(DomainEvent):
    """The claim's activation stayed below the floor for the grace period: it leaves normal
    recall and the search index; its facts and evidence remain for history and explain."""

    activation: float = 0.0
    reason: str = ""
    actor: str = "system"


@frozen(kw_only=True)
class ClaimRevived(DomainEvent):
    """An archived claim came back into normal recall (a strong match or an explicit lookup)."""

    reason: str = ""
    actor: str = "system"


@frozen(kw_only=True)
class StoreRestored(DomainEvent):
    """The store was restored from a backup; ``reapplied`` tombstones were enforced before it
    went live. ``backup_id`` is the backup's own identifier (never a path)."""

    backup_id: str
    backup_position: int = 0
    reapplied: int = 0
    actor: str = "user"
    reason: str = ""


@frozen(kw_only=True)
class ExtractionRecorded(DomainEvent):
    """The write pipeline processed a window of observations; what every gate decided.

    ``provenance`` holds ``(event_id, verdict, reasons)`` per source event; ``rejected`` holds
    ``(subject · predicate, reasons)`` per refused candidate — never its value, which may be a
    secret. ``claims`` are the claims the window created or corroborated.
    """

    source_events: tuple[str, ...]
    extractor: str
    provenance: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    rejected: tuple[tuple[str, tuple[str, ...]], ...] = ()
    claims: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = ()


@frozen(kw_only=True)
class ConflictOpened(DomainEvent):
    """A candidate the rules cannot settle against the slot's current claims waits for review."""

    slot_key: str
    existing: tuple[str, ...]
    subject: str
    predicate: str
    value: str
    qualifiers: tuple[tuple[str, str], ...] = ()
    coordinates: tuple[tuple[str, str], ...] = ()
    polarity: bool = True
    importance: float = 0.5
    scope: Scope = Scope.PERMANENT
    valid_from: datetime
    valid_to: datetime | None = None
    evidence: tuple[str, ...] = ()
    source: str = "extracted"
    reason: str = ""


@frozen(kw_only=True)
class ConflictResolved(DomainEvent):
    """A person (or policy) decided a conflict: ``keep-new``, ``keep-old`` or ``coexist``."""

    decision: str
    actor: str = "user"
    claim_id: str | None = None


@frozen(kw_only=True)
class FeedbackRecorded(DomainEvent):
    """Someone said whether a recalled claim or event helped (``helpful`` or ``unhelpful``).

    It feeds usefulness, which ranking and lifecycle read; it never changes truth or confidence.
    """

    verdict: str
    actor: str = "user"
    reason: str = ""


@frozen(kw_only=True)
class DerivedBuilt(DomainEvent):
    """The offline (or LLM) builder summarised current claims into a derived item (docs/derived.md).

    ``kind`` is ``observation_summary`` (several claims of one subject and slot family) or
    ``mental_model`` (a subject's profile). ``sources`` are ``(claim_id, claim stream version)``
    pairs as read; ``watermark`` the log position the builder read at. Not an
    :class:`ObservationRecorded`: nothing here was said, it is derived (ADR 0046).
    """

    kind: str
    subject: str
    family: str = ""
    label: str = ""
    text: str
    language: str = "en"
    sources: tuple[tuple[str, int], ...] = ()
    watermark: int = 0
    builder: str = "rules"


@frozen(kw_only=True)
class DerivedRebuilt(DerivedBuilt):
    """A stale (or outdated) derived item was built again from its group's current claims."""


@frozen(kw_only=True)
class DerivedBecameStale(DomainEvent):
    """A source claim of the derived item was superseded, retracted, expired or forgotten; appended
    in the same transaction as that change. ``scrubbed``: a forgotten source's content left the
    item's text (its earlier payloads were erased), the key fields are restated and ``dropped``
    source ids leave its sources."""

    reason: str
    triggers: tuple[str, ...] = ()
    scrubbed: bool = False
    dropped: tuple[str, ...] = ()
    subject: str = ""
    family: str = ""
    label: str = ""


@frozen(kw_only=True)
class DerivedRemoved(DomainEvent):
    """A rebuild found too few current claims for the item's group: it leaves the derived layer
    (its history stays; a forgotten sole source removes it with ``ItemForgotten`` instead)."""

    reason: str = ""


EVENT_TYPES: tuple[type[DomainEvent], ...] = (
    ObservationRecorded,
    ClaimAsserted,
    ClaimCorroborated,
    ClaimSuperseded,
    ClaimRetracted,
    ItemForgotten,
    ExtractionRecorded,
    ConflictOpened,
    ConflictResolved,
    EvidenceForgotten,
    ForgetRequested,
    ClaimExpired,
    ClaimArchived,
    ClaimRevived,
    StoreRestored,
    FeedbackRecorded,
    DerivedBuilt,
    DerivedRebuilt,
    DerivedBecameStale,
    DerivedRemoved,
)

#: Governance actions ``hlmem audit`` lists (each carries an actor and a reason or decision).
AUDIT_EVENT_TYPES: tuple[type[DomainEvent], ...] = (
    ForgetRequested, ClaimExpired, ClaimArchived, ClaimRevived, StoreRestored, ConflictResolved, ClaimRetracted,
)
