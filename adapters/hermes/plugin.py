"""Hermes' side of the wiring: the ``MemoryProvider`` subclass Hermes loads, ``register(ctx)``, and the plugin folder installer.

Hermes finds memory providers as folders ``$HERMES_HOME/plugins/<name>/`` whose ``__init__.py``
defines ``register(ctx)`` and activates one through ``memory.provider`` in config.yaml
(hermes-agent ``plugins/memory/__init__.py``). :func:`install` writes such a folder that only
imports :func:`register` from here, so upgrading hlmem upgrades the provider.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hlmem.adapters.hermes.provider import HlmemMemoryProvider

EXTRA_HINT = "pip install 'hlmem[hermes]'"


def hermes_base() -> type:
    """Hermes' abstract base class ``agent.memory_provider.MemoryProvider``.

    :raises ModuleNotFoundError: hermes-agent is not installed (the message says how to install it).
    """
    try:
        from agent.memory_provider import MemoryProvider
    except ModuleNotFoundError as exc:
        raise ModuleNotFoundError(f"hermes-agent is not installed ({exc}): {EXTRA_HINT}") from exc
    return MemoryProvider


def provider_class() -> type:
    """``HlmemMemoryProvider`` as a subclass of Hermes' ``MemoryProvider`` (hlmem's methods first)."""
    base = hermes_base()
    return type("HermesHlmemMemoryProvider", (HlmemMemoryProvider, base), {"__module__": __name__})


def register(ctx: Any) -> None:
    """Hermes' plugin entry point: register one provider (options from hlmem.toml / ``HLMEM_*``)."""
    ctx.register_memory_provider(provider_class()())


_INIT = '''"""hlmem as a Hermes memory provider (MemoryProvider); written by `hlmem.adapters.hermes.plugin.install`."""
from hlmem.adapters.hermes.plugin import register  # noqa: F401  register_memory_provider
'''
_YAML = '''name: hlmem
description: "hlmem: local-first, event-sourced, bitemporal long-term memory (one SQLite file)."
pip_dependencies:
  - hlmem[hermes]
'''


def install(hermes_home: str | Path, *, overwrite: bool = False) -> Path:
    """Write the provider folder ``<hermes_home>/plugins/hlmem/``; returns its path.

    :raises FileExistsError: the folder holds other content and ``overwrite`` is False.
    """
    folder = Path(hermes_home).expanduser() / "plugins" / "hlmem"
    init = folder / "__init__.py"
    if init.exists() and init.read_text(encoding="utf-8") != _INIT and not overwrite:
        raise FileExistsError(f"{init} exists with other content: move it away or pass overwrite=True")
    folder.mkdir(parents=True, exist_ok=True)
    init.write_text(_INIT, encoding="utf-8")
    (folder / "plugin.yaml").write_text(_YAML, encoding="utf-8")
    return folder
