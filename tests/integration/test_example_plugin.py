"""The example package plugins/examples/hlmem-echo-reranker, installed offline with ``pip --target``:
listed but never imported until allowlisted; after ``allow`` and ``enabled``, recall uses it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "plugins" / "examples" / "hlmem-echo-reranker"


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example installed into a folder of its own (a copy is built, so the source tree stays clean)."""
    base = tmp_path_factory.mktemp("echo")
    source = shutil.copytree(EXAMPLE, base / "src")
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                           "--no-index", "--target", str(base / "site"), str(source)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert list((base / "site").glob("hlmem_echo_reranker-*.dist-info"))
    return base / "site"


SCRIPT = """
import json, sys
sys.path.insert(0, {site!r})
from hlmem import Memory
from hlmem.adapters.settings import Settings
from hlmem.adapters.plugin_wiring import make_plugin_registry
from hlmem.plugins.api import PluginError

out = {{}}
(row,) = [r for r in make_plugin_registry().report() if r.name == "echo"]
out["listed"] = [row.distribution, row.version, row.allowed, row.loaded]
try:
    Memory(":memory:", embedder="hash", rerank="echo", settings=Settings())
except PluginError as exc:
    out["refused"] = str(exc)
out["imported_before_allow"] = "hlmem_echo_reranker" in sys.modules

settings = Settings.from_mapping({{"plugins": {{
    "allow": [{{"group": "hlmem.rerankers", "name": "echo", "distribution": "hlmem-echo-reranker"}}],
    "enabled": ["reranker:echo"], "options": {{"reranker:echo": {{"scale": 2.0}}}}}}}})
with Memory(":memory:", embedder="hash", settings=settings) as mem:
    for value in ("dark", "solarized", "light"):
        mem.remember("user", "theme_" + value, value)
    result = mem.recall("theme", k=3)
    reranker = mem._container.reranker()
    out["model_id"] = reranker.model_id
    out["calls"] = reranker.calls
    out["scores"] = reranker.rerank("q", ["a", "b", "c"])
    out["items"] = len(result.items)
print(json.dumps(out))
"""


def test_the_example_is_ignored_until_allowed_then_used_by_recall(target: Path) -> None:
    done = subprocess.run([sys.executable, "-P", "-c", SCRIPT.format(site=str(target))], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    assert out["listed"] == ["hlmem-echo-reranker", "0.1.0", False, False]
    assert "not allowed" in out["refused"] and 'distribution = "hlmem-echo-reranker"' in out["refused"]
    assert out["imported_before_allow"] is False
    assert out["model_id"] == "echo:v1" and out["calls"] and out["calls"][0][0] == "theme"
    assert out["scores"] == [2.0, 1.0, 2.0 / 3] and out["items"] == 3


def test_hlmem_plugins_list_shows_the_example_as_not_allowed(target: Path, tmp_path: Path) -> None:
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(target)!r})
        from hlmem.adapters.cli.main import main
        sys.argv = ["hlmem", "plugins", "list", "--json"]
        main()
    """)
    done = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = {(r["group"], r["name"]): r for r in json.loads(done.stdout)["plugins"]}
    echo = rows[("hlmem.rerankers", "echo")]
    assert (echo["distribution"], echo["allowed"], echo["loaded"]) == ("hlmem-echo-reranker", False, False)
    assert "never imported" in echo["error"]
