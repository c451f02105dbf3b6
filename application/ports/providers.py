"""The model-provider roles: embedder and its cache, LLM, reranker (adapters under adapters/embedders, llm, rerank)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable


#: A float32 matrix of shape (n, dim), each row L2-normalised (a numpy array in every adapter;
#: typed loosely so that the application layer never imports numpy).
Matrix = Any


@runtime_checkable
class Embedder(Protocol):
    """Turns text into unit vectors.

    Contract:
    - ``model_id`` names the model *and* its weights' version; a store remembers it and refuses
      vectors from another model (re-embedding is an explicit command).
    - ``dim`` is fixed for the life of the object.
    - ``embed_passages(texts)`` and ``embed_queries(texts)`` return a float32 matrix of shape
      ``(len(texts), dim)`` whose rows are L2-normalised, in input order; an empty input gives a
      ``(0, dim)`` matrix. Asymmetric models (e5) prefix roles; symmetric ones treat both alike.
    - Deterministic: the same text gives the same vector (up to float rounding) in one process.
    - Failures raise :class:`hlmem.application.errors.EmbedderError`.
    """

    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed_passages(self, texts: Sequence[str]) -> Matrix: ...

    def embed_queries(self, texts: Sequence[str]) -> Matrix: ...


@runtime_checkable
class EmbeddingCache(Protocol):
    """Stores vectors by (model_id, content hash) so unchanged text is never embedded twice.

    Contract: ``get_many`` returns only the hashes it holds (missing ones are absent from the
    dict); ``put_many`` is idempotent (a key already held keeps its vector); vectors are float32
    bytes of the model's dimension.
    """

    def get_many(self, model_id: str, hashes: Sequence[str]) -> dict[str, bytes]: ...

    def put_many(self, model_id: str, items: Sequence[tuple[str, bytes]]) -> None: ...


@runtime_checkable
class HasEmbeddingCache(Protocol):
    """A store that keeps the embedding cache in itself (reached as ``store.embedding_cache``).

    Contract: ``embedding_cache`` is the same :class:`EmbeddingCache` for the life of the store,
    kept in the store itself (a file store keeps it across reopening), and
    ``Erasure.drop_cached_vectors`` deletes the entries of forgotten texts from it. The
    composition root wraps the passage embedder with it (``CachedEmbedder``).
    """

    @property
    def embedding_cache(self) -> EmbeddingCache: ...


@runtime_checkable
class LLM(Protocol):
    """Structured completion: a prompt and a JSON schema in, one JSON object out.

    Contract (the OpenAI-compatible adapter is :mod:`hlmem.adapters.llm.openai_compat`, ADR 0010):
    - ``model_id`` names the provider and model (``"dashscope:qwen-plus"``); extractors put it in
      ``CandidateClaim.extractor``.
    - ``complete_json(system, user, schema, *, operation, job_id=None)`` returns the one JSON
      object the model produced. The schema reaches the model (as a JSON-schema response format
      where the provider supports it, else in the system message); the adapter checks only that
      the answer is a JSON object — the caller's parser validates it against ``schema`` strictly.
    - It raises only :class:`hlmem.domain.errors.ProviderError` subclasses: ``ProviderTimeout``,
      ``ProviderRateLimited``, ``ProviderUnavailable`` (after the adapter's own retries),
      ``ProviderRejected`` (4xx, never retried), ``MalformedResponse`` (``raw`` keeps the text).
    - Every HTTP attempt is accounted (ledger: provider, model, ``operation``, ``job_id``, tokens,
      latency, status, error class). The API key is never logged, recorded or put in an error.
    - Blocking; safe to call from one thread at a time per instance.
    """

    @property
    def model_id(self) -> str: ...

    def complete_json(
        self, system: str, user: str, schema: Mapping[str, Any], *, operation: str, job_id: str | None = None
    ) -> dict[str, Any]: ...


@runtime_checkable
class Reranker(Protocol):
    """Reorders candidate texts for a query.

    Contract: ``rerank(query, texts)`` returns one relevance score per text, in input order
    (higher is better); on failure it raises, and recall falls back to the fused order.
    """

    @property
    def model_id(self) -> str: ...

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]: ...
