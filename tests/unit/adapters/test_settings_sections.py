"""The ``plugins`` and ``budget`` tables of the settings: validated when made, every mistake named."""

from __future__ import annotations

import pytest

from hlmem.adapters.settings import Settings
from hlmem.adapters.settings_sections import AllowedPlugin, BudgetSettings, PluginSettings, ServerSettings
from hlmem.domain.errors import ConfigurationError

ECHO = {"group": "reranker", "name": "echo", "distribution": "hlmem-echo-reranker"}


def test_a_plugins_table_loads_with_groups_by_short_or_full_name() -> None:
    s = Settings.from_mapping({"plugins": {"allow": [ECHO, {**ECHO, "group": "hlmem.llm", "name": "tiny"}],
                                           "enabled": ["echo", "llm:tiny"], "options": {"echo": {"prefix": ">"}}}})
    assert s.plugins.allow == (AllowedPlugin("hlmem.rerankers", "echo", "hlmem-echo-reranker"),
                               AllowedPlugin("hlmem.llm", "tiny", "hlmem-echo-reranker"))
    assert s.plugins.enabled == ("echo", "llm:tiny") and dict(s.plugins.options["echo"]) == {"prefix": ">"}
    assert Settings().plugins == PluginSettings() and not Settings().budget.limited


