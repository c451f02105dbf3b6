"""Layering, enforced by an AST walk: adapters > application > domain; plugins see only the application.

Every import counts, including those under ``TYPE_CHECKING`` and ``importlib.import_module("…")``
with a literal name: a type-only import of numpy in the application still couples it to numpy.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from attrs import frozen

ROOT = Path(__file__).resolve().parents[1]
#: Folder -> import package (pyproject's [tool.setuptools.package-dir]; adapters/_root is ``hlmem``).
LAYERS = {"domain": "hlmem.domain", "application": "hlmem.application", "adapters": "hlmem.adapters",
          "plugins": "hlmem.plugins"}
BARE = frozenset(LAYERS)
STDLIB = frozenset(sys.stdlib_module_names)

#: Third-party distributions each layer may import (the rest of its imports must be stdlib or hlmem).
THIRD_PARTY = {"hlmem.domain": {"attrs"}, "hlmem.application": {"attrs"}, "hlmem.plugins": set()}
#: hlmem packages each layer may import.
INTERNAL = {
    "hlmem.domain": ("hlmem.domain",),
    "hlmem.application": ("hlmem.domain", "hlmem.application"),
    "hlmem.plugins": ("hlmem.application", "hlmem.plugins"),
}
#: Named in the style guide: never in the application, not even for typing.
INFRASTRUCTURE = ("numpy", "apsw", "httpx", "jieba", "cattrs", "dependency_injector", "sqlite_vec", "click", "rich",
                  "numba", "snowballstemmer")


@frozen
class Import:
    """One imported module name, where it was imported."""

    module: str
    path: Path
    line: int

    def __str__(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line} imports {self.module}"


@functools.cache
def _parse(source: str, filename: str) -> ast.Module:
    """A module's tree, parsed once per run (several checks walk every file; none changes a tree)."""
    return ast.parse(source, filename=filename)


def module_name(path: Path) -> str:
    """Dotted module name of a file under one of the layer folders."""
    rel = path.relative_to(ROOT)
    folder, *rest = rel.parts
    if folder == "adapters" and rest and rest[0] == "_root":
        package, rest = "hlmem", rest[1:]
    else:
        package = LAYERS[folder]
    parts = [*rest[:-1], rest[-1].removesuffix(".py")]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([package, *parts])


def imports_of(source: str, path: Path, module: str) -> Iterator[Import]:
    """Every module ``source`` imports, relative imports resolved against ``module``."""
    tree = _parse(source, str(path))
    is_package = path.name == "__init__.py"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(alias.name, path, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base if is_package else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            yield Import(target, path, node.lineno)
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name in {"import_module", "__import__"} and node.args and isinstance(node.args[0], ast.Constant) \
                    and isinstance(node.args[0].value, str) and not node.args[0].value.startswith("."):
                yield Import(node.args[0].value, path, node.lineno)


def files(folder: str) -> list[Path]:
    return sorted(p for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts)


@functools.cache
def all_imports(folder: str) -> tuple[Import, ...]:
    out: list[Import] = []
    for path in files(folder):
        out.extend(imports_of(path.read_text(encoding="utf-8"), path, module_name(path)))
    return tuple(out)


def violations(layer: str, found: Sequence[Import]) -> list[str]:
    """Imports that ``layer`` may not make."""
    bad = []
    for imp in found:
        top = imp.module.split(".")[0]
        if top == "hlmem":
            allowed = imp.module in INTERNAL[layer] or imp.module.startswith(tuple(p + "." for p in INTERNAL[layer]))
            if not allowed:
                bad.append(str(imp))
        elif top not in STDLIB and top not in THIRD_PARTY[layer]:
            bad.append(str(imp))
    return bad


# --- the checker itself can fail ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("layer", "source", "flagged"),
    [
        ("hlmem.domain", "import numpy", True),
        ("hlmem.domain", "from hlmem.application.ports import Clock", True),
        ("hlmem.domain", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import apsw", True),
        ("hlmem.domain", "from attrs import frozen\nimport re\nfrom hlmem.domain.events import Scope", False),
        ("hlmem.domain", "from ..adapters.inmemory import store", True),
        ("hlmem.domain", "from . import events", False),
        ("hlmem.application", "import importlib\nimportlib.import_module('httpx')", True),
        ("hlmem.application", "from hlmem.adapters.inmemory.store import InMemoryStorage", True),
        ("hlmem.application", "import hlmem", True),
        ("hlmem.application", "from hlmem.domain import errors", False),
        ("hlmem.plugins", "from hlmem.domain.errors import HlmemError", True),
        ("hlmem.plugins", "import attrs", True),
        ("hlmem.plugins", "from importlib.metadata import entry_points\nfrom hlmem.application.ports import Embedder",
         False),
    ],
)
def test_the_checker_flags_what_it_should(layer: str, source: str, flagged: bool) -> None:
    folder = {v: k for k, v in LAYERS.items()}[layer]
    path = ROOT / folder / "probe.py"
    found = list(imports_of(source, path, module_name(path)))
    assert bool(violations(layer, found)) is flagged, found


def test_the_walk_sees_the_code() -> None:
    for folder in ("domain", "application", "adapters"):
        assert len(files(folder)) >= 5, folder
    assert any(i.module == "hlmem.domain.events" for i in all_imports("application"))
    assert any(i.module == "apsw" for i in all_imports("adapters"))


# --- the layers ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("folder", "layer"), [("domain", "hlmem.domain"), ("application", "hlmem.application"),
                                               ("plugins", "hlmem.plugins")])
