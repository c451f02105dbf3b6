"""The provider against the real hermes-agent package: its ABC, its plugin loader (skipped without ``hlmem[hermes]``).

Run it with hermes-agent installed, on its own (docs/hermes.md, "Testing against hermes-agent"):
hermes-agent installs a top-level ``plugins`` package, which tests/test_architecture.py forbids.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

memory_provider = pytest.importorskip(
    "agent.memory_provider",
    reason="hermes-agent is not installed (pip install 'hlmem[hermes]'; docs/hermes.md runs this test)")

from hlmem.adapters.hermes import HlmemMemoryProvider, install, provider_class  # noqa: E402

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support import hermes_abc  # noqa: E402


def test_the_subclass_of_the_real_abc_instantiates():
    cls = provider_class()
    assert issubclass(cls, memory_provider.MemoryProvider) and issubclass(cls, HlmemMemoryProvider)
    provider = cls()
    assert provider.name == "hlmem" and not getattr(cls, "__abstractmethods__", None)


def test_the_recorded_abc_is_the_installed_one():
    recorded = hermes_abc.load()
    live = hermes_abc.record()
    if live["version"] != recorded["version"]:
        pytest.fail(f"hermes-agent {live['version']} is installed, the record is of {recorded['version']}: "
                    "regenerate tests/support/hermes_abc.json (docs/hermes.md) and review the diff")
    assert live == recorded
    assert hermes_abc.incompatibilities(live["members"], hermes_abc.describe(provider_class())) == []


def test_hermes_loads_the_installed_plugin_folder(tmp_path, monkeypatch):
    # hermes-agent's own top-level ``plugins`` package (not hlmem's folder, which is never importable bare)
    _load_provider_from_dir = importlib.import_module("plugins.memory")._load_provider_from_dir
    monkeypatch.setenv("HERMES_HOME", str(tmp_path))
    folder = install(tmp_path)
    provider = _load_provider_from_dir(folder)
    assert isinstance(provider, memory_provider.MemoryProvider) and provider.name == "hlmem"


def test_the_memory_manager_drives_the_provider(tmp_path):
    """Hermes' own MemoryManager (its executors and threads) through the whole lifecycle."""
    import json
    import threading

    from agent.memory_manager import MemoryManager

    from hlmem.adapters.settings import Settings

    provider = provider_class()({"embedder": "hash", "prefetch_wait": 30}, settings=Settings())
    manager = MemoryManager()
    manager.add_provider(provider)
    try:
        manager.initialize_all("s1", hermes_home=str(tmp_path), platform="cli", agent_context="primary")
        assert provider.db_path == str(tmp_path / "hlmem" / "memory.db")
        manager.sync_all("我现在主要用深色模式。", "好的。", session_id="s1")
        assert manager.flush_pending(30)
        provider.flush()
        assert "深色模式" in manager.prefetch_all("用户现在用什么主题？", session_id="s1")
        assert manager.has_tool("hlmem_recall")
        out = json.loads(manager.handle_tool_call("hlmem_recall", {"query": "主题"}))
        assert out["items"] and "error" not in out
        assert "error" in json.loads(manager.handle_tool_call("hlmem_explain", {"id": "cl_missing"}))
        assert manager._provider_memory_write_metadata_mode(provider) in ("keyword", "positional")
        manager.on_memory_write("add", "user", "User prefers tea", {"session_id": "s1"})
        manager.on_session_end([])
        texts = {i.text for i in provider._memory.recall("tea", kinds=("event",)).items}
        assert "[hermes user add] User prefers tea" in texts
    finally:
        manager.shutdown_all()
    assert provider._memory is None
    assert [t for t in threading.enumerate() if t.name == "hlmem-hermes"] == []
