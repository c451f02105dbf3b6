"""The built-in LLM plugins, one per preset of adapters/llm/presets.py (entry-point group ``hlmem.llm``).

Each builds an ``OpenAICompatLLM`` from the role's settings (``model``, ``base_url``…) on top of
its preset; the HTTP client is made only then.
"""

from __future__ import annotations

from collections.abc import Callable

from hlmem.adapters.llm.openai_compat import OpenAICompatLLM
from hlmem.plugins.api import PLUGIN_API_VERSION, PluginContext, PluginSpec


def _factory(preset: str) -> Callable[[PluginContext], OpenAICompatLLM]:
    def make(context: PluginContext) -> OpenAICompatLLM:
        from hlmem.adapters.llm.presets import LLMConfig

        config = LLMConfig.from_mapping(context.role_settings(provider=preset))
        # Its ledger records are stamped with real time, as before plugins (the fixed clock is for claims).
        return OpenAICompatLLM(config, ledger=context.ledger, env=context.environ, budget=context.budget)

    return make


def _spec(preset: str, description: str) -> PluginSpec:
    return PluginSpec("llm", PLUGIN_API_VERSION, _factory(preset), OpenAICompatLLM, description)


OPENAI = _spec("openai", "OpenAI chat completions (OPENAI_API_KEY)")
DASHSCOPE = _spec("dashscope", "百炼 DashScope, OpenAI-compatible mode (DASHSCOPE_API_KEY)")
ZHIPU = _spec("zhipu", "智谱 BigModel (ZHIPUAI_API_KEY)")
LOCAL = _spec("local", "any OpenAI-compatible server (give base_url and model)")
