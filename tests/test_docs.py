"""Docs stay in step with the code: every port, event type, CLI command and ADR is documented."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hlmem.adapters.cli.main import load_all_commands
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


@pytest.mark.parametrize("command", sorted(load_all_commands()))
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


_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^(```|~~~)")


def _prose_lines(text: str, *, inline_code: bool = False) -> list[str]:
    """The lines outside fenced code blocks; inline code spans dropped unless ``inline_code``."""
    lines, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line.strip()):
            fenced = not fenced
        elif not fenced:
            lines.append(line if inline_code else re.sub(r"`[^`]*`", "", line))
    return lines


def _anchors(path: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, -1, -2 for repeats."""
    seen: dict[str, int] = {}
    found = set()
    for line in _prose_lines(path.read_text(encoding="utf-8"), inline_code=True):
        heading = re.match(r"^#{1,6} (.*)$", line)
        if heading:
            slug = re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-")
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def _broken_links(files: list[Path], root: Path = ROOT) -> list[str]:
    broken = []
    for source in files:
        for line in _prose_lines(source.read_text(encoding="utf-8")):
            for target in _LINK.findall(line):
                if re.match(r"^[a-z]+:", target):
                    continue  # http:, https:, mailto:
                path, _, fragment = target.partition("#")
                dest = (source.parent / path).resolve() if path else source.resolve()
                if not dest.exists():
                    broken.append(f"{source.relative_to(root)}: {target} (no such file)")
                elif fragment and dest.suffix == ".md" and fragment not in _anchors(dest):
                    broken.append(f"{source.relative_to(root)}: {target} (no such heading)")
    return broken


def test_relative_links_in_the_docs_resolve_to_files_and_headings() -> None:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "adr").glob("*.md"))]
    assert _broken_links(files) == []


def test_the_link_check_finds_a_missing_file_and_a_missing_heading(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# Title\n\n## A `code` section\n\n[ok](#a-code-section) [gone](other.md) [bad](#no-such)\n"
        "```\n[in a fence](nowhere.md)\n```\n[out](https://example.org/x.md)\n",
        encoding="utf-8",
    )
    assert _broken_links([page], tmp_path) == [
        "page.md: other.md (no such file)",
        "page.md: #no-such (no such heading)",
    ]


def test_the_benchmarks_index_links_every_page_and_every_page_links_back() -> None:
    index = _text("benchmarks.md")
    pages = sorted((ROOT / "docs" / "benchmarks").glob("*.md"))
    assert pages
    for page in pages:
        assert f"(benchmarks/{page.name})" in index, page.name
        assert "(../benchmarks.md)" in page.read_text(encoding="utf-8"), page.name
