"""Re-embedding: the explicit way to move a store to another embedding model."""

from __future__ import annotations

from collections.abc import Callable

from hlmem.application.indexing import claim_text, state_index_text
from hlmem.application.ports import Embedder, Storage
from hlmem.domain.slots import SlotRegistry

#: Texts embedded per model call.
BATCH = 256


def reembed(storage: Storage, embedder: Embedder, registry: SlotRegistry,
            progress: Callable[[int], None] | None = None) -> int:
    """Embed every searchable item with ``embedder`` and swap all vectors and the model at once.

    Until the final swap, the store keeps its old vectors and binding, so an interrupted
    re-embedding leaves a consistent store. Returns how many items got a vector.
    """
    items = list(storage.items())
    texts: list[tuple[str, str]] = []
    for start in range(0, len(items), 500):
        chunk = items[start:start + 500]
        claims = storage.get_claims([i for i, kind in chunk if kind == "claim"])
        events = storage.get_observations([i for i, kind in chunk if kind == "event"])
        for item_id, kind in chunk:
            if kind == "claim" and item_id in claims:
                c = claims[item_id]
                texts.append((item_id, claim_text(c.subject, c.predicate, c.value, c.qualifiers, c.coordinates,
                                                  c.polarity, registry)))
            elif kind == "event" and item_id in events:
                texts.append((item_id, events[item_id].text))
        derived = storage.get_derived([i for i, kind in chunk if kind == "derived"])
        texts += [(item_id, text) for item_id, d in derived.items() if (text := state_index_text(d))]
    vectors: list[tuple[str, bytes]] = []
    for start in range(0, len(texts), BATCH):
        chunk = texts[start:start + BATCH]
        matrix = embedder.embed_passages([t for _, t in chunk])
        vectors += [(item_id, row.astype("<f4").tobytes()) for (item_id, _), row in zip(chunk, matrix)]
        if progress:
            progress(len(vectors))
    return storage.replace_vectors(embedder.model_id, embedder.dim, vectors)
