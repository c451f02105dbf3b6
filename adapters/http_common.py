"""What every HTTP provider adapter (LLM, reranker) shares: the key from the environment, keeping
it out of every message, the provider's error message, and ``Retry-After``."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from datetime import datetime
from email.utils import parsedate_to_datetime

import httpx

from hlmem.domain.errors import ConfigurationError
from hlmem.domain.time import UTC

#: Longest provider error message quoted in an error.
MESSAGE_CHARS = 300
_TOKENISH = re.compile(r"[A-Za-z0-9._\-]{8,}")


def read_key(what: str, api_key_env: str | None, env: Mapping[str, str]) -> str | None:
    """The API key from ``env[api_key_env]`` (None when the provider needs none).

    :raises ConfigurationError: when the variable is named but unset or blank.
    """
    if api_key_env is None:
        return None
    key = env.get(api_key_env, "").strip()
    if not key:
        raise ConfigurationError(f"the {what} API key is missing: set the environment variable {api_key_env}")
    return key


def redact(text: str, key: str | None) -> str:
    """``text`` without the key or any 8+ character fragment of it (providers echo masked keys)."""
    if not key:
        return text
    text = text.replace(key, "[redacted]")
    return _TOKENISH.sub(lambda m: "[redacted]" if m.group(0) in key else m.group(0), text)


def error_message(response: httpx.Response, key: str | None) -> str:
    """The provider's error message (``error.message``, ``msg``, ``detail`` or the body), redacted."""
    text = response.text
    try:
        payload = json.loads(text)
    except ValueError:
        payload = None
    if isinstance(payload, dict):
        error = payload.get("error", payload)
        if isinstance(error, dict):
            found = error.get("message") or error.get("msg") or error.get("detail")
            text = found if isinstance(found, str) else text
        elif isinstance(error, str):
            text = error
    text = " ".join(text.split())
    return redact(text[:MESSAGE_CHARS] + ("…" if len(text) > MESSAGE_CHARS else ""), key) or "(no message)"


def retry_after(value: str | None) -> float | None:
    """``Retry-After`` as seconds: a number of seconds or an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = (parsedate_to_datetime(value) - datetime.now(UTC)).total_seconds()
        except (TypeError, ValueError, OverflowError):
            return None
    return None if math.isnan(seconds) else max(0.0, seconds)  # NaN is not a wait; inf ends the call
