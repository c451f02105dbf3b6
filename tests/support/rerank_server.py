"""Scripted rerank answers for the 127.0.0.1 test server (``support.llm_server.ScriptedLLMServer``).

The LLM test server already answers any path with queued replies and records every request, so
rerank tests reuse it unchanged; this module only builds rerank-shaped bodies. Results are sent
best first, as real providers send them, so the adapter must put them back in input order.

    with ScriptedLLMServer() as server:
        server.script(rate_limited(retry_after="0"), cohere_answer([0.1, 0.9]))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from support.llm_server import Reply, ScriptedLLMServer, error, json_reply, rate_limited, raw

__all__ = ["Reply", "ScriptedLLMServer", "best_first", "cohere_answer", "dashscope_answer", "error", "json_reply",
           "rate_limited", "raw", "tei_answer"]


def best_first(scores: Sequence[float]) -> list[tuple[int, float]]:
    """``(index, score)`` pairs, highest score first (ties by index)."""
    return sorted(enumerate(scores), key=lambda pair: (-pair[1], pair[0]))


def cohere_answer(scores: Sequence[float], *, total_tokens: int | None = None, with_documents: bool = False,
                  delay_s: float = 0.0) -> Reply:
    """A Cohere/Jina/vLLM-style answer: ``{"results": [{"index", "relevance_score"}], "usage"?}``."""
    results: list[dict[str, Any]] = []
    for index, score in best_first(scores):
        result: dict[str, Any] = {"index": index, "relevance_score": score}
        if with_documents:
            result["document"] = {"text": f"document {index}"}
        results.append(result)
    payload: dict[str, Any] = {"id": "rerank-test", "results": results}
    if total_tokens is not None:
        payload["usage"] = {"total_tokens": total_tokens}
    return json_reply(payload, delay_s=delay_s)


def tei_answer(scores: Sequence[float]) -> Reply:
    """A text-embeddings-inference answer: ``[{"index", "score"}]``."""
    return json_reply([{"index": index, "score": score} for index, score in best_first(scores)])


def dashscope_answer(scores: Sequence[float], *, total_tokens: int = 42) -> Reply:
    """A DashScope native answer: ``{"output": {"results": [...]}, "usage": {"total_tokens"}, "request_id"}``."""
    results = [{"index": index, "relevance_score": score} for index, score in best_first(scores)]
    return json_reply({"output": {"results": results}, "usage": {"total_tokens": total_tokens},
                       "request_id": "0c3a7f1e-test"})
