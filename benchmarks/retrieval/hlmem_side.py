"""hlmem's side of the benchmark: one store per haystack, written and read through the public ``hlmem.Memory`` API.

Each document is one ``Memory.add`` (an observation, verbatim) with its session, its speaker as
``role`` and its time as ``occurred_at``; extraction is off unless asked for, so only the
verbatim events are indexed. Queries go through ``Memory.recall(query, k=10)`` and the returned
items are mapped back to dataset ids: an event by the id ``add`` returned, a claim by its evidence
events. Stores are kept in the cache directory and reused while the data file, the embedder,
the extraction mode and hlmem's source files are unchanged. The embedder handed to ``Memory``
is the benchmark's cached one (:class:`~.vectors.BenchEmbedder`, the same model), so a rebuild
embeds nothing new and the timed recalls exclude the model's query time, as the baselines' do.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .data import Doc, Haystack

#: hlmem's folders whose source decides what a store holds and how it is searched.
_SOURCE_PACKAGES = ("hlmem.domain", "hlmem.application", "hlmem.adapters", "hlmem.plugins")


def hlmem_fingerprint() -> str:
    """sha256 over hlmem's Python sources (any change rebuilds the cached stores)."""
    digest = hashlib.sha256()
    for name in _SOURCE_PACKAGES:
        folder = Path(importlib.import_module(name).__file__).parent
        for path in sorted(folder.rglob("*.py")):
            if "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(folder)).encode() + b"\x00" + path.read_bytes())
    return digest.hexdigest()[:16]


def _recall_kwargs(mem: Any, limit: int) -> dict[str, int]:
    """``limit=`` or ``k=``, whichever this hlmem's ``Memory.recall`` takes."""
    params = inspect.signature(mem.recall).parameters
    return {"limit": limit} if "limit" in params else {"k": limit}


def takes_reference(mem: Any) -> bool:
    """Whether this hlmem's ``Memory.recall`` takes a reference time (``now=``)."""
    return "now" in inspect.signature(mem.recall).parameters


