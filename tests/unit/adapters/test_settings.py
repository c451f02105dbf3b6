"""Settings: one typed, frozen object, read once from the environment or a mapping, validated alike."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import attrs
import pytest

from hlmem.adapters.memory_api import Memory
from hlmem.adapters.settings import ENV, Settings, process_setting
from hlmem.application.ranking import RankingConfig
from hlmem.domain.errors import ConfigurationError
from hlmem.domain.forgetting import ForgottenContent

ROOT = Path(__file__).resolve().parents[3]
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def test_every_variable_reads_into_its_field() -> None:
    env = {"HLMEM_DB": " /tmp/m.db ", "HLMEM_EMBEDDER": "HASH", "HLMEM_LLM": "local", "HLMEM_LLM_MODEL": "m1",
           "HLMEM_LLM_BASE_URL": "http://127.0.0.1:1", "HLMEM_RERANK": "dashscope", "HLMEM_RERANK_MODEL": "r1",
           "HLMEM_RERANK_BASE_URL": "http://127.0.0.1:2", "HLMEM_PROVENANCE": "observe",
           "HLMEM_EXTRACTOR": "Union", "HLMEM_BLOCK_REINGEST": "off", "HLMEM_RANKING": '{"speaker_weight": 0}', "HLMEM_RECALL_PARALLEL": "0",
           "HLMEM_NUMBA": "no", "HLMEM_DEBUG": "1", "HLMEM_EXPERIENCE": '{"min_support": 8, "z": 2}',
           "HLMEM_RELATIONS": "1", "HLMEM_VECTORS": "Worker"}
    assert set(env) == set(ENV.values())
    s = Settings.from_env(env)
    assert (s.db, s.embedder, s.llm, s.llm_model, s.llm_base_url) == ("/tmp/m.db", "hash", "local", "m1",
                                                                        "http://127.0.0.1:1")
    assert (s.rerank, s.rerank_model, s.rerank_base_url) == ("dashscope", "r1", "http://127.0.0.1:2")
    assert s.provenance == "observe" and s.ranking == RankingConfig(speaker_weight=0) and s.extractor == "union"
    assert (s.block_reingest, s.recall_parallel, s.numba, s.debug) == (False, False, False, True)
    assert (s.experience.min_support, s.experience.z, s.experience.probation) == (8, 2, 0)
    assert s.relations.enabled and not Settings.from_env({"HLMEM_RELATIONS": "off"}).relations.enabled
    assert s.vectors == "worker"


def test_unset_and_blank_variables_leave_the_defaults() -> None:
    assert Settings.from_env({}) == Settings() == Settings.from_env({v: "  " for v in ENV.values()})
    assert Settings().block_reingest and Settings().recall_parallel and not Settings().debug
    assert Settings.from_env({"HLMEM_BLOCK_REINGEST": "yes", "HLMEM_UNRELATED": "x"}).block_reingest


def test_every_bad_variable_is_reported_at_once() -> None:
    env = {"HLMEM_EMBEDDER": "bogus", "HLMEM_PROVENANCE": "strict", "HLMEM_RANKING": "{not json"}
    with pytest.raises(ExceptionGroup) as info:
        Settings.from_env(env)
    messages = [str(e) for e in info.value.exceptions]
    assert all(isinstance(e, ConfigurationError) for e in info.value.exceptions)
    assert len(messages) == 3
    for variable in env:
        assert any(variable in m for m in messages), (variable, messages)


def test_one_bad_variable_is_one_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="unknown ranking setting.*HLMEM_RANKING"):
        Settings.from_env({"HLMEM_RANKING": '{"nope": 1}'})


def test_a_mapping_is_validated_like_the_environment() -> None:
    assert Settings.from_mapping({"embedder": "hash", "block_reingest": False, "ranking": {"speaker_weight": 0}}) \
        == Settings.from_env({"HLMEM_EMBEDDER": "hash", "HLMEM_BLOCK_REINGEST": "0",
                              "HLMEM_RANKING": '{"speaker_weight": 0}'})
    with pytest.raises(ExceptionGroup) as info:
        Settings.from_mapping({"embedder": "bogus", "block_reingest": "maybe", "colour": "red"}, source="hlmem.toml")
    messages = " | ".join(str(e) for e in info.value.exceptions)
    assert "colour" in messages and "hlmem.toml: embedder" in messages and "hlmem.toml: block_reingest" in messages
    assert Settings.from_mapping({"lifecycle": {"temporal_ttl": "3d"}}).lifecycle.temporal_ttl.days == 3


def test_settings_are_frozen() -> None:
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        Settings().db = "x"  # type: ignore[misc]


def test_a_process_setting_is_read_alone() -> None:
    assert process_setting("debug", {"HLMEM_DEBUG": "1", "HLMEM_RANKING": "{broken"}) is True
    assert process_setting("numba", {}) is True and process_setting("numba", {"HLMEM_NUMBA": "off"}) is False


def test_memory_takes_its_settings_and_explicit_arguments_win() -> None:
    settings = Settings.from_mapping({"block_reingest": True, "ranking": {"speaker_weight": 0}, "embedder": "none"})
    with Memory(":memory:", now=T0, settings=settings) as mem:
        assert mem.embedder_name == "none" and mem._container.recall()._ranking.speaker_weight == 0
        ev = mem.add("a note", extract=False)
        mem.forget(ev.id)
        with pytest.raises(ForgottenContent):
            mem.add("a note", extract=False)
    with Memory(":memory:", now=T0, settings=settings, embedder="hash", block_reingest=False,
                ranking={"speaker_weight": 0.2}) as mem:
        assert mem.embedder_name == "hash" and mem._container.recall()._ranking.speaker_weight == 0.2
        ev = mem.add("a note", extract=False)
        mem.forget(ev.id)
        mem.add("a note", extract=False)  # blocking is off: the argument won


def test_the_config_table_lists_exactly_the_fields() -> None:
    text = (ROOT / "docs" / "config.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| (`HLMEM_\w+`|—) \|", text, re.MULTILINE)
    assert [name for name, _ in rows] == [a.name for a in attrs.fields(Settings)]
    assert {name: var.strip("`") for name, var in rows if var != "—"} == dict(ENV)