def test_layer_imports_only_what_it_may(folder: str, layer: str) -> None:
    assert violations(layer, all_imports(folder)) == []


@pytest.mark.parametrize("name", INFRASTRUCTURE)
def test_application_and_domain_never_import_infrastructure(name: str) -> None:
    found = [str(i) for folder in ("domain", "application") for i in all_imports(folder)
             if i.module == name or i.module.startswith(name + ".")]
    assert found == []


@pytest.mark.parametrize("folder", ["domain", "application", "adapters", "plugins", "tests", "benchmarks"])
def test_no_module_imports_the_bare_folder_names(folder: str) -> None:
    if not (ROOT / folder).is_dir():
        pytest.skip(f"no {folder}/")
    bad = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        tree = _parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            bad += [f"{path.relative_to(ROOT)}:{node.lineno} imports {n}" for n in names if n.split(".")[0] in BARE]
    assert bad == []


def test_adapters_root_is_the_hlmem_package() -> None:
    assert module_name(ROOT / "adapters" / "_root" / "__init__.py") == "hlmem"
    assert not (ROOT / "__init__.py").exists()  # a root __init__ would confuse pytest's rootdir logic


# --- the bare names are not importable ----------------------------------------------------------


def test_importing_hlmem_does_not_register_bare_names() -> None:
    import hlmem
    import hlmem.adapters.memory_api  # noqa: F401  (pulls in every layer)

    assert hlmem.Memory is not None
    assert [name for name in BARE if name in sys.modules] == []


def test_bare_names_are_not_importable_outside_the_repository(tmp_path: Path) -> None:
    code = (
        "import importlib, sys\n"
        "import hlmem, hlmem.domain, hlmem.application, hlmem.adapters.memory_api\n"
        "assert not [n for n in ('domain', 'application', 'adapters', 'plugins') if n in sys.modules]\n"
        "for name in ('domain', 'application', 'adapters', 'plugins'):\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except ModuleNotFoundError:\n"
        "        continue\n"
        "    raise SystemExit(f'{name} is importable')\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_import_domain_fails_from_a_temp_dir(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", "import domain"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode != 0
    assert "ModuleNotFoundError" in done.stderr


# --- no import cycles ---------------------------------------------------------------------------
#
# Every import counts here too, function-level and ``TYPE_CHECKING`` ones included: the cycle
# between the SQLite store and its migrations hid in function-level imports (each migration
# imported the feature module whose DDL it ran), and a type-only import of a module that imports
# you back is the same coupling waiting for its first runtime use. ``from pkg import name`` is an
# edge to ``pkg.name`` when that is a module, else to ``pkg``; a package's own ``__init__`` (a
# docstring here) is not an edge from its submodules.


def import_graph(sources: dict[str, tuple[str, Path]]) -> dict[str, set[str]]:
    """Module -> the hlmem modules it imports, for ``sources`` (module name -> (source, path))."""
    graph: dict[str, set[str]] = {name: set() for name in sources}
    for name, (source, path) in sources.items():
        tree = _parse(source, str(path))
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = next(imports_of(ast.unparse(node), path, name)).module
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in sources else base for a in node.names]
            elif isinstance(node, ast.Import) or (isinstance(node, ast.Call) and _is_import_call(node)):
                targets = [i.module for i in imports_of(ast.unparse(node), path, name)]
            for target in targets:
                if target in sources and target != name and not name.startswith(target + "."):
                    graph[name].add(target)
    return graph


