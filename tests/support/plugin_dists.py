"""Plugin distributions made by tests: a module and a ``*.dist-info`` with ``entry_points.txt`` in a folder.

That is all ``importlib.metadata`` needs to see a distribution on a path, without pip.
"""

from __future__ import annotations

import uuid
from pathlib import Path

#: A reranker plugin module: ``SPEC`` keeps the order it is given; ``made`` counts what it built.
RERANKER_MODULE = '''
from hlmem.plugins.api import PLUGIN_API_VERSION, PluginSpec


class Ordered:
    def __init__(self, options):
        self.options = dict(options)
        self.calls = []

    @property
    def model_id(self):
        return "ordered:v1"

    def rerank(self, query, texts):
        self.calls.append((query, list(texts)))
        return [1.0 / (i + 1) for i in range(len(texts))]


SPEC = PluginSpec("reranker", PLUGIN_API_VERSION, lambda context: Ordered(context.options), Ordered, "test")
'''

#: A module whose import leaves a file behind and then fails: it must never be imported.
TRIPWIRE_MODULE = '''
import pathlib
pathlib.Path({marker!r}).write_text("imported")
raise RuntimeError("this plugin must never be imported")
'''


def unique(prefix: str) -> str:
    """A module name no other test uses (sys.modules is process-wide)."""
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def write_distribution(folder: Path, distribution: str, entry_points: dict[str, dict[str, str]],
                       modules: dict[str, str] | None = None, version: str = "1.0") -> Path:
    """Write ``distribution`` (its modules and dist-info) into ``folder``; returns ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, source in (modules or {}).items():
        (folder / f"{name}.py").write_text(source, encoding="utf-8")
    info = folder / f"{distribution.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {version}\n",
                                   encoding="utf-8")
    lines = []
    for group, eps in entry_points.items():
        lines.append(f"[{group}]")
        lines += [f"{name} = {value}" for name, value in eps.items()]
        lines.append("")
    (info / "entry_points.txt").write_text("\n".join(lines), encoding="utf-8")
    return folder