class HlmemHaystack:
    """A store holding one haystack, opened through ``hlmem.Memory``.

    :param path: the store file.
    :param embedder: what ``Memory(embedder=...)`` gets: a name (``none``…) or an Embedder.
    :param extract: queue and run claim extraction for every observation (the product default).
    :param ranking: ``Memory(ranking=...)`` settings (None: the product defaults).
    :param derive: build the derived items after adding (they are then in the index; ADR 0084).
    """

    def __init__(self, path: Path, embedder: Any, *, extract: bool = False,
                 ranking: dict[str, Any] | None = None, relations: bool = False, derive: bool = False) -> None:
        self.path = path
        self.relations = relations
        self.derive = derive
        self.ranking = ranking or None
        self.embedder = embedder
        self.extract = extract
        self.ids: dict[str, str] = {}
        self.build_s = 0.0
        self.reused = False
        self._mem: Any = None

    # -- building -----------------------------------------------------------------------------

    def _meta_path(self) -> Path:
        return self.path.with_suffix(".json")

    def open(self, haystack: Haystack, key: dict[str, str], rebuild: bool = False,
             progress: Callable[[int], None] | None = None, ignore: tuple[str, ...] = ()) -> HlmemHaystack:
        """Open the cached store when ``key`` matches its metadata, else build it afresh.

        :param ignore: key fields not compared (``("hlmem",)`` keeps a store built by older code).
        """
        from hlmem import Memory

        meta = self._meta_path()
        if not rebuild and self.path.exists() and meta.exists():
            saved = json.loads(meta.read_text())
            same = {k: v for k, v in saved.get("key", {}).items() if k not in ignore}
            if same == {k: v for k, v in key.items() if k not in ignore}:
                self.ids = saved["ids"]
                self.build_s = saved.get("build_s", 0.0)
                self.reused = True
                self._mem = Memory(self.path, embedder=self.embedder, ranking=self.ranking, **self._settings())
                return self
        for stale in (self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm"), meta):
            stale.unlink(missing_ok=True)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # synchronous=OFF: a benchmark store needs no durability, and fsyncs would dominate the build.
        self._mem = Memory(self.path, embedder=self.embedder, synchronous="OFF", ranking=self.ranking,
                           **self._settings())
        start = time.perf_counter()
        self.ids = {}
        for i, doc in enumerate(haystack.docs, start=1):
            result = self._add(doc)
            self.ids[result.id] = doc.id
            if progress and i % 500 == 0:
                progress(i)
        if self.extract:
            self._mem.run_worker(once=True)
        if self.relations:  # a reviewer who accepts every proposal (ADR 0085's measurement)
            from hlmem.domain.errors import HlmemError

            after = None
            while page := self._mem.relations.list(status="proposed", limit=1000, after=after):
                for r in page:
                    try:
                        self._mem.relations.accept(r.relation_id, reason="benchmark: accept every proposal")
                    except HlmemError:  # its evidence no longer current: a reviewer could not accept it
                        pass
                after = page[-1].relation_id
        if self.derive:  # summaries and models from the claims, indexed for recall (ADR 0084)
            self._mem.derived.build()
        self.build_s = round(time.perf_counter() - start, 2)
        meta.write_text(json.dumps({"key": key, "ids": self.ids, "build_s": self.build_s}))
        return self

    def _settings(self) -> dict[str, Any]:
        """``Memory(settings=…)`` with relations enabled when asked for, else nothing (the defaults)."""
        if not self.relations:
            return {}
        from hlmem.adapters.settings import Settings

        return {"settings": Settings.from_mapping({"relations": {"enabled": True}})}

    def _add(self, doc: Doc) -> Any:
        # With extraction on, add() runs the session's ready jobs itself, as it does for a user.
        return self._mem.add(doc.text, session=doc.session, role=doc.speaker or "user",
                             occurred_at=doc.occurred_at, extract=self.extract)

    # -- reading ------------------------------------------------------------------------------

    def recall(self, query: str, limit: int = 10, as_of: datetime | None = None, reference: datetime | None = None,
               understand: bool = True) -> tuple[list[str], float, float, Any]:
        """Dataset ids of ``Memory.recall(query)``, best first, the call's wall and CPU milliseconds, the raw result.

        :param reference: the question's own date as ``now=`` (ignored by an hlmem without it).
        :param understand: False asks without reading the query's time words (``understand_query``).
        """
        kwargs: dict[str, Any] = _recall_kwargs(self._mem, limit)
        if as_of is not None:
            kwargs["valid_at"] = as_of
        if reference is not None and takes_reference(self._mem):
            kwargs["now"] = reference
        if not understand:
            kwargs["understand_query"] = False
        start, cpu = time.perf_counter(), time.process_time()
        result = self._mem.recall(query, **kwargs)
        ms, cpu_ms = (time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000
        return self.map_items(result.items), ms, cpu_ms, result

    def map_items(self, items: Sequence[Any]) -> list[str]:
        """Dataset ids of recalled items: an event's own, a claim's evidence events', first seen first."""
        out: list[str] = []
        for item in items:
            # An event's evidence is itself plus the near-duplicates folded into it.
            evidence = tuple(getattr(item, "evidence", ()) or ())
            sources = (item.id, *evidence) if item.kind == "event" else evidence
            for source in sources:
                doc_id = self.ids.get(source)
                if doc_id is not None and doc_id not in out:
                    out.append(doc_id)
        return out

    def warm_up(self) -> float:
        """One untimed-for-the-table recall that loads the vectors and the model; its milliseconds."""
        start = time.perf_counter()
        self._mem.recall("warm up", **_recall_kwargs(self._mem, 10))
        return (time.perf_counter() - start) * 1000

    def stats(self) -> dict[str, Any]:
        """``Memory.stats()`` of the store."""
        return self._mem.stats()

    def close(self) -> None:
        """Close the store."""
        if self._mem is not None:
            self._mem.close()
            self._mem = None