def _is_import_call(node: ast.Call) -> bool:
    func = node.func
    return (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)) in {"import_module",
                                                                                              "__import__"}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def hlmem_sources() -> dict[str, tuple[str, Path]]:
    return {module_name(path): (path.read_text(encoding="utf-8"), path)
            for folder in LAYERS for path in files(folder)}


@pytest.mark.parametrize(
    ("modules", "cyclic"),
    [
        ({"hlmem.a": "from hlmem import b", "hlmem.b": "import hlmem.a"}, True),
        ({"hlmem.a": "def f():\n    from hlmem.b import x", "hlmem.b": "from hlmem.c import y", "hlmem.c": "import hlmem.a"},
         True),
        ({"hlmem.a": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from hlmem.b import B",
          "hlmem.b": "from hlmem.a import A"}, True),
        ({"hlmem.p.a": "from hlmem.p import b", "hlmem.p.b": "from . import c", "hlmem.p.c": "from .a import f"}, True),
        ({"hlmem.a": "from hlmem import b", "hlmem.b": "from hlmem import c", "hlmem.c": "import os"}, False),
        ({"hlmem.p": "", "hlmem.p.a": "from hlmem.p import b", "hlmem.p.b": "import json"}, False),
    ],
)
def test_the_cycle_check_finds_a_synthetic_cycle(modules: dict[str, str], cyclic: bool) -> None:
    sources = {name: (source, ROOT / "adapters" / f"{name.replace('.', '_')}.py") for name, source in modules.items()}
    assert bool(cycles(import_graph(sources))) is cyclic


def test_no_import_cycles() -> None:
    graph = import_graph(hlmem_sources())
    assert len(graph) > 100 and graph["hlmem.adapters.sqlite.store"]  # the walk sees the code
    assert cycles(graph) == []


# --- the front ends are siblings over Memory (ADR 0076) -------------------------------------------
#
# The CLI, REST (adapters/server), MCP and Hermes each answer with the wire format
# (adapters/wire/) and call the one ``Memory``; none imports another front end's modules. One
# exception, by design: a CLI command launches a server (``hlmem serve``, ``hlmem mcp``,
# ``hlmem hermes install``), so the CLI may import a server's launch function, but only inside
# the command's function body (lazily: ``hlmem --help`` loads no web stack), never at module level.

FRONT_ENDS = ("cli", "server", "mcp", "hermes")


def front_end_of(module: str) -> str | None:
    """The front end a module belongs to (``hlmem.adapters.mcp.calls`` -> ``mcp``), or None."""
    parts = module.split(".")
    if parts[:2] == ["hlmem", "adapters"] and len(parts) > 2 and parts[2] in FRONT_ENDS:
        return parts[2]
    return None


def front_end_crossings(source: str, path: Path, module: str) -> list[str]:
    """Imports in ``source`` of another front end's modules that the rule above forbids."""
    home = front_end_of(module)
    if home is None:
        return []
    tree = _parse(source, str(path))
    lazy = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
            for n in ast.walk(f)}
    bad = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Import, ast.ImportFrom, ast.Call)):
            continue
        for imp in imports_of(ast.unparse(node), path, module):
            other = front_end_of(imp.module)
            if other is None or other == home:
                continue
            if home == "cli" and id(node) in lazy:
                continue  # the CLI launching a server, inside its command
            bad.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {imp.module}")
    return bad


