"""Rerank presets and :class:`RerankConfig`: endpoint, wire style, model, which env var holds the key, limits.

As for the LLM (``adapters/llm/presets.py``), the key itself is never configuration:
:class:`RerankConfig` holds only the *name* of the environment variable (``api_key_env``) and
refuses an ``api_key`` (or ``token``, ``secret`` …) entry outright.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import attrs
from attrs import frozen

from hlmem.domain.errors import ConfigurationError


class WireStyle(str, enum.Enum):
    """The request and response shapes an endpoint speaks (``adapters/rerank/wire.py``)."""

    COHERE = "cohere"  # {model, query, documents, top_n} -> {results: [{index, relevance_score}]}
    TEI = "tei"  # {query, texts, raw_scores} -> [{index, score}]  (Hugging Face text-embeddings-inference)
    DASHSCOPE = "dashscope"  # {model, input: {query, documents}, parameters} -> {output: {results: [...]}}


@frozen
class Preset:
    """Defaults for one provider's rerank endpoint (the request goes to ``base_url + path``)."""

    name: str
    wire: WireStyle
    base_url: str | None
    path: str
    api_key_env: str | None
    model: str | None
    send_return_documents: bool


PRESETS: Mapping[str, Preset] = MappingProxyType({
    # Cohere API v2 (its schema has no return_documents: v2 never echoes documents).
    "cohere": Preset("cohere", WireStyle.COHERE, "https://api.cohere.com/v2", "/rerank", "COHERE_API_KEY",
                     "rerank-v3.5", False),
    # Jina returns documents unless told not to.
    "jina": Preset("jina", WireStyle.COHERE, "https://api.jina.ai/v1", "/rerank", "JINA_API_KEY",
                   "jina-reranker-v2-base-multilingual", True),
    # 百炼 (Alibaba Cloud Model Studio), native API, Beijing region; qwen3-rerank is the newer model.
    "dashscope": Preset("dashscope", WireStyle.DASHSCOPE, "https://dashscope.aliyuncs.com/api/v1",
                        "/services/rerank/text-rerank/text-rerank", "DASHSCOPE_API_KEY", "gte-rerank-v2", True),
    # A server of your own: vLLM, Xinference, LocalAI … (wire "cohere", base_url …/v1) or
    # text-embeddings-inference (wire "tei", base_url at the server's root). No key unless named.
    "local": Preset("local", WireStyle.COHERE, None, "/rerank", None, None, True),
})

_SECRET_KEYS = frozenset({"api_key", "key", "token", "secret", "password", "authorization"})
#: The model label recorded for a TEI server when none is configured (TEI serves one model and takes no name).
TEI_MODEL_LABEL = "tei"


