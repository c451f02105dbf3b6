"""The registry with entry points the test builds: allowlist before import, and every start-up error."""

from __future__ import annotations

import sys
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
from support.plugin_dists import RERANKER_MODULE, TRIPWIRE_MODULE, unique

from hlmem.adapters.settings import Settings
from hlmem.adapters.settings_sections import ENTRY_POINT_GROUPS
from hlmem.application.errors import ConfigurationError
from hlmem.application.ports import Reranker, Storage
from hlmem.plugins.api import PLUGIN_API_VERSION, PluginError
from hlmem.plugins.contract import missing_members, protocol_members
from hlmem.plugins.discovery import Found
from hlmem.plugins.registry import Registry


@pytest.fixture
def modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Write a module (fresh name) onto sys.path; returns its name."""
    monkeypatch.syspath_prepend(str(tmp_path))

    def write(source: str, prefix: str = "plug") -> str:
        name = unique(prefix)
        (tmp_path / f"{name}.py").write_text(source, encoding="utf-8")
        return name

    return write


def found(name: str, value: str, *, kind: str = "reranker", distribution: str = "acme-plugins",
          version: str = "2.0") -> Found:
    group = ENTRY_POINT_GROUPS[kind]
    return Found(group, kind, name, distribution, version, EntryPoint(name=name, value=value, group=group))


def allow(name: str, distribution: str = "acme-plugins", kind: str = "reranker"):
    return Settings.from_mapping({"plugins": {"allow": [
        {"group": ENTRY_POINT_GROUPS[kind], "name": name, "distribution": distribution}]}}).plugins.allow


def registry(entries, **kw) -> Registry:
    return Registry(ENTRY_POINT_GROUPS, found=list(entries), **kw)


def test_an_entry_point_that_is_not_allowed_is_listed_and_never_imported(modules, tmp_path: Path) -> None:
    marker = tmp_path / "imported.txt"
    module = modules(TRIPWIRE_MODULE.format(marker=str(marker)), "tripwire")
    reg = registry([found("evil", f"{module}:SPEC")], enabled=())
    reg.check()
    (row,) = reg.report()
    assert (row.allowed, row.loaded, row.enabled, row.api_version) == (False, False, False, None)
    assert "not allowed" in row.error and row.distribution == "acme-plugins" and row.version == "2.0"
    with pytest.raises(PluginError, match=r"not allowed.*distribution = \"acme-plugins\""):
        reg.spec("reranker", "evil")
    assert module not in sys.modules and not marker.exists()


def test_enabling_a_plugin_that_is_not_allowed_fails_at_start_up_without_importing(modules, tmp_path) -> None:
    marker = tmp_path / "imported.txt"
    module = modules(TRIPWIRE_MODULE.format(marker=str(marker)), "tripwire")
    reg = registry([found("evil", f"{module}:SPEC")], enabled=("reranker:evil",))
    with pytest.raises(PluginError, match="installed but not allowed") as caught:
        reg.check()
    assert isinstance(caught.value, ConfigurationError)
    assert module not in sys.modules and not marker.exists()


def test_an_allowed_plugin_loads_checks_and_builds_with_its_options(modules) -> None:
    module = modules(RERANKER_MODULE)
    reg = registry([found("ordered", f"{module}:SPEC")], allow=allow("ordered"), enabled=("ordered",),
                   options={"ordered": {"depth": 3}})
    reg.check()
    assert module in sys.modules
    made = reg.build("reranker", "ordered", environ={})
    assert isinstance(made, Reranker) and made.options == {"depth": 3}
    assert made.rerank("q", ["a", "b", "c"]) == [1.0, 0.5, 1 / 3]
    (row,) = reg.report()
    assert (row.allowed, row.enabled, row.loaded, row.api_version, row.error) == (True, True, True,
                                                                                  PLUGIN_API_VERSION, None)
    assert reg.enabled("reranker") == ["ordered"] and reg.enabled("llm") == []


def test_the_allowlist_matches_the_distribution_as_pep_503_compares_names(modules) -> None:
    module = modules(RERANKER_MODULE)
    reg = registry([found("ordered", f"{module}:SPEC", distribution="Acme_Plugins")], allow=allow("ordered"))
    assert reg.spec("reranker", "ordered").kind == "reranker"


def test_an_allow_entry_for_another_distribution_does_not_allow_it(modules) -> None:
    module = modules(RERANKER_MODULE)
    reg = registry([found("ordered", f"{module}:SPEC", distribution="mallory")], allow=allow("ordered"))
    with pytest.raises(PluginError, match="not allowed"):
        reg.spec("reranker", "ordered")
    assert module not in sys.modules


def test_built_ins_are_allowed_without_an_entry(modules) -> None:
    module = modules(RERANKER_MODULE)
    reg = registry([found("ordered", f"{module}:SPEC", distribution="hlmem")])
    assert reg.report()[0].allowed and reg.report()[0].loaded


def test_two_allowed_entry_points_with_one_name_are_an_error(modules) -> None:
    a, b = modules(RERANKER_MODULE), modules(RERANKER_MODULE)
    entries = [found("ordered", f"{a}:SPEC", distribution="hlmem"), found("ordered", f"{b}:SPEC")]
    registry(entries).check()  # the third-party one is not allowed: no clash
    with pytest.raises(PluginError, match=r"two allowed entry points are named 'ordered' in hlmem.rerankers"):
        registry(entries, allow=allow("ordered")).check()


def test_an_enabled_plugin_that_is_not_installed_is_an_error() -> None:
    with pytest.raises(PluginError, match="enabled names 'reranker:ghost' but no reranker plugin 'ghost'"):
        registry([], enabled=("reranker:ghost",)).check()


def test_a_bare_name_in_two_groups_must_say_its_kind(modules) -> None:
    module = modules(RERANKER_MODULE)
    entries = [found("twin", f"{module}:SPEC", distribution="hlmem"),
               found("twin", f"{module}:SPEC", distribution="hlmem", kind="llm")]
    with pytest.raises(PluginError, match="several kinds.*llm:twin"):
        registry(entries, enabled=("twin",)).check()


BAD_SPECS = {
    "api": ("from hlmem.plugins.api import PluginSpec\nfrom hlmem.plugins.api import PLUGIN_API_VERSION as V\n"
            "class R:\n    model_id = 'r'\n    def rerank(self, q, t): return []\n"
            "SPEC = PluginSpec('reranker', V + 1, R, R)\n", r"plugin API version 2, but this hlmem speaks version 1"),
    "type": ("class R:\n    model_id = 'r'\n    def rerank(self, q, t): return []\nSPEC = R\n",
             r"names a type, not a hlmem.plugins.api.PluginSpec"),
    "kind": ("from hlmem.plugins.api import PluginSpec\nclass R:\n    model_id = 'r'\n"
             "    def rerank(self, q, t): return []\nSPEC = PluginSpec('llm', 1, R, R)\n",
             r"says it is a 'llm' plugin but is registered in hlmem.rerankers"),
    "port": ("from hlmem.plugins.api import PluginSpec\nclass R:\n    def score(self, q, t): return []\n"
             "SPEC = PluginSpec('reranker', 1, R, R)\n", r"R does not satisfy the reranker port; it lacks model_id, rerank"),
    "import": ("import hlmem_no_such_dependency_xyz\n",
               r"could not import reranker plugin 'bad' from distribution acme-plugins 2.0 \(module {module}\): "
               r"ModuleNotFoundError"),
    "attr": ("X = 1\n", r"could not import .*AttributeError"),
}


@pytest.mark.parametrize("case", sorted(BAD_SPECS))
def test_a_bad_plugin_is_a_clear_error_at_start_up(modules, case: str) -> None:
    source, message = BAD_SPECS[case]
    module = modules(source)
    reg = registry([found("bad", f"{module}:SPEC")], allow=allow("bad"), enabled=("reranker:bad",))
    with pytest.raises(PluginError, match=message.format(module=module)):
        reg.check()
    (row,) = reg.report()  # the report says the same, without raising
    assert not row.loaded and row.error and row.allowed


def test_a_factory_that_builds_something_else_is_refused(modules) -> None:
    module = modules("from hlmem.plugins.api import PluginSpec\nclass R:\n    model_id = 'r'\n"
                     "    def rerank(self, q, t): return []\nSPEC = PluginSpec('reranker', 1, lambda c: object(), R)\n")
    reg = registry([found("odd", f"{module}:SPEC")], allow=allow("odd"))
    with pytest.raises(PluginError, match="factory returned a object, not the R its spec declares"):
        reg.build("reranker", "odd", environ={})


def test_a_storage_plugin_that_returns_a_bare_store_is_refused_and_its_store_closed(modules) -> None:
    module = modules("from hlmem.adapters.inmemory.store import InMemoryStorage\n"
                     "from hlmem.plugins.api import PluginSpec\n"
                     "made = []\n"
                     "class Store(InMemoryStorage):\n"
                     "    def close(self): made.append('closed')\n"
                     "SPEC = PluginSpec('storage', 1, lambda c: made.append('built') or Store(), Store)\n")
    reg = registry([found("bare", f"{module}:SPEC", kind="storage")], allow=allow("bare", kind="storage"))
    with pytest.raises(PluginError, match=r"storage plugin 'bare': its factory returned a Store, not a Backend.*"
                                          r"ADR 0074"):
        reg.build("storage", "bare", store_path=":memory:")
    assert sys.modules[module].made == ["built", "closed"]


def test_a_storage_plugin_builds_the_whole_backend(modules) -> None:
    from hlmem.application.ports import BudgetLedger, CallLedger, JobQueue, WorkerHeartbeats
    from hlmem.application.ports.backend import Backend

    reg = Registry(ENTRY_POINT_GROUPS)
    backend = reg.build("storage", "memory", store_path=":memory:", new_id=lambda prefix: f"{prefix}_1")
    assert isinstance(backend, Backend) and isinstance(backend.store, Storage)
    assert isinstance(backend.jobs, JobQueue) and isinstance(backend.budget, BudgetLedger)
    assert isinstance(backend.calls, CallLedger) and isinstance(backend.heartbeats, WorkerHeartbeats)
    with backend.replay_target(None) as target:
        assert isinstance(target, Storage) and target.last_position() == 0
    backend.close()
    backend.close()  # twice is harmless


def test_an_unknown_name_lists_what_was_found(modules) -> None:
    reg = registry([found("ordered", "x:SPEC", distribution="hlmem")])
    with pytest.raises(PluginError, match="no reranker plugin named 'nope'.*found: ordered"):
        reg.spec("reranker", "nope")


def test_listing_does_not_import_when_told_not_to(modules) -> None:
    module = modules(RERANKER_MODULE)
    reg = registry([found("ordered", f"{module}:SPEC", distribution="hlmem")])
    (row,) = reg.report(load=False)
    assert row.allowed and not row.loaded and row.error is None and module not in sys.modules


def test_port_members_are_read_from_the_protocols() -> None:
    assert protocol_members(Reranker) == {"model_id", "rerank"}
    members = protocol_members(Storage)
    assert {"transaction", "close", "embedding_cache", "tombstones", "append"} <= members
    assert not any(m.startswith("_abc") or m in {"__init__", "__doc__"} for m in members)

    class Half:
        model_id = "x"

    assert missing_members(Half, "reranker") == ["rerank"]


@pytest.mark.parametrize("kind", ["storage", "embedder", "llm", "reranker"])
def test_every_built_in_satisfies_its_port(kind: str) -> None:
    reg = Registry(ENTRY_POINT_GROUPS)
    names = reg.names(kind)
    assert names
    for name in names:
        assert reg.spec(kind, name).kind == kind
