"""The built-in reranker plugins, one per preset of adapters/rerank/config.py (group ``hlmem.rerankers``).

Each builds an ``HTTPReranker`` from the role's settings on top of its preset.
"""

from __future__ import annotations

from collections.abc import Callable

from hlmem.adapters.rerank.http import HTTPReranker
from hlmem.plugins.api import PLUGIN_API_VERSION, PluginContext, PluginSpec


def _factory(preset: str) -> Callable[[PluginContext], HTTPReranker]:
    def make(context: PluginContext) -> HTTPReranker:
        from hlmem.adapters.rerank.config import RerankConfig

        config = RerankConfig.from_mapping(context.role_settings(provider=preset))
        return HTTPReranker(config, ledger=context.ledger, env=context.environ, clock=context.clock,
                            budget=context.budget)

    return make


def _spec(preset: str, description: str) -> PluginSpec:
    return PluginSpec("reranker", PLUGIN_API_VERSION, _factory(preset), HTTPReranker, description)


COHERE = _spec("cohere", "Cohere rerank v2 (COHERE_API_KEY)")
JINA = _spec("jina", "Jina reranker (JINA_API_KEY)")
DASHSCOPE = _spec("dashscope", "百炼 DashScope text-rerank (DASHSCOPE_API_KEY)")
LOCAL = _spec("local", "a rerank server of your own (vLLM, Xinference, TEI …)")