def _positive(_instance: Any, attribute: attrs.Attribute, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ConfigurationError(f"rerank.{attribute.name} must be a positive number, not {value!r}")


def _non_negative_int(_instance: Any, attribute: attrs.Attribute, value: int) -> None:
    if type(value) is not int or value < 0:
        raise ConfigurationError(f"rerank.{attribute.name} must be a whole number >= 0, not {value!r}")


def _positive_int(_instance: Any, attribute: attrs.Attribute, value: int) -> None:
    if type(value) is not int or value < 1:
        raise ConfigurationError(f"rerank.{attribute.name} must be a whole number >= 1, not {value!r}")


@frozen(kw_only=True)
class RerankConfig:
    """A resolved reranker configuration (build it with :meth:`from_preset` or :meth:`from_mapping`).

    Defaults are set for the recall path, where a user waits: a short timeout and one retry,
    since a failed rerank only costs the fused order (worst case with defaults: two 5 s
    attempts and a wait of at most 2 s, per batch).

    :param provider: a preset name; recorded in the ledger and in ``model_id``.
    :param wire: the request/response shape (:class:`WireStyle`).
    :param base_url: scheme, host and any prefix; ``path`` is appended to it.
    :param model: sent as ``model`` (not sent to a TEI server, which serves one model).
    :param api_key_env: the environment variable holding the key (``None``: send no key).
    :param send_return_documents: send ``return_documents: false`` (``cohere`` and ``dashscope`` wires).
    :param timeout_s: per-attempt timeout (connect, read, write and pool), in seconds.
    :param max_retries: retries after the first attempt, on 429, 5xx, timeouts and connection errors.
    :param backoff_base_s: first retry waits about this long; each further one doubles, with jitter.
    :param backoff_max_s: longest wait between two attempts of one request.
    :param max_retry_after_s: a ``Retry-After`` longer than this ends the call at once (recall
        falls back to the fused order rather than wait).
    :param max_documents: most documents in one request; more are sent in several requests.
    :param max_chars: each document (and the query) is cut to this many characters before sending.
    """

    provider: str
    wire: WireStyle
    base_url: str
    path: str
    model: str
    api_key_env: str | None
    send_return_documents: bool = True
    timeout_s: float = attrs.field(default=5.0, validator=_positive)
    max_retries: int = attrs.field(default=1, validator=_non_negative_int)
    backoff_base_s: float = attrs.field(default=0.25, validator=_positive)
    backoff_max_s: float = attrs.field(default=2.0, validator=_positive)
    max_retry_after_s: float = attrs.field(default=5.0, validator=_positive)
    max_documents: int = attrs.field(default=100, validator=_positive_int)
    max_chars: int = attrs.field(default=2000, validator=_positive_int)

    @property
    def url(self) -> str:
        """Where requests go."""
        return self.base_url + self.path

    @classmethod
    def from_preset(cls, provider: str, **overrides: Any) -> RerankConfig:
        """The preset's defaults, with ``overrides`` (any field) on top.

        :raises ConfigurationError: unknown provider or wire style, a missing base URL or model,
            a secret given as configuration, an unknown setting, or an invalid value.
        """
        secrets = sorted(_SECRET_KEYS & set(overrides))
        if secrets:
            raise ConfigurationError(
                f"rerank.{secrets[0]} is not accepted: put the key in an environment variable and name that "
                "variable in rerank.api_key_env")
        preset = PRESETS.get(provider)
        if preset is None:
            raise ConfigurationError(f"unknown rerank provider {provider!r}; choose one of {', '.join(PRESETS)}")
        values: dict[str, Any] = {
            "wire": preset.wire, "base_url": preset.base_url, "path": preset.path, "model": preset.model,
            "api_key_env": preset.api_key_env, "send_return_documents": preset.send_return_documents}
        values.update({k: v for k, v in overrides.items() if v is not None or k == "api_key_env"})
        unknown = sorted(set(values) - {a.name for a in attrs.fields(cls)})
        if unknown:
            raise ConfigurationError(f"unknown rerank setting rerank.{unknown[0]}")
        try:
            values["wire"] = WireStyle(values["wire"])
        except ValueError:
            raise ConfigurationError(
                f"rerank.wire must be one of {', '.join(w.value for w in WireStyle)}") from None
        if not values.get("model") and values["wire"] is WireStyle.TEI:
            values["model"] = TEI_MODEL_LABEL
        for needed in ("base_url", "model"):
            if not values.get(needed):
                raise ConfigurationError(f"rerank.{needed} is required for provider {provider!r}")
        values["base_url"] = str(values["base_url"]).rstrip("/")
        if not values["base_url"].startswith(("http://", "https://")):
            raise ConfigurationError(
                f"rerank.base_url must start with http:// or https://, not {values['base_url']!r}")
        path = str(values["path"])
        values["path"] = path if path.startswith("/") else "/" + path
        if type(values["send_return_documents"]) is not bool:
            raise ConfigurationError("rerank.send_return_documents must be true or false")
        return cls(provider=provider, **values)

    @classmethod
    def from_mapping(cls, settings: Mapping[str, Any]) -> RerankConfig:
        """Read a config section such as ``{"provider": "dashscope", "model": "qwen3-rerank"}``.

        :raises ConfigurationError: as :meth:`from_preset`, and when no provider is named.
        """
        values = dict(settings)
        provider = values.pop("provider", None)
        if not provider:
            raise ConfigurationError(f"rerank.provider is required; choose one of {', '.join(PRESETS)}")
        return cls.from_preset(str(provider), **values)
