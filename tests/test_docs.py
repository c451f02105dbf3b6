"""Docs stay in step with the code: every port, event type, CLI command and ADR is documented."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hlmem.adapters.cli.main import cli
from hlmem.adapters.serialization import TAGS
from hlmem.application import ports

ROOT = Path(__file__).resolve().parents[1]
#: Every port (each Protocol the ports package exports: roles and what each service takes).
PORTS = sorted(name for name in ports.__all__ if getattr(getattr(ports, name), "_is_protocol", False))


def _text(name: str) -> str:
    return (ROOT / "docs" / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("port", PORTS)
def test_every_port_is_in_the_architecture_doc(port: str) -> None:
    assert hasattr(ports, port)
    assert f"`{port}`" in _text("architecture.md")


@pytest.mark.parametrize("tag", sorted(TAGS))
def test_every_event_tag_is_documented(tag: str) -> None:
    assert f"`{tag}`" in _text("events.md")
    assert f"`{TAGS[tag].__name__}`" in _text("events.md")


@pytest.mark.parametrize("command", sorted(cli.commands))
def test_every_cli_command_is_documented(command: str) -> None:
    assert re.search(rf"^\| `{command}\b", _text("cli.md"), re.MULTILINE), command


def test_adrs_are_numbered_and_name_the_code_they_govern() -> None:
    adrs = sorted((ROOT / "adr").glob("*.md"))
    assert adrs
    numbers = [int(p.name[:4]) for p in adrs]
    assert len(set(numbers)) == len(numbers)
    for path in adrs:
        assert re.match(r"^\d{4}-[a-z0-9-]+\.md$", path.name), path.name
        text = path.read_text(encoding="utf-8")
        assert "Status:" in text and "## Decision" in text, path.name
        assert re.search(r"(?i)governs", text), f"{path.name} does not name the code it governs"


def test_readme_opens_with_the_two_setup_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)```", readme, re.S)
    assert block is not None
    commands = [line for line in block.group(1).splitlines() if line.strip()]
    assert commands == ["pip install -e '.[test]' && hlmem demo", "pytest"]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install -e '.[test]' && hlmem demo" in ci and "\npytest\n" in ci


def _plugin_groups() -> list[tuple[str, str]]:
    from hlmem.adapters.settings_sections import ENTRY_POINT_GROUPS

    return sorted(ENTRY_POINT_GROUPS.items())


@pytest.mark.parametrize(("kind", "group"), _plugin_groups())
def test_every_plugin_group_and_its_built_ins_are_in_the_plugins_doc(kind: str, group: str) -> None:
    from hlmem.plugins.builtin import BUILTIN_ENTRY_POINTS

    text = _text("plugins.md")
    assert f"`{group}`" in text and f"`{kind}`" in text
    assert all(f"`{name}`" in text for name in BUILTIN_ENTRY_POINTS[group])


def test_no_merge_conflict_is_left_in_the_docs() -> None:
    # One once landed in docs/architecture.md (the ADR list), unnoticed by every other check.
    marker = re.compile(r"^(<{7}|>{7})( |$)", re.MULTILINE)
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "adr").glob("*.md"))]
    assert [str(f.relative_to(ROOT)) for f in files if marker.search(f.read_text(encoding="utf-8"))] == []
