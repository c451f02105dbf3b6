"""Vectors indexed by the worker after the write (``vectors = "worker"``, ADR 0080)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from hlmem import Memory
from hlmem.adapters.embedders.hashing import HashEmbedder
from hlmem.adapters.settings import Settings
from hlmem.application.vector_backlog import VECTOR
from hlmem.domain.errors import ConfigurationError


class CountingEmbedder:
    """The hash embedder, counting its passage calls and texts."""

    def __init__(self) -> None:
        self.inner = HashEmbedder(dim=64)
        self.calls: list[int] = []

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(len(texts))
        return self.inner.embed_passages(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_queries(texts)


def memory(tmp_path: Path, mode: str, embedder: CountingEmbedder) -> Memory:
    return Memory(str(tmp_path / "m.db"), embedder=embedder, settings=Settings.from_mapping({"vectors": mode}))


def query_vector(text: str) -> bytes:
    return HashEmbedder(dim=64).embed_queries([text])[0].astype("<f4").tobytes()


def vector_jobs(mem: Memory) -> dict[str, int]:
    return mem.jobs.job_counts().get(VECTOR, {})


def test_a_deferred_event_is_found_by_full_text_at_once_and_by_vector_after_the_worker(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    mem = memory(tmp_path, "worker", embedder)
    try:
        event = mem.add("Caroline went camping by the lake in Oregon", extract=False).id
        assert embedder.calls == []  # acknowledged without a model call
        store = mem.storage
        assert [c.item_id for c in store.text_candidates("default", "camping lake", 10)] == [event]
        assert store.vector_candidates("default", query_vector("camping by the lake"), 10) == []
        assert [i.id for i in mem.recall("camping by the lake", k=3).items] == [event]  # full text finds it
        assert vector_jobs(mem) == {"pending": 1}

        stats = mem._container.worker().run_once()
        assert stats.vectors == 1 and embedder.calls == [1]
        assert vector_jobs(mem) == {"succeeded": 1}
        got = store.vector_candidates("default", query_vector("Caroline went camping by the lake in Oregon"), 10)
        assert [c.item_id for c in got] == [event]
        assert [i.id for i in mem.recall("camping by the lake", k=3).items] == [event]
    finally:
        mem.close()


def test_a_batch_owes_its_vectors_and_the_worker_embeds_them_in_one_call(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    mem = memory(tmp_path, "worker", embedder)
    try:
        texts = [f"turn {n}: we talked about the lake, the trail and the weather {n}" for n in range(5)]
        ids = [r.id for r in mem.add_many([{"text": t, "session": "s1"} for t in texts], extract=False)]
        assert embedder.calls == [] and vector_jobs(mem) == {"pending": 5}
        mem._container.worker().run_once()
        assert embedder.calls == [5]  # one window, one model call
        assert mem.storage.counts()["vectors"] == 5
        found = {c.item_id for c in mem.storage.vector_candidates("default", query_vector(texts[0]), 10)}
        assert found == set(ids)
    finally:
        mem.close()


def test_inline_writes_embed_a_batch_in_one_call_and_owe_nothing(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    mem = memory(tmp_path, "inline", embedder)
    try:
        mem.add_many([{"text": f"note {n} about the garden"} for n in range(4)], extract=False)
        assert embedder.calls == [4]
        assert vector_jobs(mem) == {} and mem.storage.counts()["vectors"] == 4
    finally:
        mem.close()


def test_an_item_forgotten_before_the_worker_gets_no_vector(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    mem = memory(tmp_path, "worker", embedder)
    try:
        gone = mem.add("my locker code is 4471", extract=False).id
        kept = mem.add("the lake trail opens in May", extract=False).id
        mem.forget(gone)
        stats = mem._container.worker().run_once()
        assert stats.vectors == 1 and embedder.calls == [1]  # only the kept item's text was embedded
        assert vector_jobs(mem) == {"succeeded": 2}
        assert [c.item_id for c in mem.storage.vector_candidates("default", query_vector("lake"), 10)] == [kept]
    finally:
        mem.close()


def test_the_setting_is_checked_everywhere() -> None:
    assert Settings().vectors == "inline"
    assert Settings.from_env({"HLMEM_VECTORS": "Worker"}).vectors == "worker"
    with pytest.raises(ConfigurationError, match="must be one of inline, worker"):
        Settings.from_mapping({"vectors": "later"})
    with pytest.raises(ConfigurationError, match="HLMEM_VECTORS"):
        Settings.from_env({"HLMEM_VECTORS": "async"})


def test_replay_counts_owed_vectors_as_no_difference(tmp_path: Path) -> None:
    """The rebuild embeds every vector; the live store still owes some (and owes none for an item
    forgotten meanwhile): replay equality holds before the worker runs, and after."""
    embedder = CountingEmbedder()
    mem = memory(tmp_path, "worker", embedder)
    try:
        mem.add("the lake trail opens in May", extract=False)
        gone = mem.add("my locker code is 4471", extract=False).id
        mem.remember("Alice", "lives_in", "Paris")
        mem.forget(gone)
        assert mem.storage.counts()["vectors"] == 0
        report = mem.replay()
        assert report.equal, report.differences
        assert report.rebuilt_counts["vectors"] == 2
        mem._container.worker().run_once()
        report = mem.replay()
        assert report.equal and report.live_counts["vectors"] == 2
    finally:
        mem.close()
