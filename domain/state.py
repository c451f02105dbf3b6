"""Projected state: frozen claim and observation states and the whole-memory view."""

from __future__ import annotations

import enum
import functools
from collections.abc import Mapping
from datetime import datetime
from types import MappingProxyType

from attrs import field, frozen

from hlmem.domain.events import Cardinality, OriginClass, Scope, SessionKind
from hlmem.domain.slots import normalize_key, normalize_predicate


class ClaimStatus(str, enum.Enum):
    """Lifecycle status of a claim as known now."""

    ACTIVE = "active"
    SUPERSEDED = "superseded"
    RETRACTED = "retracted"
    EXPIRED = "expired"
    FORGOTTEN = "forgotten"


@frozen
class ClaimVersion:
    """One bitemporal row: valid ``[valid_from, valid_to)`` as recorded ``[recorded_from, recorded_to)``."""

    valid_from: datetime
    valid_to: datetime | None
    recorded_from: datetime
    recorded_to: datetime | None = None

    @property
    def is_current_knowledge(self) -> bool:
        """Whether this row is still believed (its recorded interval is open)."""
        return self.recorded_to is None


#: Names of the memory's own user: a first-person statement in any language fills the same slots.
SELF_SUBJECTS = frozenset({"user", "the user", "me", "myself", "i", "用户", "我", "本人", "自己"})
SELF_KEY = "@user"


def subject_key(subject: str) -> str:
    """Normalised subject; every name of the user (``用户``, ``user``, ``我``…) is one key."""
    key = normalize_key(subject)
    return SELF_KEY if key in SELF_SUBJECTS else key


@functools.lru_cache(maxsize=65_536)
def slot_key(namespace: str, subject: str, predicate: str, coordinates: tuple[tuple[str, str], ...]) -> str:
    """The stable key of a slot: namespace, normalised subject and predicate, sorted coordinates."""
    coords = "\x1e".join(f"{k}={normalize_key(v)}" for k, v in sorted(coordinates))
    return "\x1f".join((namespace, subject_key(subject), normalize_predicate(predicate), coords))


@frozen
class ClaimState:
    """Everything known about one claim stream."""

    claim_id: str
    namespace: str
    subject: str
    predicate: str
    value: str
    qualifiers: tuple[tuple[str, str], ...]
    coordinates: tuple[tuple[str, str], ...]
    polarity: bool
    importance: float
    scope: Scope
    cardinality: Cardinality
    source: str
    recorded_at: datetime
    version: int
    evidence: tuple[str, ...] = ()
    versions: tuple[ClaimVersion, ...] = ()
    status: ClaimStatus = ClaimStatus.ACTIVE
    superseded_by: str | None = None
    supersedes: tuple[str, ...] = ()
    #: Out of normal recall and the search index (lifecycle), still in history and explain.
    archived: bool = False
    #: Feedback counts (FeedbackRecorded): usefulness for ranking and lifecycle.
    helpful: int = 0
    unhelpful: int = 0

    @property
    def slot_key(self) -> str:
        """Key of the slot this claim fills."""
        return slot_key(self.namespace, self.subject, self.predicate, self.coordinates)

    @property
    def current_version(self) -> ClaimVersion | None:
        """The row believed now, or None when the claim was retracted or forgotten."""
        if self.versions and self.versions[-1].recorded_to is None:
            return self.versions[-1]
        return None

    @property
    def valid_from(self) -> datetime:
        """Start of validity as known now (or as last known)."""
        return self.versions[-1].valid_from

    @property
    def valid_to(self) -> datetime | None:
        """End of validity as known now (or as last known)."""
        return self.versions[-1].valid_to


@frozen
class ObservationState:
    """A raw event as stored (its text is erased when it is forgotten)."""

    event_id: str
    namespace: str
    text: str
    role: str
    session_id: str
    origin_class: OriginClass
    session_kind: SessionKind
    occurred_at: datetime
    recorded_at: datetime
    version: int = 1
    forgotten: bool = False
    helpful: int = 0
    unhelpful: int = 0


@frozen
class SupersedeEdge:
    """``old`` was superseded by ``new``, as recorded at ``recorded_at``."""

    old: str
    new: str
    recorded_at: datetime


@frozen
class ConflictState:
    """A candidate waiting for (or past) review against a slot's current claims."""

    conflict_id: str
    namespace: str
    slot_key: str
    existing: tuple[str, ...]
    candidate: Mapping[str, object]
    reason: str
    opened_at: datetime
    version: int = 1
    status: str = "open"  # open | resolved | forgotten
    decision: str | None = None
    actor: str | None = None
    claim_id: str | None = None
    resolved_at: datetime | None = None


@frozen
class MemoryView:
    """The whole projection: claims, observations, conflicts, supersede edges, stream versions."""

    claims: Mapping[str, ClaimState] = field(factory=lambda: MappingProxyType({}))
    observations: Mapping[str, ObservationState] = field(factory=lambda: MappingProxyType({}))
    edges: tuple[SupersedeEdge, ...] = ()
    stream_versions: Mapping[str, int] = field(factory=lambda: MappingProxyType({}))
    conflicts: Mapping[str, ConflictState] = field(factory=lambda: MappingProxyType({}))
