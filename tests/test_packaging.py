"""pyproject.toml agrees with the folders: every package on disk is listed, and every listed one exists."""

from __future__ import annotations

import importlib
import importlib.metadata
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYER_FOLDERS = ("domain", "application", "adapters", "plugins")
EXAMPLES = ROOT / "plugins" / "examples"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]


def package_dirs() -> dict[str, Path]:
    """``[tool.setuptools.package-dir]``: package name -> folder."""
    return {name: ROOT / folder for name, folder in SETUPTOOLS["package-dir"].items()}


def folder_of(package: str) -> Path:
    """Where setuptools looks for ``package``: the longest mapped prefix, then subfolders."""
    mapping = package_dirs()
    parts = package.split(".")
    for cut in range(len(parts), 0, -1):
        prefix = ".".join(parts[:cut])
        if prefix in mapping:
            return mapping[prefix].joinpath(*parts[cut:])
    return ROOT.joinpath(*parts)


def package_of(folder: Path) -> str | None:
    """The dotted name a folder maps to (the most specific mapping wins), or None if unmapped."""
    best: tuple[int, str] | None = None
    for name, mapped in package_dirs().items():
        try:
            rel = folder.relative_to(mapped)
        except ValueError:
            continue
        depth = len(mapped.parts)
        if best is None or depth > best[0]:
            best = (depth, ".".join([name, *rel.parts]))
    return None if best is None else best[1]


def on_disk() -> dict[Path, str | None]:
    found = {}
    for layer in LAYER_FOLDERS:
        for init in (ROOT / layer).rglob("__init__.py"):
            # plugins/examples holds other distributions (their own pyproject), not hlmem packages.
            if "__pycache__" not in init.parts and EXAMPLES not in init.parents:
                found[init.parent] = package_of(init.parent)
    return found


def test_the_mapping_is_read_as_setuptools_reads_it() -> None:
    assert package_of(ROOT / "adapters" / "_root") == "hlmem"
    assert package_of(ROOT / "adapters" / "sqlite") == "hlmem.adapters.sqlite"
    assert folder_of("hlmem.adapters.cli") == ROOT / "adapters" / "cli"
    assert folder_of("hlmem") == ROOT / "adapters" / "_root"


def test_every_package_folder_is_listed() -> None:
    listed = set(SETUPTOOLS["packages"])
    missing = {str(folder.relative_to(ROOT)): name for folder, name in on_disk().items() if name not in listed}
    assert missing == {}, "add these to [tool.setuptools] packages"


def test_every_listed_package_exists() -> None:
    absent = [name for name in SETUPTOOLS["packages"] if not (folder_of(name) / "__init__.py").is_file()]
    assert absent == []


def test_the_wheel_claims_only_hlmem() -> None:
    assert {name.split(".")[0] for name in SETUPTOOLS["packages"]} == {"hlmem"}
    assert {name.split(".")[0] for name in SETUPTOOLS["package-dir"]} == {"hlmem"}


@pytest.mark.parametrize("package", SETUPTOOLS["packages"])
def test_listed_packages_import_from_their_folder(package: str) -> None:
    module = importlib.import_module(package)
    assert Path(module.__file__).resolve().parent == folder_of(package).resolve()  # type: ignore[arg-type]


def test_console_script_is_declared() -> None:
    assert PYPROJECT["project"]["scripts"]["hlmem"] == "hlmem.adapters.cli.main:main"
    (script,) = [ep for ep in importlib.metadata.entry_points(group="console_scripts") if ep.name == "hlmem"]
    assert callable(script.load())


#: The plugin groups (hlmem.adapters.settings_sections.ENTRY_POINT_GROUPS), each with built-ins.
PLUGIN_GROUPS = ("hlmem.storage", "hlmem.embedders", "hlmem.llm", "hlmem.rerankers")
DECLARED = [(group, name) for group in PLUGIN_GROUPS for name in sorted(PYPROJECT["project"]["entry-points"][group])]


def hlmem_entry_points(group: str) -> list[importlib.metadata.EntryPoint]:
    return sorted((ep for ep in importlib.metadata.entry_points(group=group) if ep.dist and ep.dist.name == "hlmem"),
                  key=lambda ep: ep.name)


@pytest.mark.parametrize("group", PLUGIN_GROUPS)
def test_declared_plugins_are_installed_entry_points(group: str) -> None:
    declared = PYPROJECT["project"]["entry-points"][group]
    assert {ep.name: ep.value for ep in hlmem_entry_points(group)} == declared, "reinstall: pip install -e ."
    assert declared


def test_the_built_in_names_are_the_presets() -> None:
    from hlmem.adapters.embedders.select import BUILTIN
    from hlmem.adapters.llm.presets import PRESETS as LLM_PRESETS
    from hlmem.adapters.rerank.config import PRESETS as RERANK_PRESETS

    groups = PYPROJECT["project"]["entry-points"]
    assert set(groups["hlmem.embedders"]) == set(BUILTIN)
    assert set(groups["hlmem.llm"]) == set(LLM_PRESETS)
    assert set(groups["hlmem.rerankers"]) == set(RERANK_PRESETS)
    assert set(groups["hlmem.storage"]) == {"sqlite", "memory", "postgres"}


@pytest.mark.parametrize(("group", "name"), DECLARED)
def test_built_in_entry_points_are_plugin_specs(group: str, name: str) -> None:
    from hlmem.plugins.api import PLUGIN_API_VERSION, PluginSpec

    (ep,) = [ep for ep in hlmem_entry_points(group) if ep.name == name]
    spec = ep.load()  # imports the module only: models and HTTP clients are made by the factory
    assert isinstance(spec, PluginSpec) and spec.api_version == PLUGIN_API_VERSION
    module, _, attr = ep.value.partition(":")
    assert getattr(importlib.import_module(module), attr) is spec


def test_the_inspectors_files_are_package_data() -> None:
    import fnmatch

    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"]["hlmem.adapters.server.ui"]
    static = ROOT / "adapters" / "server" / "ui" / "static"
    files = [p.relative_to(static.parent).as_posix() for p in static.iterdir()]
    assert "static/index.html" in files
    left_out = [f for f in files if not any(fnmatch.fnmatch(f, pat) for pat in patterns)]
    assert left_out == [], "add these to [tool.setuptools.package-data] in pyproject.toml"
