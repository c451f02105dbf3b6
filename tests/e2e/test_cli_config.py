"""``hlmem --config``, ``HLMEM_CONFIG``, ``hlmem config show`` and ``config path``, run as a user runs them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support.cli import HLMEM, cli_env, run_cli  # noqa: E402

pytestmark = pytest.mark.skipif(HLMEM is None, reason="the hlmem console script is not installed")

SECRET = "sk-live-4b7c9d1e3f5a7b9c0d2e4f6a8b0c1d3e"
CONFIG = """db = "stores/agent.db"
embedder = "hash"
[llm]
provider = "openai"
model = "gpt-4o-mini"
[budget]
cost_per_day = 2.0
"""


def env_without_db(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = cli_env(tmp_path / "unused.db", **extra)
    del env["HLMEM_DB"]
    return env


@pytest.fixture
def config(tmp_path: Path) -> Path:
    folder = tmp_path / "conf"
    folder.mkdir()
    path = folder / "hlmem.toml"
    path.write_text(CONFIG, encoding="utf-8")
    return path


def test_config_show_json_gives_every_value_its_source_and_masks_keys(tmp_path: Path, config: Path) -> None:
    env = env_without_db(tmp_path, OPENAI_API_KEY=SECRET, DASHSCOPE_API_KEY="changeme", HLMEM_LLM_MODEL="gpt-env")
    run = run_cli(tmp_path / "x.db", ["--config", str(config), "--embedder", "none", "config", "show", "--json"],
                  env=env)
    assert SECRET not in run.out + run.err and SECRET[:8] not in run.out + run.err and "changeme" not in run.out
    data = run.json()
    assert data["config_file"] == {"path": str(config), "origin": "--config",
                                   "default": data["config_file"]["default"]}
    settings = data["settings"]
    assert settings["db"] == {"value": str(config.parent / "stores" / "agent.db"), "source": f"{config}:db"}
    assert settings["llm"] == {"value": "openai", "source": f"{config}:llm.provider"}
    assert settings["llm_model"] == {"value": "gpt-env", "source": "env HLMEM_LLM_MODEL"}
    assert settings["embedder"] == {"value": "none", "source": "argument --embedder"}
    assert settings["budget"]["value"]["cost_per_day"] == 2.0 and settings["budget"]["source"] == f"{config}:budget"
    assert settings["provenance"] == {"value": "enforce", "source": "default"}
    secrets = {s["variable"]: s for s in data["secrets"]}
    assert secrets["OPENAI_API_KEY"] == {"variable": "OPENAI_API_KEY", "status": "present", "used_by": ["llm"]}
    assert secrets["DASHSCOPE_API_KEY"]["status"] == "placeholder"
    assert secrets["JINA_API_KEY"]["status"] == "absent"


def test_config_show_text_names_the_file_values_and_sources(tmp_path: Path, config: Path) -> None:
    env = env_without_db(tmp_path, OPENAI_API_KEY=SECRET, HLMEM_CONFIG=str(config))
    run = run_cli(tmp_path / "x.db", ["--db", "/elsewhere/m.db", "config", "show"], env=env)
    assert run.code == 0, run
    assert SECRET not in run.out + run.err and SECRET[:8] not in run.out + run.err
    lines = run.out.splitlines()
    assert lines[0] == f"config file: {config} (from HLMEM_CONFIG)"
    assert "db = /elsewhere/m.db    [argument --db]" in lines
    assert f"llm_model = gpt-4o-mini    [{config}:llm.model]" in lines
    assert f"budget.cost_per_day = 2.0    [{config}:budget]" in lines
    assert "rerank = null    [default]" in lines
    assert "  OPENAI_API_KEY: present (used by llm)" in lines


def test_without_a_config_file_show_says_none_and_path_gives_the_default(tmp_path: Path) -> None:
    env = env_without_db(tmp_path)
    run = run_cli(tmp_path / "x.db", ["config", "show"], env=env)
    assert run.code == 0, run
    default = Path(env["XDG_CONFIG_HOME"]) / "hlmem" / "hlmem.toml"
    assert run.out.splitlines()[0] == f"config file: none (looked for {default})"
    path = run_cli(tmp_path / "x.db", ["config", "path"], env=env)
    assert (path.code, path.out.strip()) == (0, str(default)) and "no config file there" in path.err


def test_commands_use_the_config_file(tmp_path: Path, config: Path) -> None:
    env = env_without_db(tmp_path)
    added = run_cli(tmp_path / "x.db", ["--config", str(config), "remember", "--subject", "用户", "--predicate",
                                        "works_in", "--value", "杭州", "--json"], env=env)
    assert added.code == 0, added
    store = config.parent / "stores" / "agent.db"
    assert store.is_file()  # the file's db, relative to the file
    stats = run_cli(tmp_path / "x.db", ["stats", "--json"], env={**env, "HLMEM_CONFIG": str(config)}).json()
    assert stats["db"] == str(store) and stats["claims"] >= 1
    path = run_cli(tmp_path / "x.db", ["--config", str(config), "config", "path"], env=env)
    assert path.out.strip() == str(config)


@pytest.mark.parametrize(("text", "expected"), [
    ("embedder = \n", "not valid TOML: line 1, column 12"),
    ('colour = "red"\n', "unknown key 'colour' in"),
    (f'[llm]\napi_key = "{SECRET}"\n', "llm.api_key in"),
])
def test_a_bad_config_file_is_one_error_line(tmp_path: Path, config: Path, text: str, expected: str) -> None:
    config.write_text(text, encoding="utf-8")
    for command in ("stats", "demo", "config"):  # every command that needs the settings: demo's store too
        argv = ["--config", str(config), command] + (["show"] if command == "config" else [])
        run = run_cli(tmp_path / "x.db", argv, env=env_without_db(tmp_path))
        assert run.code == 1 and run.out == "", run
        assert run.err.startswith("error: ") and expected in run.err and len(run.err.splitlines()) == 1, run.err
        assert SECRET not in run.err and "Traceback" not in run.err


def test_a_missing_named_config_file_is_an_error(tmp_path: Path) -> None:
    missing = tmp_path / "missing.toml"
    for argv, env in ((["--config", str(missing), "config", "show"], env_without_db(tmp_path)),
                      (["stats"], env_without_db(tmp_path, HLMEM_CONFIG=str(missing)))):
        run = run_cli(tmp_path / "x.db", argv, env=env)
        assert run.code == 1 and f"{missing}" in run.err and "does not exist" in run.err, run
    assert not list(tmp_path.glob("*.db"))  # nothing was opened


def test_the_json_output_is_json_even_with_odd_values(tmp_path: Path, config: Path) -> None:
    config.write_text('[llm]\nprovider = "local"\nmodel = "m\\u001b[31m"\n', encoding="utf-8")
    run = run_cli(tmp_path / "x.db", ["--config", str(config), "config", "show", "--json"],
                  env=env_without_db(tmp_path))
    assert json.loads(run.out)["settings"]["llm_model"]["value"] == "m\x1b[31m"
    text = run_cli(tmp_path / "x.db", ["--config", str(config), "config", "show"], env=env_without_db(tmp_path))
    assert "\x1b" not in text.out  # a control character is shown, never acted on
