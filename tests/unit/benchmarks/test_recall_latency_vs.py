"""benchmarks/recall_latency_vs.py lays another revision's folders out as the ``hlmem`` package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))

import recall_latency_vs  # noqa: E402


def test_the_import_root_makes_a_tree_importable_as_hlmem(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "adapters" / "_root").mkdir(parents=True)
    (tree / "adapters" / "_root" / "__init__.py").write_text("WHERE = 'root'\n")
    (tree / "adapters" / "__init__.py").write_text("")
    (tree / "adapters" / "probe.py").write_text("WHERE = 'adapters'\n")
    for folder in ("domain", "application", "plugins"):
        (tree / folder).mkdir()
        (tree / folder / "__init__.py").write_text(f"WHERE = {folder!r}\n")
    root = recall_latency_vs.import_root(tree, tmp_path / "path")
    code = ("import hlmem, hlmem.domain, hlmem.adapters.probe as p; "
            "print(hlmem.WHERE, hlmem.domain.WHERE, p.WHERE, hlmem.__file__.startswith(%r))" % str(root))
    out = subprocess.run([sys.executable, "-c", code], env={"PYTHONPATH": str(root)}, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["root", "domain", "adapters", "True"]
