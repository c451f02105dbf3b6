"""Discovery reads metadata only; the static built-in table equals pyproject.toml's entry points."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from support.plugin_dists import TRIPWIRE_MODULE, unique, write_distribution

from hlmem.adapters.settings_sections import ENTRY_POINT_GROUPS
from hlmem.plugins.builtin import BUILTIN_ENTRY_POINTS
from hlmem.plugins.discovery import installed
from hlmem.plugins.registry import Registry

ROOT = Path(__file__).resolve().parents[3]


def test_the_static_table_is_pyprojects_entry_points() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["entry-points"]
    table = {group: dict(eps) for group, eps in BUILTIN_ENTRY_POINTS.items()}
    assert table == {group: declared[group] for group in ENTRY_POINT_GROUPS.values()}


def test_a_source_tree_without_hlmem_metadata_falls_back_to_the_table(tmp_path: Path) -> None:
    found = installed(ENTRY_POINT_GROUPS, path=[str(tmp_path)])  # no distribution at all here
    assert {(f.group, f.name) for f in found} == {(g, n) for g, eps in BUILTIN_ENTRY_POINTS.items() for n in eps}
    assert {(f.distribution, f.version) for f in found} == {("hlmem", "source")}
    reg = Registry(ENTRY_POINT_GROUPS, found=found)
    assert reg.spec("embedder", "hash").kind == "embedder"  # the table's values load like entry points


def test_a_distribution_on_the_path_is_found_with_its_version_and_never_imported(tmp_path: Path) -> None:
    marker = tmp_path / "imported.txt"
    module = unique("tripwire")
    write_distribution(tmp_path / "site", "acme-evil", {"hlmem.rerankers": {"evil": f"{module}:SPEC"},
                                                        "console_scripts": {"x": "y:z"}},
                       {module: TRIPWIRE_MODULE.format(marker=str(marker))}, version="6.6.6")
    found = installed(ENTRY_POINT_GROUPS, path=[str(tmp_path / "site")])
    (evil,) = [f for f in found if f.name == "evil"]
    assert (evil.group, evil.kind, evil.distribution, evil.version) == ("hlmem.rerankers", "reranker", "acme-evil",
                                                                        "6.6.6")
    rows = Registry(ENTRY_POINT_GROUPS, found=found).report()
    assert [r.name for r in rows if not r.allowed] == ["evil"]
    assert module not in sys.modules and not marker.exists()


def test_installing_a_distribution_is_seen_by_the_next_scan(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    assert not [f for f in installed(ENTRY_POINT_GROUPS, path=[str(site)]) if f.distribution != "hlmem"]
    write_distribution(site, "acme-late", {"hlmem.llm": {"late": "late_mod:SPEC"}})
    assert [f.name for f in installed(ENTRY_POINT_GROUPS, path=[str(site)]) if f.distribution == "acme-late"] == \
        ["late"]


def test_the_installed_built_ins_come_from_hlmem_metadata() -> None:
    found = [f for f in installed(ENTRY_POINT_GROUPS) if f.distribution == "hlmem"]
    assert found and all(f.version != "source" for f in found)
