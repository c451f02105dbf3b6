"""Provider presets and the LLM configuration: where to call, which model, which env var holds the key.

The key itself is never configuration: :class:`LLMConfig` holds only the *name* of the
environment variable (``api_key_env``), and refuses an ``api_key`` entry outright.
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


class ResponseFormat(str, enum.Enum):
    """How the schema reaches the model."""

    JSON_SCHEMA = "json_schema"  # response_format json_schema, strict (provider enforces the schema)
    JSON_OBJECT = "json_object"  # response_format json_object; schema appended to the system prompt
    #: json_object with the schema attached (``{"type": "json_object", "schema": …}``), which llama.cpp's
    #: servers (llama-server, llama-cpp-python) turn into a grammar: a small model can only write the
    #: schema's shape (the values are still its own). Schema in the system prompt too.
    JSON_OBJECT_SCHEMA = "json_object_schema"
    PROMPT = "prompt"  # no response_format (servers without JSON mode); schema in the prompt only


@frozen
class Preset:
    """Defaults for one provider's OpenAI-compatible endpoint."""

    name: str
    base_url: str | None
    api_key_env: str | None
    model: str | None
    response_format: ResponseFormat


PRESETS: Mapping[str, Preset] = MappingProxyType({
    "openai": Preset("openai", "https://api.openai.com/v1", "OPENAI_API_KEY", "gpt-4o-mini",
                     ResponseFormat.JSON_SCHEMA),
    # 百炼 (Alibaba Cloud Model Studio): JSON schema output only on some qwen-plus snapshots.
    "dashscope": Preset("dashscope", "https://dashscope.aliyuncs.com/compatible-mode/v1", "DASHSCOPE_API_KEY",
                        "qwen-plus", ResponseFormat.JSON_OBJECT),
    # 智谱 BigModel: glm-4-flash is the free tier.
    "zhipu": Preset("zhipu", "https://open.bigmodel.cn/api/paas/v4", "ZHIPUAI_API_KEY", "glm-4-flash",
                    ResponseFormat.JSON_OBJECT),
    # Any OpenAI-compatible server (vLLM, llama.cpp, Ollama …): give base_url and model; no key.
    "local": Preset("local", None, None, None, ResponseFormat.JSON_OBJECT),
})

_SECRET_KEYS = frozenset({"api_key", "key", "token", "secret", "password", "authorization"})


def _positive(_instance: Any, attribute: attrs.Attribute, value: float) -> None:
    if not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ConfigurationError(f"llm.{attribute.name} must be a positive number, not {value!r}")


def _non_negative_int(_instance: Any, attribute: attrs.Attribute, value: int) -> None:
    if type(value) is not int or value < 0:
        raise ConfigurationError(f"llm.{attribute.name} must be a whole number >= 0, not {value!r}")


@frozen(kw_only=True)
class LLMConfig:
    """A resolved LLM configuration (build it with :meth:`from_preset` or :meth:`from_mapping`).

    :param provider: a preset name; recorded in the ledger and in ``model_id``.
    :param api_key_env: the environment variable holding the key (``None``: send no key).
    :param timeout_s: per-attempt timeout (connect, read, write and pool), in seconds.
    :param max_retries: retries after the first attempt, on 429, 5xx, timeouts and connection errors.
    :param backoff_base_s: first retry waits about this long; each further one doubles, with jitter.
    :param backoff_max_s: longest wait between two attempts of one call.
    :param max_retry_after_s: a ``Retry-After`` longer than this ends the call at once
        (:class:`ProviderRateLimited` carries it, for the job queue to honour).
    """

    provider: str
    base_url: str
    model: str
    api_key_env: str | None
    response_format: ResponseFormat
    timeout_s: float = attrs.field(default=60.0, validator=_positive)
    max_retries: int = attrs.field(default=3, validator=_non_negative_int)
    backoff_base_s: float = attrs.field(default=0.5, validator=_positive)
    backoff_max_s: float = attrs.field(default=20.0, validator=_positive)
    max_retry_after_s: float = attrs.field(default=60.0, validator=_positive)
    temperature: float = 0.0
    max_tokens: int | None = None

    @classmethod
    def from_preset(cls, provider: str, **overrides: Any) -> LLMConfig:
        """The preset's defaults, with ``overrides`` (any field) on top.

        :raises ConfigurationError: unknown provider, a missing base URL or model, a secret given
            as configuration, or an invalid value.
        """
        secrets = sorted(_SECRET_KEYS & set(overrides))
        if secrets:
            raise ConfigurationError(
                f"llm.{secrets[0]} is not accepted: put the key in an environment variable and name that "
                "variable in llm.api_key_env")
        preset = PRESETS.get(provider)
        if preset is None:
            raise ConfigurationError(f"unknown LLM provider {provider!r}; choose one of {', '.join(PRESETS)}")
        values = {"base_url": preset.base_url, "model": preset.model, "api_key_env": preset.api_key_env,
                  "response_format": preset.response_format}
        values.update({k: v for k, v in overrides.items() if v is not None or k == "api_key_env"})
        for needed in ("base_url", "model"):
            if not values.get(needed):
                raise ConfigurationError(f"llm.{needed} is required for provider {provider!r}")
        try:
            values["response_format"] = ResponseFormat(values["response_format"])
        except ValueError:
            raise ConfigurationError(
                f"llm.response_format must be one of {', '.join(f.value for f in ResponseFormat)}") from None
        known = {a.name for a in attrs.fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ConfigurationError(f"unknown LLM setting llm.{unknown[0]}")
        values["base_url"] = str(values["base_url"]).rstrip("/")
        if not values["base_url"].startswith(("http://", "https://")):
            raise ConfigurationError(f"llm.base_url must start with http:// or https://, not {values['base_url']!r}")
        return cls(provider=provider, **values)

    @classmethod
    def from_mapping(cls, settings: Mapping[str, Any]) -> LLMConfig:
        """Read a config section such as ``{"provider": "zhipu", "model": "glm-4-flash"}``."""
        values = dict(settings)
        return cls.from_preset(str(values.pop("provider", "openai")), **values)
