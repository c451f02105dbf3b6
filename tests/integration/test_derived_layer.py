"""The derived layer end to end (docs/derived.md, ADR 0046): the facade, the worker's rebuilds,
forget byte by byte, replay, and restore of a backup taken before the forget."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from hlmem import Memory
from hlmem.domain.errors import NotFound
from hlmem.domain.events import DerivedBecameStale, ItemForgotten

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
SECRET = "zanzibar-violet-77"
SECRET_ZH = "紫罗兰秘密基地"


def _files_holding(db: Path, needle: str) -> list[str]:
    out = []
    for f in sorted(db.parent.glob(db.name + "*")):
        data = f.read_bytes()
        if needle.encode() in data or json.dumps(needle)[1:-1].encode() in data:
            out.append(f.name)
    return out


def _mem(path) -> Memory:
    return Memory(path, embedder="none", now=T0)


def test_summaries_and_models_are_built_read_and_rebuilt_by_the_worker(tmp_path) -> None:
    with _mem(tmp_path / "m.db") as mem:
        ui = mem.remember("user", "theme", "dark").id
        editor = mem.remember("user", "preferred_editor_theme", "dark").id
        mem.remember("小明", "likes", "茶")
        mem.remember("小明", "likes", "咖啡")
        report = mem.derive()
        assert len(report.built) == 4 and report.subjects == 2
        [summary] = mem.observations(subject="我")  # every name of the user is one subject
        assert summary.item.text == ("user prefers dark across 2 preferences "
                                     "(preferred editor theme, preferred UI theme).")
        assert {s.claim_id for s in summary.sources} == {ui, editor}
        assert mem.mental_model("小明").item.text == "小明的画像（2条当前事实）：\n- 小明的偏好：喜欢为咖啡、茶。"
        assert mem.mental_model("小明").item.language == "zh"
        assert mem.derive().built == ()  # nothing changed: no event
        position = mem.storage.last_position()
        mem.remember("user", "theme", "light")
        stale = [s.event for s in mem.storage.read(after=position) if isinstance(s.event, DerivedBecameStale)]
        assert len(stale) == 2 and mem.observations(subject="user")[0].item.status == "stale"
        stats = mem._container.worker().run_once()
        assert stats.jobs_succeeded == 2 and not stats.errors
        [summary] = mem.observations(subject="user")
        assert summary.item.status == "current"
        assert summary.item.text == "user — preferences: preferred editor theme: dark; preferred UI theme: light."
        assert mem.derived(summary.item.derived_id).item == summary.item
        with pytest.raises(NotFound):
            mem.mental_model("nobody")
        assert mem.replay().equal


def test_forgetting_the_only_support_removes_the_text_from_the_file(tmp_path) -> None:
    db = tmp_path / "m.db"
    with _mem(db) as mem:
        for i in range(50):  # survivors share the pages
            mem.remember(f"filler{i}", "likes", f"tea {i}")
        only = mem.remember("Alice", "likes", SECRET).id
        mem.remember("Alice", "likes", SECRET_ZH)
        mem.derive(subject="Alice")
        model = mem.mental_model("Alice").item.derived_id
        assert _files_holding(db, SECRET) and _files_holding(db, SECRET_ZH)
        report = mem.forget(subject="Alice")
        assert not report.erasure_pending
        for needle in (SECRET, SECRET_ZH):
            assert _files_holding(db, needle) == [], needle
        got = mem.derived(model).item
        assert got.status == "forgotten" and got.text == "" and got.subject == "" and got.sources == ()
        assert model in {t.stream_id for t in mem.storage.tombstones.tombstones()}
        assert mem.observations(subject="Alice") == [] and only
        assert mem.replay().equal


def test_a_surviving_source_keeps_the_item_scrubbed_then_rebuilt(tmp_path) -> None:
    db = tmp_path / "m.db"
    with _mem(db) as mem:
        mem.remember("user", "likes", "tea")
        gone = mem.remember("user", "likes", SECRET).id
        mem.derive()
        [summary] = mem.observations()
        mem.forget(gone)
        assert _files_holding(db, SECRET) == []
        got = mem.derived(summary.item.derived_id).item
        assert got.status == "stale" and got.text == "" and gone not in got.source_ids and got.subject == "user"
        mem._container.worker().run_once()
        # One "likes" claim is left: no summary any more, the model is rebuilt from it.
        assert mem.observations() == []
        model = mem.mental_model("user").item
        assert model.status == "current" and SECRET not in model.text and "tea" in model.text
        assert mem.replay().equal


def test_restoring_a_backup_from_before_the_forget_does_not_bring_the_text_back(tmp_path) -> None:
    db = tmp_path / "m.db"
    with _mem(db) as mem:
        secret = mem.remember("Bob", "likes", SECRET).id
        mem.remember("Bob", "likes", "tea")
        mem.derive()
        info = mem.backup(tmp_path / "before.db")
        [summary] = mem.observations(subject="Bob")
        mem.forget(secret)
        mem.restore(info.path)
        got = mem.derived(summary.item.derived_id).item
        assert SECRET not in got.text and got.status == "stale"
        assert _files_holding(db, SECRET) == []
        assert all(SECRET not in v.item.text for v in mem._container.derived().items(include_removed=True))


def test_a_store_without_the_derived_role_is_not_a_storage() -> None:
    """The derived role is not optional (ADR 0076): a store that leaves it out is neither a
    ``Storage`` nor the derived service's ``DerivedStore``, so the contract suite refuses it
    (tests/contract/test_storage_contract.py) before a user could ask it for a profile."""
    from hlmem.adapters.inmemory.store import InMemoryStorage
    from hlmem.application.ports import DerivedStore, StalenessStore, Storage

    class WithoutDerived:
        def __init__(self, inner) -> None:
            self._inner = inner

        def __getattr__(self, name: str):
            if name in ("get_derived", "derived_citing", "derived_items"):
                raise AttributeError(name)
            return getattr(self._inner, name)

    store = InMemoryStorage()
    assert isinstance(store, Storage) and isinstance(store, DerivedStore)
    partial = WithoutDerived(store)
    assert not isinstance(partial, Storage)
    assert not isinstance(partial, DerivedStore) and not isinstance(partial, StalenessStore)


def test_forgetting_a_source_an_earlier_version_cited_erases_that_version_too(tmp_path) -> None:
    # A retract makes the item stale, the worker rebuilds it without the claim; the claim's value is
    # still in the first version's payload, and a later forget of the claim must reach it (found by
    # the relations state machine, seed 4072781123).
    db = tmp_path / "m.db"
    with _mem(db) as mem:
        mem.remember("user", "likes", "tea")
        mem.remember("user", "likes", "coffee")
        gone = mem.remember("user", "likes", SECRET).id
        mem.derive()
        mem.retract(gone, reason="not true")
        mem._container.worker().run_once()
        mem.derive()
        assert all(SECRET not in d.item.text for d in mem.observations())
        assert _files_holding(db, SECRET)  # the first version's payload, and the claim itself
        mem.forget(gone)
        assert _files_holding(db, SECRET) == []
        mem._container.worker().run_once()
        assert all(SECRET not in d.item.text for d in mem.observations())
        assert mem.replay().equal
