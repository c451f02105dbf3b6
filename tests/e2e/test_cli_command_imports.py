"""Each command imports what it runs and nothing else (issue 36 item 1, ADR 0079).

What a fresh ``hlmem`` process costs is mostly what it imports; these pin, per command, the heavy
modules it must not load. Asserted on the modules the process holds when it ends (``sys.modules``;
``-X importtime`` also lists imports that failed), never on time. Pinned:

- no command loads the web stack (FastAPI, Starlette, pydantic, PyYAML: dependency-injector probes
  for them, adapters/di.py hides them), the write pipeline's extraction rules unless it extracts,
  or the command modules of other commands;
- ``stats`` loads neither jieba nor the recall service; ``add --defer`` no extraction; only a
  command that cuts Chinese loads jieba, and none loads posseg's tables without extracting.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

WEB = ("fastapi", "starlette", "pydantic", "yaml", "uvicorn", "werkzeug", "httpx")
OTHER_COMMANDS = ("hlmem.adapters.cli.backup_commands", "hlmem.adapters.cli.episode_commands",
                  "hlmem.adapters.cli.mcp_commands", "hlmem.adapters.cli.ops_commands")
EXTRACTION = ("hlmem.application.extraction", "jieba.posseg")


RUN = """
import atexit, sys
listing = sys.argv.pop(1)
atexit.register(lambda: open(listing, "w").write("\\n".join(sorted(sys.modules))))
from hlmem.adapters.cli.main import main
main()
"""


def imported(db: Path, *args: str) -> set[str]:
    """The modules ``hlmem --db DB --embedder hash --no-server ARGS`` holds when it ends."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HLMEM_")}
    env["PYTHONIOENCODING"] = "utf-8"
    listing = db.parent / "modules.txt"
    done = subprocess.run([sys.executable, "-c", RUN, str(listing), "--db", str(db), "--embedder", "hash",
                           "--no-server", *args], capture_output=True, text=True, timeout=180, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    return set(listing.read_text().splitlines())


def loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("imports") / "store.db"
    imported(db, "add", "我现在住在杭州，在一家公司做设计。")
    return db


def test_stats_loads_no_segmenter_no_recall_and_no_web_stack(store: Path) -> None:
    modules = imported(store, "stats")
    assert "hlmem.adapters.sqlite.store" in modules  # the check sees the store being opened
    assert loaded(modules, (*WEB, *OTHER_COMMANDS, *EXTRACTION, "jieba", "hlmem.application.recall.service")) == []


def test_add_defer_loads_no_extraction_and_no_web_stack(store: Path) -> None:
    modules = imported(store, "add", "--defer", "我最近在学钢琴。")
    assert "jieba" in modules  # indexed at once: the text is cut
    assert loaded(modules, (*WEB, *OTHER_COMMANDS, *EXTRACTION)) == []


def test_recall_loads_no_extraction_and_no_web_stack(store: Path) -> None:
    modules = imported(store, "recall", "住在哪里")
    assert "hlmem.application.recall.service" in modules and "jieba" in modules
    assert loaded(modules, (*WEB, *OTHER_COMMANDS, *EXTRACTION)) == []


def test_the_web_stack_stays_importable_after_the_container() -> None:
    """adapters/di.py hides FastAPI and pydantic from dependency-injector's import only."""
    code = ("import sys; import hlmem.adapters.container; assert 'fastapi' not in sys.modules; "
            "import fastapi, pydantic, yaml; from dependency_injector import providers; print('ok')")
    pytest.importorskip("fastapi")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr[-2000:]
