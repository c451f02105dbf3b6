"""What a plugin is: a :class:`PluginSpec` an entry point points at, built with a :class:`PluginContext`.

A plugin distribution declares, in its pyproject.toml::

    [project.entry-points."hlmem.rerankers"]
    echo = "hlmem_echo_reranker:SPEC"

and ``SPEC`` is a :class:`PluginSpec`. The registry imports it only when the entry point is
allowed (docs/plugins.md), checks ``api_version``, ``kind`` and that ``implements`` has every
member of the port, all before any adapter exists; ``factory(context)`` builds the adapter when
the composition root needs it.

API version policy: :data:`PLUGIN_API_VERSION` changes only when :class:`PluginSpec`,
:class:`PluginContext` or a port changes incompatibly; a spec declaring another version is
refused at start-up with a message saying which version this hlmem speaks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hlmem.application.errors import ConfigurationError

__all__ = ["KINDS", "PLUGIN_API_VERSION", "PluginContext", "PluginError", "PluginSpec"]

#: The plugin API this hlmem speaks; a spec must declare exactly this.
PLUGIN_API_VERSION = 1

#: The kinds of plugin, one per port (the entry-point groups are in settings: ENTRY_POINT_GROUPS).
KINDS = ("storage", "embedder", "llm", "reranker")


class PluginError(ConfigurationError):
    """A plugin cannot be used: the message says which one, what is wrong and what to do.

    Raised at start-up (``Memory(...)``, ``hlmem`` commands), never at first use.
    """


@dataclass(frozen=True)
class PluginContext:
    """What a factory gets to build its adapter.

    :param name: the entry point's name (``echo``).
    :param options: the plugin's ``[plugins.options.NAME]`` table (empty when none is given).
    :param environ: the environment to read secrets from (``*_API_KEY``); never log it.
    :param clock: the ``Clock`` port the rest of the memory uses.
    :param ledger: where provider calls are accounted (LLM and reranker plugins), else None.
    :param budget: the budget guard to pass on to provider adapters, or None (no budget).
    :param store_path: the store's path (``":memory:"`` for an in-process store).
    :param synchronous: the SQLite ``synchronous`` level asked for (storage plugins).
    :param new_id: ``new_id(prefix) -> str``, the ids the rest of the memory uses (storage plugins
        make job ids with it); None: the plugin's own.
    :param settings: the role's plain settings (``provider``, ``model``, ``base_url``… for an
        LLM or reranker; empty for the other kinds).
    """

    name: str
    options: Mapping[str, Any] = field(default_factory=dict)
    environ: Mapping[str, str] = field(default_factory=dict)
    clock: Any = None
    ledger: Any = None
    budget: Any = None
    store_path: str = ":memory:"
    synchronous: str = "FULL"
    new_id: Callable[[str], str] | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)

    def role_settings(self, **fixed: Any) -> dict[str, Any]:
        """The role's settings without unset (None) values, ``fixed`` on top: what a preset
        plugin hands its config (``context.role_settings(provider="openai")``)."""
        return {**{k: v for k, v in self.settings.items() if v is not None}, **fixed}


@dataclass(frozen=True)
class PluginSpec:
    """One plugin, the object an entry point's value names.

    :param kind: ``storage``, ``embedder``, ``llm`` or ``reranker`` (must match the entry
        point's group).
    :param api_version: the plugin API it was written for (:data:`PLUGIN_API_VERSION`).
    :param factory: ``factory(context) -> adapter``; import heavy dependencies inside it, so
        listing and validating stay cheap. A storage plugin's factory returns the whole backend
        (:class:`hlmem.application.ports.backend.Backend`: the store with its job queue, budget
        ledger, call ledger, heartbeats and replay target, ADR 0074), not the bare store.
    :param implements: the adapter's class (a storage plugin's: its store's), checked against the
        port when the spec is loaded.
    :param description: one line for ``hlmem plugins list``.
    """

    kind: str
    api_version: int
    factory: Callable[[PluginContext], object]
    implements: type
    description: str = ""
