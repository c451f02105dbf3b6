"""The three rerank wire styles: the request body each expects and how scores come back (no I/O here).

``cohere``  POST {model, query, documents, top_n[, return_documents: false]}
            -> {"results": [{"index", "relevance_score"}, ...], "usage"?: {"total_tokens"}}
            Cohere v2, Jina, and servers that copy them (vLLM, Xinference, LocalAI, TEI's /v1 shim …).
``tei``     POST {query, texts, raw_scores: false, truncate: true} -> [{"index", "score"}, ...]
            Hugging Face text-embeddings-inference ``/rerank``.
``dashscope`` POST {model, input: {query, documents}, parameters: {return_documents: false, top_n}}
            -> {"output": {"results": [{"index", "relevance_score"}]}, "usage": {"total_tokens"}}
            百炼 native ``text-rerank`` (gte-rerank-v2, qwen3-rerank).

Results come best first; :func:`scores_in_input_order` puts them back in input order. An index
the answer leaves out gets ``-inf`` (a server may cut the list, as ``top_n`` allows); an index
out of range or given twice, a score that is not a finite number, or an answer with no result
at all for a non-empty batch is malformed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from hlmem.adapters.rerank.config import RerankConfig, WireStyle


class WireError(ValueError):
    """The answer does not have the shape of its wire style (the adapter raises MalformedResponse)."""


def request_body(config: RerankConfig, query: str, documents: Sequence[str]) -> dict[str, Any]:
    """The JSON body asking ``config``'s endpoint to score every one of ``documents`` for ``query``."""
    docs = list(documents)
    if config.wire is WireStyle.TEI:
        # truncate: a text longer than the model's window is cut by the server instead of refused.
        return {"query": query, "texts": docs, "raw_scores": False, "truncate": True}
    if config.wire is WireStyle.DASHSCOPE:
        parameters: dict[str, Any] = {"top_n": len(docs)}
        if config.send_return_documents:
            parameters["return_documents"] = False
        return {"model": config.model, "input": {"query": query, "documents": docs}, "parameters": parameters}
    body: dict[str, Any] = {"model": config.model, "query": query, "documents": docs, "top_n": len(docs)}
    if config.send_return_documents:
        body["return_documents"] = False
    return body


def scores_in_input_order(wire: WireStyle, payload: Any, count: int) -> list[float]:
    """One score per document of a batch of ``count``, in the order they were sent.

    :raises WireError: when ``payload`` is not a well-formed answer for ``count`` documents.
    """
    results, score_key = _results(wire, payload)
    scores = [-math.inf] * count
    seen: set[int] = set()
    for position, result in enumerate(results):
        if not isinstance(result, dict):
            raise WireError(f"results[{position}] is not an object")
        index, score = result.get("index"), result.get(score_key)
        if type(index) is not int:
            raise WireError(f"results[{position}].index is not an integer: {index!r}")
        if not 0 <= index < count:
            raise WireError(f"results[{position}].index {index} is out of range for {count} documents")
        if index in seen:
            raise WireError(f"results[{position}].index {index} appears twice")
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
            raise WireError(f"results[{position}].{score_key} is not a finite number: {score!r}")
        seen.add(index)
        scores[index] = float(score)
    if count and not seen:
        raise WireError(f"no result for any of the {count} documents")
    return scores


def total_tokens(payload: Any) -> int | None:
    """``usage.total_tokens`` (Jina, vLLM, DashScope), when the answer carries a whole number there."""
    usage = payload.get("usage") if isinstance(payload, dict) else None
    value = usage.get("total_tokens") if isinstance(usage, dict) else None
    return value if type(value) is int and value >= 0 else None


def _results(wire: WireStyle, payload: Any) -> tuple[list[Any], str]:
    if wire is WireStyle.TEI:
        if not isinstance(payload, list):
            raise WireError("the answer is not a JSON array of {index, score}")
        return payload, "score"
    holder = payload
    if wire is WireStyle.DASHSCOPE:
        holder = payload.get("output") if isinstance(payload, dict) else None
        if not isinstance(holder, dict):
            raise WireError("no output object in the answer")
    results = holder.get("results") if isinstance(holder, dict) else None
    if not isinstance(results, list):
        where = "output.results" if wire is WireStyle.DASHSCOPE else "results"
        raise WireError(f"no {where} array in the answer")
    return results, "relevance_score"
