"""The store's embedding model: recorded, never mixed, switched only by reembed; replay into a file."""

from __future__ import annotations

import pytest

from hlmem import Memory
from hlmem.adapters.embedders.hashing import HashEmbedder
from hlmem.domain.errors import ModelMismatch, ValidationError


def test_store_remembers_its_model_and_refuses_another(tmp_path) -> None:
    path = tmp_path / "m.db"
    with Memory(path, embedder="hash") as mem:
        mem.remember("用户", "lives_in", "杭州")
        assert mem.stats()["vector_model"] == "hash-v1-256"
    with Memory(path) as mem:  # no choice given: the store's own model is used
        assert mem.embedder_name == "hash"
    with Memory(path, embedder=HashEmbedder(dim=64)) as mem:
        with pytest.raises(ModelMismatch):
            mem.remember("用户", "likes", "茶")
        result = mem.recall("杭州")
        assert [i.value for i in result.items] == ["杭州"]
        assert result.notes and "reembed" in result.notes[0]
        assert mem.stats()["claims"] == 1  # the refused write left nothing behind


def test_reembed_switches_every_vector_and_the_binding(tmp_path) -> None:
    path = tmp_path / "m.db"
    with Memory(path, embedder="hash") as mem:
        mem.add("我在杭州工作")
        mem.remember("用户", "works_in", "杭州")
    with Memory(path, embedder=HashEmbedder(dim=64)) as mem:
        assert mem.reembed() == 2
        assert mem.storage.vector_model() == ("hash-v1-64", 64)
        mem.remember("用户", "likes", "茶")
        items = mem.recall("杭州 工作").items
        assert {i.kind for i in items} == {"claim", "event"}
        assert all("vector" in i.ranks or "text" in i.ranks for i in items)
        assert not mem.recall("杭州").notes


def test_replay_into_keeps_a_rebuilt_store_and_refuses_an_existing_file(tmp_path) -> None:
    path = tmp_path / "m.db"
    with Memory(path, embedder="hash") as mem:
        mem.remember("Alice", "lives_in", "Boston", valid_from="2026-01-01")
        mem.remember("Alice", "lives_in", "Seattle", valid_from="2026-05-01")
        report = mem.replay(into=tmp_path / "rebuilt.db")
        assert report.equal, report.differences
        with pytest.raises(ValidationError):
            mem.replay(into=tmp_path / "rebuilt.db")
    with Memory(tmp_path / "rebuilt.db") as rebuilt:
        assert [c.value for c in rebuilt.history("Alice", "lives_in")] == ["Boston", "Seattle"]
