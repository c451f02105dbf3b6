"""An example hlmem reranker plugin: ``echo`` keeps the fused order (docs/plugins.md).

The entry point ``hlmem.rerankers: echo = "hlmem_echo_reranker:SPEC"`` names :data:`SPEC`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from hlmem.plugins.api import PLUGIN_API_VERSION, PluginContext, PluginError, PluginSpec

__all__ = ["SPEC", "EchoReranker"]


class EchoReranker:
    """The Reranker port: one score per text, in input order, ``scale / (i + 1)`` for the i-th text.

    Scores strictly decrease, so reordering by them keeps the order recall passed in.
    """

    def __init__(self, scale: float = 1.0) -> None:
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not math.isfinite(scale) or scale <= 0:
            raise PluginError(f"[plugins.options] scale of the echo reranker must be a positive number, not {scale!r}")
        self.scale = float(scale)
        self.calls: list[tuple[str, int]] = []

    @property
    def model_id(self) -> str:
        return "echo:v1"

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        self.calls.append((query, len(texts)))
        return [self.scale / (i + 1) for i in range(len(texts))]


def _make(context: PluginContext) -> EchoReranker:
    unknown = sorted(set(context.options) - {"scale"})
    if unknown:
        raise PluginError(f"unknown option(s) {', '.join(unknown)} for the echo reranker; known: scale")
    return EchoReranker(**dict(context.options))


#: What the entry point names: checked by hlmem's registry before anything is built.
SPEC = PluginSpec("reranker", PLUGIN_API_VERSION, _make, EchoReranker, "example: keeps the fused order")
