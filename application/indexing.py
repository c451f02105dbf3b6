"""What gets indexed for recall: the search text of claims and observations (pure functions)."""

from __future__ import annotations

import functools
import hashlib
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, TypeVar

from hlmem.domain.derived import CURRENT, DerivedState
from hlmem.domain.errors import HlmemError
from hlmem.domain.events import ClaimAsserted, DerivedBuilt, DomainEvent, ObservationRecorded
from hlmem.domain.slots import SlotRegistry
from hlmem.domain.state import ObservationState

if TYPE_CHECKING:
    from hlmem.application.ports import Embedder, SearchIndex

T = TypeVar("T")


@functools.lru_cache(maxsize=16_384)
def claim_text(subject: str, predicate: str, value: str, qualifiers: tuple[tuple[str, str], ...],
               coordinates: tuple[tuple[str, str], ...], polarity: bool, registry: SlotRegistry) -> str:
    """Search text of a claim: subject, predicate with its labels, value, qualifier values.

    Labels carry both languages, so a Chinese question finds an English-named slot and back.
    """
    labels = " ".join(registry.labels(predicate))
    words = [subject, predicate.replace("_", " "), labels, "不" if not polarity else "", value]
    words += [v for _, v in coordinates] + [v for _, v in qualifiers]
    return " ".join(w for w in words if w)


#: Words a derived item's search text carries by kind, in both languages (a profile question in
#: either language finds a model of the other; ADR 0084). SQLite migration 0023 holds a frozen copy.
DERIVED_KIND_WORDS = {"mental_model": "profile 画像 概况", "observation_summary": "summary 总结 概况"}


def derived_text(kind: str, subject: str, label: str, text: str) -> str:
    """Search text of a derived item: its subject, its group's label, its kind's words and its text
    (empty for a scrubbed or forgotten item: nothing to index)."""
    if not text.strip():
        return ""
    return " ".join(w for w in (subject, label, DERIVED_KIND_WORDS.get(kind, ""), text) if w)


def state_index_text(item: DerivedState) -> str:
    """Search text of a derived item as projected: its :func:`derived_text` while it is current,
    else empty (a stale, removed or forgotten item is out of the index)."""
    return derived_text(item.kind, item.subject, item.label, item.text) if item.status == CURRENT else ""


def event_index_text(event: DomainEvent, registry: SlotRegistry) -> str | None:
    """Search text for the item an event creates, or None when it creates none."""
    if isinstance(event, ObservationRecorded):
        return event.text
    if isinstance(event, ClaimAsserted):
        return claim_text(event.subject, event.predicate, event.value, event.qualifiers, event.coordinates,
                          event.polarity, registry)
    if isinstance(event, DerivedBuilt):
        return derived_text(event.kind, event.subject, event.label, event.text) or None
    return None


class NeedVectors(HlmemError):
    """Raised inside a write transaction that needs vectors nobody embedded before it (an archived
    claim a corroboration revives): the caller rolls the transaction back, embeds ``texts`` outside
    the lock and tries again (:func:`retrying_for_vectors`; ADR 0064). It never reaches a user."""

    def __init__(self, texts: Sequence[str]) -> None:
        super().__init__(f"{len(texts)} texts to embed before the write transaction")
        self.texts = tuple(texts)


#: Tries of a write whose transaction asks for more vectors; the last may embed under the lock.
VECTOR_ATTEMPTS = 3


def retrying_for_vectors(write: Callable[[dict[str, bytes], bool], T], vectors: dict[str, bytes],
                         embedder: Embedder | None, storage: SearchIndex) -> T:
    """Run ``write(vectors, last)`` — a function that opens one write transaction — again with the
    vectors of :class:`NeedVectors`' texts embedded (outside the lock) until it needs none.

    ``last`` is True on the final try: the transaction then embeds what it still lacks itself
    (only when another writer changed the same slots between every try).
    """
    for attempt in range(1, VECTOR_ATTEMPTS + 1):
        try:
            return write(vectors, attempt == VECTOR_ATTEMPTS)
        except NeedVectors as need:
            vectors.update(passage_vectors(embedder, storage, need.texts))
    raise AssertionError("unreachable: the last try embeds under the lock")


def content_hash(text: str) -> str:
    """Stable hash of normalised text (keys the embedding cache; never the text itself)."""
    return hashlib.sha256(unicodedata.normalize("NFC", text).encode("utf-8")).hexdigest()


def passage_vectors(embedder: Embedder | None, storage: SearchIndex, texts: Sequence[str]) -> dict[str, bytes]:
    """Vectors (float32 little-endian bytes) of distinct ``texts``, by text; empty without an embedder.

    Binds the store to the embedder's model first, so a store of another model refuses
    (:class:`ModelMismatch`) before anything is embedded or written. Call it *before* a write
    transaction: a model call must never hold the write lock, and neither must the search
    index's own preparation of these texts (``SearchIndex.prepare_index``), done here first.
    """
    distinct = list(dict.fromkeys(texts))
    storage.prepare_index(distinct)
    if embedder is None or not distinct:
        return {}
    storage.bind_vector_model(embedder.model_id, embedder.dim)
    matrix = embedder.embed_passages(distinct)
    return {text: row.astype("<f4").tobytes() for text, row in zip(distinct, matrix)}


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


@functools.lru_cache(maxsize=4_096)
def date_words(when: datetime) -> str:
    """The day an event happened, as a question may name it: ``8 May 2023 2023年5月8日`` (UTC day)."""
    day = when.astimezone(timezone.utc)
    return f"{day.day} {_MONTHS[day.month - 1]} {day.year} {day.year}年{day.month}月{day.day}日"


def context_text(*turns: ObservationState) -> str:
    """Search text of consecutive turns read together (the ``context`` ranking, docs/recall.md): their
    words, oldest first, and the days they were said.

    A reply ("Seven years now") is then found by the question it answers ("How long have you
    painted?"), words split over two turns match together, and "in May 2023" matches the day it
    was said. Indexed apart from each turn's own words, never embedded.
    """
    return " ".join([*(t.text for t in turns if t.text), *context_days(t.occurred_at for t in turns)])


def context_days(whens: Iterable[datetime]) -> list[str]:
    """The distinct days of a context row, oldest first (:func:`date_words` of each)."""
    return list(dict.fromkeys(date_words(w) for w in sorted(whens)))
