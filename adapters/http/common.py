"""What every HTTP provider adapter (LLM, reranker) shares: the key from the environment, keeping
it out of every message, the provider's error message, ``Retry-After``, what an HTTP failure
means (:func:`post`, :func:`json_payload`), when to retry (:func:`retry_delay`) and the ledger's
status of each error (:func:`ledger_status`)."""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable, Mapping
from datetime import datetime
from email.utils import parsedate_to_datetime

import httpx

from hlmem.adapters.secrets import is_placeholder
from hlmem.domain.errors import (
    ConfigurationError,
    MalformedResponse,
    ProviderError,
    ProviderRateLimited,
    ProviderRejected,
    ProviderTimeout,
    ProviderUnavailable,
)
from hlmem.domain.time import UTC

#: Longest provider error message quoted in an error.
MESSAGE_CHARS = 300
_TOKENISH = re.compile(r"[A-Za-z0-9._\-]{8,}")


def read_key(what: str, api_key_env: str | None, env: Mapping[str, str]) -> str | None:
    """The API key from ``env[api_key_env]`` (None when the provider needs none).

    :raises ConfigurationError: when the variable is named but unset or blank, or holds a
        placeholder (``sk-xxx``, ``changeme``, ``<...>``; :func:`~hlmem.adapters.secrets.is_placeholder`).
        The message names the variable, never the value.
    """
    if api_key_env is None:
        return None
    key = env.get(api_key_env, "").strip()
    if not key:
        raise ConfigurationError(f"the {what} API key is missing: set the environment variable {api_key_env}")
    if is_placeholder(key):
        raise ConfigurationError(f"the {what} API key in the environment variable {api_key_env} is a placeholder, "
                                 f"not a key: set {api_key_env} to the provider's real key")
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


#: Ledger status of each error class (``ok`` when there was none).
_STATUS = {ProviderTimeout: "timeout", ProviderRateLimited: "rate_limited", ProviderUnavailable: "unavailable",
           ProviderRejected: "rejected", MalformedResponse: "malformed"}


def ledger_status(exc: ProviderError | None) -> str:
    """The status a ledger records for an attempt that raised ``exc`` (or none)."""
    return "ok" if exc is None else next(s for cls, s in _STATUS.items() if isinstance(exc, cls))


def post(client: httpx.Client, url: str, body: dict, *, provider: str, timeout_s: float, key: str | None,
         what: str = "", monotonic: Callable[[], float] = time.monotonic) -> httpx.Response:
    """POST ``body`` as JSON; a timeout or a connection failure becomes the provider error it means.

    ``timeout_s`` bounds the whole attempt, not only each network read: a reply whose body
    trickles in (every piece within the client's read timeout) is dropped once ``timeout_s`` has
    passed since the request started, at the first piece that arrives after it.
    """
    started = monotonic()
    late = ProviderTimeout(f"{provider}: no {what}answer within {timeout_s:g} s", provider=provider)
    try:
        with client.stream("POST", url, json=body) as response:
            if response.is_stream_consumed:  # read already (a mock transport's reply)
                return response
            chunks = []
            for chunk in response.iter_raw():
                chunks.append(chunk)
                if monotonic() - started > timeout_s:
                    raise late
            # Undecoded bytes and the original headers: the new response decodes them once, as read() would.
            return httpx.Response(response.status_code, headers=response.headers, content=b"".join(chunks),
                                  request=response.request, extensions=response.extensions)
    except httpx.TimeoutException:
        raise late from None
    except httpx.RequestError as exc:  # connection refused or cut, protocol errors, bad redirects
        raise ProviderUnavailable(f"{provider}: connection failed: {redact(str(exc), key)}",
                                  provider=provider) from None


def json_payload(response: httpx.Response, *, provider: str, key: str | None, raw_chars: int,
                 what: str = "") -> object:
    """The JSON body of a 200, or the error the status means (429, 5xx, 4xx, other, not JSON)."""
    status = response.status_code
    if status == 429:
        raise ProviderRateLimited(f"{provider}: rate limited (HTTP 429): {error_message(response, key)}",
                                  provider=provider, retry_after=retry_after(response.headers.get("retry-after")))
    if status >= 500:
        raise ProviderUnavailable(f"{provider}: server error (HTTP {status}): {error_message(response, key)}",
                                  provider=provider, status=status)
    if status >= 400:
        raise ProviderRejected(f"{provider}: request refused (HTTP {status}): {error_message(response, key)}",
                               provider=provider, status=status)
    if status != 200:
        raise ProviderUnavailable(f"{provider}: unexpected HTTP {status}", provider=provider, status=status)
    try:
        return response.json()
    except ValueError:
        raise MalformedResponse(f"{provider}: the {what}response body is not JSON",
                                raw=redact(response.text[:raw_chars], key), provider=provider,
                                status=status) from None


def retry_delay(exc: ProviderError, attempt: int, attempts: int, *, max_retry_after_s: float,
                backoff_base_s: float, backoff_max_s: float, jitter: Callable[[], float]) -> float | None:
    """Seconds to wait before attempt ``attempt + 1``, or None to give up now.

    Malformed answers and non-retryable errors end at once; a ``Retry-After`` is honoured up to
    ``max_retry_after_s`` (beyond it the call ends, so a job queue can wait instead); otherwise
    exponential backoff with equal jitter (``jitter()`` in [0, 1)): never 0, never over the ceiling.
    """
    if not exc.retryable or isinstance(exc, MalformedResponse) or attempt >= attempts:
        return None
    if isinstance(exc, ProviderRateLimited) and exc.retry_after is not None:
        return None if exc.retry_after > max_retry_after_s else exc.retry_after
    ceiling = min(backoff_max_s, backoff_base_s * 2 ** (attempt - 1))
    return ceiling / 2 + jitter() * ceiling / 2