@pytest.mark.parametrize(
    ("module", "source", "flagged"),
    [
        ("hlmem.adapters.server.routes_read", "from hlmem.adapters.cli.render import claim_dict", True),
        ("hlmem.adapters.mcp.server", "def f():\n    from hlmem.adapters.cli import render", True),
        ("hlmem.adapters.hermes.tools", "from hlmem.adapters.mcp import shapes", True),
        ("hlmem.adapters.cli.main", "from hlmem.adapters.server.app import create_app", True),
        ("hlmem.adapters.cli.serve_commands", "def serve():\n    from hlmem.adapters.server.app import create_app",
         False),
        ("hlmem.adapters.server.routes_read", "from hlmem.adapters.wire.claims import claim_dict", False),
        ("hlmem.adapters.mcp.server", "from hlmem.adapters.mcp import shapes", False),
        ("hlmem.adapters.memory_api", "from hlmem.adapters.cli import render", False),
    ],
)
def test_the_front_end_check_flags_what_it_should(module: str, source: str, flagged: bool) -> None:
    path = ROOT / "adapters" / "probe.py"
    assert bool(front_end_crossings(source, path, module)) is flagged


def test_front_ends_never_import_one_another() -> None:
    bad = []
    for path in files("adapters"):
        name = module_name(path)
        if front_end_of(name) is not None:
            bad += front_end_crossings(path.read_text(encoding="utf-8"), path, name)
    assert bad == []


def test_the_wire_format_imports_no_front_end() -> None:
    """The shapes sit below every front end: adapters/wire/ imports none of them."""
    found = [str(i) for i in all_imports("adapters") if module_name(i.path).startswith("hlmem.adapters.wire")
             and front_end_of(i.module) is not None]
    assert found == [] and any(p.parent.name == "wire" for p in files("adapters"))


# --- the SQL stores (ADR 0056) ------------------------------------------------------------------

#: What only one SQL store may import: its own package and its driver.
STORE_OWN = {"sqlite": ("hlmem.adapters.sqlite", "apsw", "sqlite_vec"), "postgres": ("hlmem.adapters.postgres", "psycopg")}
#: Code both stores share, so it may import neither store nor either driver.
SHARED_BY_STORES = ("conflict_codec.py",)


def _is_under(module: str, prefixes: Sequence[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def store_crossings(found: Sequence[Import], forbidden: Sequence[str]) -> list[str]:
    """Imports in ``found`` of any of the ``forbidden`` packages."""
    return [str(i) for i in found if _is_under(i.module, forbidden)]


@pytest.mark.parametrize(("source", "flagged"), [
    ("from hlmem.adapters.sqlite.conflict_rows import load_conflicts", True),
    ("import apsw", True),
    ("from hlmem.adapters.sqlite_extra import x", False),
    ("from hlmem.adapters.conflict_codec import decode_conflict", False),
])
def test_the_store_check_flags_what_it_should(source: str, flagged: bool) -> None:
    path = ROOT / "adapters" / "postgres" / "probe.py"
    found = list(imports_of(source, path, module_name(path)))
    assert bool(store_crossings(found, STORE_OWN["sqlite"])) is flagged, found


@pytest.mark.parametrize(("store", "other"), [("postgres", "sqlite"), ("sqlite", "postgres")])
def test_the_sql_stores_never_import_one_another(store: str, other: str) -> None:
    """adapters/postgres never imports SQLite's package or apsw, nor adapters/sqlite PostgreSQL's or psycopg;
    what they share lives in neutral modules of adapters/ (adapters/replay_targets.py chooses between them)."""
    found = [i for i in all_imports("adapters") if i.path.is_relative_to(ROOT / "adapters" / store)]
    assert found and store_crossings(found, STORE_OWN[other]) == []


@pytest.mark.parametrize("name", SHARED_BY_STORES)
def test_what_the_stores_share_imports_neither_store(name: str) -> None:
    found = [i for i in all_imports("adapters") if i.path == ROOT / "adapters" / name]
    assert found and store_crossings(found, STORE_OWN["sqlite"] + STORE_OWN["postgres"]) == []


def test_the_postgres_store_loads_without_sqlite() -> None:
    """Importing PostgreSQL's store and backend, through every neutral module they use, loads neither
    apsw nor adapters/sqlite (the AST walk above sees direct imports only)."""
    script = ("import sys; import hlmem.adapters.postgres.store, hlmem.adapters.postgres.backend; "
              "print(sorted(m for m in sys.modules if m == 'apsw' or m.startswith('hlmem.adapters.sqlite')))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "[]"
