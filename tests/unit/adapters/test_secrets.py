"""Secrets: placeholder API keys are refused where keys are read (the value never in the message); secret-looking config keys."""

from __future__ import annotations

import pytest

from hlmem.adapters.http.common import read_key
from hlmem.adapters.llm.ledger import InMemoryLedger
from hlmem.adapters.llm.openai_compat import OpenAICompatLLM
from hlmem.adapters.llm.presets import LLMConfig
from hlmem.adapters.rerank.config import RerankConfig
from hlmem.adapters.rerank.http import HTTPReranker
from hlmem.adapters.secrets import is_placeholder, key_status, looks_like_secret_key
from hlmem.domain.errors import ConfigurationError

PLACEHOLDERS = ["sk-xxx", "sk-XXXXXXXXXXXXXXXX", "sk-...", "sk-…", "sk-****", "xxx", "XXXX", "...", "changeme",
                "CHANGE_ME", "your-api-key", "your_api_key_here", "YOUR-OPENAI-API-KEY", "<your key>", "<...>",
                "<DASHSCOPE_API_KEY>", "${OPENAI_API_KEY}", "$OPENAI_API_KEY", "{api_key}", "TODO", "todo ",
                "placeholder", "sk-your-key-here", "insert your key here", "api_key", "none", "null", "\t"]
REAL = ["sk-hlmemTEST-7f3a9c2e5b1d4f60a8e2c9b7", "rk-hlmemTEST-3c9e1a7b5d2f4e6080a1b2c3",
        "sk_test_51HkXa2Lk9cPq0aBcDeFgHiJk", "sk-proj-AbC123dEf456GhI789", "EMPTY", "9f8e7d6c5b4a39281706f5e4d3c2b1a0",
        "ms-0a1b2c3d-4e5f-6789-abcd-ef0123456789"]


@pytest.mark.parametrize("value", PLACEHOLDERS)
def test_a_placeholder_key_is_refused_naming_the_variable_never_the_value(value: str) -> None:
    assert is_placeholder(value)
    with pytest.raises(ConfigurationError) as info:
        read_key("LLM", "OPENAI_API_KEY", {"OPENAI_API_KEY": value})
    text = str(info.value)
    assert "OPENAI_API_KEY" in text
    # The message is the same whatever the value: nothing of it is echoed.
    assert text == ("the LLM API key in the environment variable OPENAI_API_KEY is a placeholder, not a key: "
                    "set OPENAI_API_KEY to the provider's real key" if value.strip() else
                    "the LLM API key is missing: set the environment variable OPENAI_API_KEY")


@pytest.mark.parametrize("value", REAL)
def test_a_real_looking_key_is_read(value: str) -> None:
    assert not is_placeholder(value)
    assert read_key("LLM", "OPENAI_API_KEY", {"OPENAI_API_KEY": f" {value} "}) == value


def test_a_provider_without_a_key_variable_reads_none() -> None:
    assert read_key("LLM", None, {"OPENAI_API_KEY": "sk-xxx"}) is None


def test_the_adapters_refuse_a_placeholder_when_the_client_is_made() -> None:
    with pytest.raises(ConfigurationError, match="DASHSCOPE_API_KEY is a placeholder") as info:
        OpenAICompatLLM(LLMConfig.from_preset("dashscope"), ledger=InMemoryLedger(), env={"DASHSCOPE_API_KEY": "sk-xxx"})
    assert "sk-xxx" not in str(info.value)
    with pytest.raises(ConfigurationError, match="JINA_API_KEY is a placeholder") as info:
        HTTPReranker(RerankConfig.from_preset("jina"), ledger=InMemoryLedger(), env={"JINA_API_KEY": "<jina key>"})
    assert "jina key" not in str(info.value)


@pytest.mark.parametrize(("name", "secret"), [
    ("api_key", True), ("apikey", True), ("openai_api_key", True), ("key", True), ("service-key", True),
    ("token", True), ("auth_token", True), ("password", True), ("db_password", True), ("secret", True),
    ("client_secret", True), ("credentials", True), ("authorization", True),
    ("api_key_env", False), ("token_env", False), ("tokens_per_day", False), ("max_tokens", False),
    ("keyword", False), ("monkey", False), ("model", False), ("base_url", False), ("price_book", False),
])
def test_which_config_keys_look_like_secrets(name: str, secret: bool) -> None:
    assert looks_like_secret_key(name) is secret


def test_key_status_never_carries_the_value() -> None:
    env = {"A_API_KEY": "sk-live-1234567890abcdef", "B_API_KEY": "changeme", "C_API_KEY": "  "}
    assert [key_status(v, env) for v in ("A_API_KEY", "B_API_KEY", "C_API_KEY", "D_API_KEY")] == [
        "present", "placeholder", "absent", "absent"]
