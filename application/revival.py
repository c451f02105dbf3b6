"""Revival of archived claims: the index entries that bring them back into search (ADR 0015)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from hlmem.application.indexing import NeedVectors, claim_text, passage_vectors
from hlmem.application.ports import Embedder, IndexEntry, SearchIndex
from hlmem.domain.events import ClaimRevived, DomainEvent
from hlmem.domain.slots import SlotRegistry
from hlmem.domain.state import ClaimState


def revived_ids(events: Sequence[DomainEvent]) -> list[str]:
    """Claims a batch of events revives (each needs an index entry passed to ``append``)."""
    return [e.stream_id for e in events if isinstance(e, ClaimRevived)]


def revival_index(claims: Iterable[ClaimState], registry: SlotRegistry, embedder: Embedder | None,
                  storage: SearchIndex, vectors: Mapping[str, bytes] | None = None, *,
                  embed: bool = True) -> dict[str, IndexEntry]:
    """Index entries that bring claims back into search: their text and, with an embedder, a vector.

    ``vectors`` (by text) are used where they match; the rest are embedded through the store's
    embedding cache, which still holds the vector each claim had before it was archived (a cache
    hit unless the cache was cleared).

    :param embed: False inside a write transaction: a missing vector raises :class:`NeedVectors`
        instead of being embedded under the lock (the caller embeds it and tries again; ADR 0064).
    """
    texts = {c.claim_id: claim_text(c.subject, c.predicate, c.value, c.qualifiers, c.coordinates, c.polarity,
                                    registry) for c in claims}
    known = dict(vectors or {})
    missing = [t for t in dict.fromkeys(texts.values()) if t not in known]
    if missing and not embed:
        if embedder is not None:
            raise NeedVectors(missing)
    elif missing:
        known.update(passage_vectors(embedder, storage, missing))
    return {cid: IndexEntry(text, known.get(text)) for cid, text in texts.items()}