@pytest.mark.parametrize(("table", "message"), [
    ({"enabled": "echo"}, "plugins.enabled must be a list"),
    ({"allow": [{**ECHO, "group": "hlmem.tools"}]}, "is not a plugin group"),
    ({"allow": [{"group": "reranker", "name": "echo"}]}, "allow[0].distribution must be a non-empty name"),
    ({"allow": [{**ECHO, "version": 1}]}, "unknown key(s) version"),
    ({"allow": [ECHO, ECHO]}, "names ('hlmem.rerankers', 'echo') more than once"),
    ({"enabled": ["echo", "echo"]}, "names echo more than once"),
    ({"enabled": ["bad name"]}, "is not a plugin name"),
    ({"enabled": ["tools:echo"]}, "is not a plugin name"),
    ({"options": {"echo": {"prefix": ">"}}}, "'echo' is not enabled"),
    ({"enabled": ["echo"], "options": {"echo": 3}}, "plugins.options.echo must be a table"),
    ({"enable": ["echo"]}, "unknown key(s) enable"),
])
def test_a_bad_plugins_table_is_refused_with_what_is_wrong(table: dict, message: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        Settings.from_mapping({"plugins": table}, source="hlmem.toml")
    assert message in str(caught.value) and "hlmem.toml" in str(caught.value)


def test_a_budget_table_loads_and_says_whether_it_limits() -> None:
    s = Settings.from_mapping({"budget": {"requests_per_day": 100, "cost_per_day": 2, "price_book": " p.json "}})
    assert s.budget == BudgetSettings(requests_per_day=100, cost_per_day=2.0, price_book="p.json")
    assert s.budget.limited and isinstance(s.budget.cost_per_day, float)
    assert Settings.from_mapping({"budget": {"cost_per_day": 0}}).budget.limited  # zero: nothing may be spent


@pytest.mark.parametrize(("table", "message"), [
    ({"requests_per_day": -1}, "requests_per_day must be a whole number >= 0"),
    ({"tokens_per_day": 1.5}, "tokens_per_day must be a whole number >= 0"),
    ({"cost_per_day": float("inf")}, "cost_per_day must be a number >= 0"),
    ({"cost_per_day": True}, "cost_per_day must be a number >= 0"),
    ({"price_book": ""}, "price_book must be a file path"),
    ({"reservation_ttl_s": 0}, "reservation_ttl_s must be a positive number"),
    ({"cost_limit": 1}, "unknown key(s) cost_limit"),
])
def test_a_bad_budget_table_is_refused_with_what_is_wrong(table: dict, message: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        Settings.from_mapping({"budget": table})
    assert message in str(caught.value)


def test_bad_plugins_and_budget_tables_are_reported_together() -> None:
    with pytest.raises(ExceptionGroup) as caught:
        Settings.from_mapping({"plugins": {"enabled": 1}, "budget": {"cost_per_day": -2}})
    assert len(caught.value.exceptions) == 2


def test_a_server_table_loads_and_keeps_the_defaults_it_does_not_name() -> None:
    server = Settings.from_mapping({"server": {"host": " 0.0.0.0 ", "token_env": "MY_TOKEN"}}).server
    assert (server.host, server.port, server.token_env) == ("0.0.0.0", ServerSettings().port, "MY_TOKEN")
    assert server.max_body_bytes == ServerSettings().max_body_bytes
    assert Settings.from_mapping({}).server == ServerSettings()
    assert Settings.from_mapping({"server": {"port": 9000, "max_body_bytes": 1024}}).server.port == 9000


@pytest.mark.parametrize(("table", "message"), [
    ({"hots": "x"}, "hots"),
    ({"host": ""}, "server.host must be an address"),
    ({"host": 127}, "server.host must be an address"),
    ({"port": 0}, "server.port must be a whole number 1..65535"),
    ({"port": 70000}, "server.port"),
    ({"port": "8080"}, "server.port"),
    ({"port": True}, "server.port"),
    ({"token_env": "s3cret token!"}, "server.token_env must name an environment variable"),
    ({"token_env": ""}, "server.token_env"),
    ({"max_body_bytes": 0}, "server.max_body_bytes must be a whole number of bytes > 0"),
    ({"max_body_bytes": 1.5}, "server.max_body_bytes"),
    ({"backup_dir": ""}, "server.backup_dir must be a folder path"),
    ({"backup_dir": 3}, "server.backup_dir must be a folder path"),
    ({"backup_dir": "a\x00b"}, "server.backup_dir must be a folder path"),
    ({"public_names": "memory.lan"}, "server.public_names must be a list of host names"),
    ({"public_names": ["memory.lan:8765"]}, "without a port"),
    ({"public_names": ["*.lan"]}, "wildcards are not allowed"),
    ({"public_names": ["0.0.0.0"]}, "wildcard bind address"),
    ({"public_names": ["http://memory.lan"]}, "not a host name or an IP address"),
    ({"public_names": [""]}, "public_names[0] '' cannot be a public name: it is blank"),
    ({"public_names": [7]}, "cannot be a public name"),
])
def test_a_bad_server_table_is_refused_with_what_is_wrong(table: dict, message: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        Settings.from_mapping({"server": table})
    assert message in str(caught.value)


def test_public_names_are_normalised_and_the_backup_dir_kept() -> None:
    server = Settings.from_mapping({"server": {"public_names": ["Memory.LAN.", "[FE80::1]", "192.168.1.5",
                                                                "memory.lan"], "backup_dir": " ~/bk "}}).server
    assert server.public_names == ("memory.lan", "fe80::1", "192.168.1.5")
    assert server.backup_dir == "~/bk"
    assert ServerSettings().public_names == () and ServerSettings().backup_dir is None


def test_an_experience_table_sets_some_thresholds_and_keeps_the_rest() -> None:
    from hlmem.domain.experience_policy import PolicyThresholds

    s = Settings.from_mapping({"experience": {"min_support": 8, "z": 2}})
    assert s.experience == PolicyThresholds(min_support=8, z=2)
    assert Settings().experience == PolicyThresholds() == Settings.from_mapping({"experience": {}}).experience
    given = PolicyThresholds(probation=5)
    assert Settings.from_mapping({"experience": given}).experience is given


@pytest.mark.parametrize(("table", "message"), [
    ({"min_support": 0}, "experience.min_support must be a whole number of at least 1, not 0"),
    ({"min_support": 2.5}, "experience.min_support must be a whole number of at least 1, not 2.5"),
    ({"probation": True}, "experience.probation must be a whole number of at least 0, not True"),
    ({"min_reliability": 1.2}, "experience.min_reliability must be 0..1, not 1.2"),
    ({"min_lead": "high"}, "experience.min_lead must be 0..1, not 'high'"),
    ({"procedure_min_reliability": float("nan")}, "experience.procedure_min_reliability must be 0..1"),
    ({"z": 0}, "experience.z must be in (0, 5], not 0"),
    ({"z": True}, "experience.z must be in (0, 5], not True"),
    ({"retire_z": -6}, "experience.retire_z must be -5..5, not -6"),
    ({"min_suport": 3}, "unknown key(s) min_suport in hlmem.toml: experience; known: min_confidence, min_lead"),
    ([3], "experience must be a table"),
])
def test_a_bad_experience_table_is_refused_naming_the_key(table: object, message: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        Settings.from_mapping({"experience": table}, source="hlmem.toml")
    assert message in str(caught.value) and "hlmem.toml" in str(caught.value)


def test_every_bad_experience_threshold_is_named_at_once() -> None:
    with pytest.raises(ConfigurationError) as caught:
        Settings.from_mapping({"experience": {"min_support": 0, "z": 9, "other": 1}}, source="f.toml")
    text = str(caught.value)
    assert "unknown key(s) other" in text and "experience.min_support" in text and "experience.z" in text
