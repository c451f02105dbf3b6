"""What forgetting erases from the log, and the salted fingerprints that keep it from coming back.

Forgetting never deletes an event: it replaces the payload of every event of a forgotten stream
with :func:`redact` of it (structure kept, content blank) through the storage's one audited
erasure path, and appends an :class:`~hlmem.domain.events.ItemForgotten` tombstone. The reducers
blank the same fields on the tombstone, so replaying the redacted log reproduces the post-forget
state exactly (the property the state machine audits).

A :func:`fingerprint` is a keyed hash of normalised content: equal content gives equal
fingerprints within one store (one salt), so re-ingest, restore and replay can recognise a
forgotten item without keeping its text. The salt is per store and never leaves it.
"""

from __future__ import annotations

import hashlib
import hmac
import unicodedata
from datetime import datetime

from attrs import evolve, frozen

from hlmem.domain.errors import ValidationError
from hlmem.domain.events import (
    ClaimAsserted,
    ClaimRetracted,
    ConflictOpened,
    DerivedBecameStale,
    DerivedBuilt,
    DomainEvent,
    ExtractionRecorded,
    FeedbackRecorded,
    ObservationRecorded,
)
from hlmem.domain.experience_events import EXPERIENCE_EVENT_TYPES, redact_experience
from hlmem.domain.relation_events import RELATION_EVENT_TYPES, redact_relation

#: Kinds of fingerprinted content (a prefix of the hashed message, so kinds never collide).
OBSERVATION = "observation"
CLAIM = "claim"
SUBJECT = "subject"


def redact(event: DomainEvent) -> DomainEvent:
    """The event with every content field blank: what an erased payload keeps.

    Ids, times, versions, supersede links, roles and sessions stay (structure that other
    streams' history and a replay need); text a person wrote or said goes.
    """
    if isinstance(event, ObservationRecorded):
        return evolve(event, text="")
    if isinstance(event, ClaimAsserted):
        return evolve(event, subject="", predicate="", value="", qualifiers=(), coordinates=(), evidence=())
    if isinstance(event, ConflictOpened):
        return evolve(event, slot_key="", subject="", predicate="", value="", qualifiers=(), coordinates=(),
                      evidence=())
    if isinstance(event, ExtractionRecorded):
        return evolve(event, rejected=tuple(("", reasons) for _label, reasons in event.rejected))
    if isinstance(event, DerivedBuilt):  # and DerivedRebuilt: the text is made of claims' values
        return evolve(event, subject="", family="", label="", text="")
    if isinstance(event, DerivedBecameStale):
        return evolve(event, subject="", family="", label="")
    if isinstance(event, (ClaimRetracted, FeedbackRecorded)):
        return evolve(event, reason="")
    if isinstance(event, EXPERIENCE_EVENT_TYPES):
        return redact_experience(event)
    if isinstance(event, RELATION_EVENT_TYPES):
        return redact_relation(event)
    return event


def is_redacted(event: DomainEvent) -> bool:
    """Whether redacting ``event`` changes nothing (it holds no content, or it was erased)."""
    return redact(event) == event


def normalize_content(text: str) -> str:
    """NFKC, case-folded, whitespace collapsed: the form fingerprints are taken of."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


#: Bytes in a store's salt.
SALT_BYTES = 32

#: Why a store with tombstones of its own cannot take another store's salt (``adopt_salt``).
REFUSED_SALT = ("this store already has tombstones made with its own salt, so it cannot take another "
                "store's; replay into a fresh store")


def check_salt(salt: bytes) -> None:
    """Refuse anything but :data:`SALT_BYTES` bytes as a salt (what every store makes)."""
    if not isinstance(salt, bytes) or len(salt) != SALT_BYTES:
        raise ValidationError(f"a tombstone salt is {SALT_BYTES} bytes", field="salt")


def fingerprint(kind: str, content: str, salt: bytes) -> str:
    """Keyed hash (HMAC-SHA256) of normalised ``content`` of one ``kind``; hex, 32 chars."""
    if not salt:
        raise ValueError("a fingerprint needs the store's salt")
    message = f"{kind}\x1f{normalize_content(content)}".encode()
    return hmac.new(salt, message, hashlib.sha256).hexdigest()[:32]


def claim_content(subject: str, predicate: str, value: str) -> str:
    """The content of a claim that a fingerprint covers (subject, predicate, value)."""
    return "\x1e".join((subject, predicate, value))


@frozen
class Tombstone:
    """One row of a store's tombstone ledger: what was forgotten, by fingerprint, never by text.

    ``fingerprint`` is :func:`fingerprint` of the content with the store's salt ("" when the
    content was already erased and only the id is known); ``kind`` is the fingerprinted kind
    (:data:`OBSERVATION`, :data:`CLAIM`, :data:`SUBJECT`); ``stream_id`` the forgotten stream
    (for a subject, the ``fg_…`` stream of the forget itself); ``forget_id`` the ``fg_…`` stream
    of the :class:`~hlmem.domain.events.ForgetRequested` that wrote it.
    """

    fingerprint: str
    kind: str
    stream_id: str
    forgotten_at: datetime
    forget_id: str
